package dev.quiver.binding.physical.sort;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.kernel.Take;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Emits rows {@code perm[0..count)} of an in-memory batch in chunks; owns the batch. */
final class SortedRunStream implements BatchStream {
  private final VectorSchemaRoot batch;
  private final int[] perm;
  private final int count;
  private final int chunkRows;
  private final BufferAllocator allocator;
  private int pos;
  private boolean closed;

  SortedRunStream(
      VectorSchemaRoot batch, int[] perm, int count, int chunkRows, BufferAllocator allocator) {
    this.batch = batch;
    this.perm = perm;
    this.count = count;
    this.chunkRows = Math.max(1, chunkRows);
    this.allocator = allocator;
  }

  VectorSchemaRoot batch() {
    return batch;
  }

  int[] perm() {
    return perm;
  }

  int count() {
    return count;
  }

  @Override
  public Schema schema() {
    return batch.getSchema();
  }

  @Override
  public VectorSchemaRoot next() {
    if (closed || pos >= count) {
      close();
      return null;
    }
    int n = Math.min(chunkRows, count - pos);
    int[] idx = new int[n];
    System.arraycopy(perm, pos, idx, 0, n);
    pos += n;
    return Take.take(batch, idx, n, allocator);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      batch.close();
    }
  }
}
