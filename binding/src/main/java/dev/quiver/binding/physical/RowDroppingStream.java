package dev.quiver.binding.physical;

import dev.quiver.binding.physical.kernel.BatchCoalescer;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A stream that keeps some rows of each input batch ({@link #survivors}) and merges the small
 * batches a selective test leaves into full-size ones: the common part of filters.
 */
public abstract class RowDroppingStream implements BatchStream {
  private final BatchStream in;
  private final Schema schema;
  private final BatchCoalescer coalescer;
  private final ArrayDeque<VectorSchemaRoot> ready = new ArrayDeque<>();
  private boolean inputDone;

  protected RowDroppingStream(
      BatchStream in, Schema schema, int batchSize, BufferAllocator allocator) {
    this.in = in;
    this.schema = schema;
    this.coalescer = new BatchCoalescer(batchSize, allocator);
  }

  /** The rows of {@code batch} to emit, or null when none is; closes {@code batch}. */
  protected abstract VectorSchemaRoot survivors(VectorSchemaRoot batch);

  @Override
  public final Schema schema() {
    return schema;
  }

  @Override
  public final VectorSchemaRoot next() {
    while (ready.isEmpty()) {
      if (inputDone) {
        return null;
      }
      VectorSchemaRoot batch = in.next();
      if (batch == null) {
        inputDone = true;
        return coalescer.flush();
      }
      VectorSchemaRoot kept = survivors(batch);
      if (kept != null) {
        ready.addAll(coalescer.add(kept));
      }
    }
    return ready.poll();
  }

  @Override
  public void close() {
    List<AutoCloseable> all = new ArrayList<>(ready);
    ready.clear();
    all.add(coalescer);
    all.add(in);
    Batches.closeAll(all);
  }
}
