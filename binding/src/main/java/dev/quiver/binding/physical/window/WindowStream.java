package dev.quiver.binding.physical.window;

import dev.quiver.binding.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One partition of a {@link WindowExec}: buffers the whole input partition (reserving its bytes
 * from the memory pool), computes every call's column over it, then emits slices of
 * {@code batchSize} rows.
 */
final class WindowStream implements BatchStream {
  private final WindowExec plan;
  private final TaskContext ctx;
  private final BufferAllocator allocator;
  private final MemoryReservation reservation;
  private final BatchStream in;
  private VectorSchemaRoot result;
  private int pos;
  private boolean computed;
  private boolean closed;

  WindowStream(WindowExec plan, int partition, TaskContext ctx) {
    this.plan = plan;
    this.ctx = ctx;
    this.allocator = ctx.allocator();
    this.reservation = ctx.memoryPool().newReservation("WindowExec[partition " + partition + "]");
    this.in = plan.input().execute(partition, ctx);
  }

  @Override
  public Schema schema() {
    return plan.schema();
  }

  @Override
  public VectorSchemaRoot next() {
    if (closed) {
      return null;
    }
    try {
      if (!computed) {
        computed = true;
        compute();
      }
      if (result == null || pos >= result.getRowCount()) {
        return null;
      }
      int n = Math.min(Math.max(1, ctx.batchSize()), result.getRowCount() - pos);
      VectorSchemaRoot out = Batches.slice(result, pos, n, allocator);
      pos += n;
      return out;
    } catch (OutOfMemoryException e) {
      throw new ResourcesExhaustedException("Resources exhausted: " + reservation.consumer()
          + " could not allocate Arrow memory (" + e.getMessage()
          + "); raise quiver.execution.memory_limit or lower the query's input size", e);
    }
  }

  private void compute() {
    Schema inputSchema = plan.input().schema();
    List<VectorSchemaRoot> batches = new ArrayList<>();
    VectorSchemaRoot all;
    try {
      VectorSchemaRoot b;
      while ((b = in.next()) != null) {
        ctx.checkCancelled();
        if (b.getRowCount() == 0) {
          b.close();
          continue;
        }
        batches.add(b);
        reservation.grow(Batches.sizeInBytes(b));
      }
      all = batches.size() == 1
          ? batches.remove(0)
          : Batches.concat(inputSchema, batches, allocator);
    } finally {
      Batches.closeAll(batches);
      in.close();
    }
    if (all.getRowCount() == 0) {
      all.close();
      return;
    }
    List<FieldVector> cols = new ArrayList<>(all.getFieldVectors());
    try {
      for (WindowCall call : plan.calls()) {
        ctx.checkCancelled();
        FieldVector v = WindowFunctions.compute(call, all, allocator);
        cols.add(v);
        reservation.grow(v.getBufferSize());
      }
    } catch (RuntimeException e) {
      Batches.closeAll(cols);
      throw e;
    }
    result = new VectorSchemaRoot(plan.schema(), cols, all.getRowCount());
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      in.close();
    } finally {
      if (result != null) {
        result.close();
        result = null;
      }
      reservation.close();
    }
  }
}
