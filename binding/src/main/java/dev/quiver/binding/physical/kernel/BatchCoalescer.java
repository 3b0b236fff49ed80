package dev.quiver.binding.physical.kernel;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Merges the small batches a selective filter, join or hash split produces into batches of about
 * {@code batchSize} rows, because every batch costs fixed work in each operator above (vector
 * allocation, expression setup, hashing calls). Batches of at least half the target pass through
 * untouched; row order is preserved. Not thread-safe.
 */
public final class BatchCoalescer implements AutoCloseable {
  private final int batchSize;
  private final BufferAllocator allocator;
  private final List<VectorSchemaRoot> pending = new ArrayList<>();
  private int pendingRows;

  /** Creates a coalescer whose merged batches are allocated from {@code allocator}. */
  public BatchCoalescer(int batchSize, BufferAllocator allocator) {
    this.batchSize = Math.max(1, batchSize);
    this.allocator = allocator;
  }

  /**
   * Takes ownership of {@code batch} and returns the batches now ready, in order (often none); the
   * caller owns the returned batches.
   */
  public List<VectorSchemaRoot> add(VectorSchemaRoot batch) {
    int rows = batch.getRowCount();
    if (rows == 0) {
      batch.close();
      return List.of();
    }
    List<VectorSchemaRoot> out = new ArrayList<>(2);
    try {
      if (rows >= batchSize / 2) {
        flushInto(out);
        out.add(batch);
        return out;
      }
      if (pendingRows + rows > batchSize) {
        flushInto(out);
      }
      pending.add(batch);
      pendingRows += rows;
      if (pendingRows >= batchSize) {
        flushInto(out);
      }
      return out;
    } catch (RuntimeException e) {
      Batches.closeAll(out);
      if (!pending.contains(batch)) {
        batch.close();
      }
      throw e;
    }
  }

  /** Returns the merged pending rows (null when none); the caller owns the batch. */
  public VectorSchemaRoot flush() {
    if (pending.isEmpty()) {
      return null;
    }
    try {
      if (pending.size() == 1) {
        return pending.get(0);
      }
      // The batches' own schema: a vector's actual type can be narrower than the declared one.
      return Batches.concat(pending.get(0).getSchema(), pending, allocator);
    } finally {
      if (pending.size() > 1) {
        Batches.closeAll(pending);
      }
      pending.clear();
      pendingRows = 0;
    }
  }

  private void flushInto(List<VectorSchemaRoot> out) {
    VectorSchemaRoot merged = flush();
    if (merged != null) {
      out.add(merged);
    }
  }

  /** Closes the batches still pending. */
  @Override
  public void close() {
    Batches.closeAll(pending);
    pending.clear();
    pendingRows = 0;
  }
}
