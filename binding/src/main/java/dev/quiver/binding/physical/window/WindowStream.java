package dev.quiver.binding.physical.window;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One partition of a {@link WindowExec}. When every call has the same non-empty PARTITION BY, input
 * is buffered only until a window partition is complete (a key change), so memory is bounded by the
 * largest window partition; otherwise the whole input is buffered. Buffered bytes are reserved from
 * the memory pool; computed rows are emitted in slices of {@code batchSize}.
 */
final class WindowStream implements BatchStream {
  private final WindowExec plan;
  private final TaskContext ctx;
  private final BufferAllocator allocator;
  private final MemoryReservation reservation;
  private final BatchStream in;
  private final List<PhysicalExpr> partitionKeys;
  private final List<VectorSchemaRoot> pending = new ArrayList<>();
  private List<Object> lastKey;
  private VectorSchemaRoot result;
  private int pos;
  private boolean inputDone;
  private boolean closed;

  WindowStream(WindowExec plan, int partition, TaskContext ctx) {
    this.plan = plan;
    this.ctx = ctx;
    this.allocator = ctx.allocator();
    this.reservation = ctx.memoryPool().newReservation("WindowExec[partition " + partition + "]");
    this.partitionKeys = commonPartitionKeys(plan.calls());
    this.in = plan.input().execute(partition, ctx);
  }

  private static List<PhysicalExpr> commonPartitionKeys(List<WindowCall> calls) {
    if (calls.isEmpty() || calls.get(0).partitionBy().isEmpty()) {
      return null;
    }
    List<PhysicalExpr> keys = calls.get(0).partitionBy();
    for (WindowCall c : calls) {
      if (!c.partitionBy().equals(keys)) {
        return null;
      }
    }
    return keys;
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
      return advance();
    } catch (OutOfMemoryException e) {
      throw new ResourcesExhaustedException(
          "Resources exhausted: "
              + reservation.consumer()
              + " could not allocate Arrow memory ("
              + e.getMessage()
              + "); raise quiver.execution.memory_limit or lower the query's input size",
          e);
    }
  }

  private VectorSchemaRoot advance() {
    while (true) {
      if (result != null) {
        if (pos < result.getRowCount()) {
          int n = Math.min(Math.max(1, ctx.batchSize()), result.getRowCount() - pos);
          VectorSchemaRoot out = Batches.slice(result, pos, n, allocator);
          pos += n;
          return out;
        }
        releaseResult();
      }
      if (inputDone) {
        if (pending.isEmpty()) {
          return null;
        }
        List<VectorSchemaRoot> chunk = new ArrayList<>(pending);
        pending.clear();
        computeChunk(chunk);
        continue;
      }
      ctx.checkCancelled();
      VectorSchemaRoot b = in.next();
      if (b == null) {
        inputDone = true;
        in.close();
        continue;
      }
      if (b.getRowCount() == 0) {
        b.close();
        continue;
      }
      try {
        reservation.grow(Batches.sizeInBytes(b));
      } catch (RuntimeException e) {
        b.close();
        throw e;
      }
      int cut;
      try {
        cut = partitionKeys == null ? -1 : lastPartitionStart(b);
      } catch (RuntimeException e) {
        b.close();
        throw e;
      }
      if (cut < 0) {
        pending.add(b);
        continue;
      }
      // Rows before the cut complete the buffered window partitions; the rest starts new ones.
      List<VectorSchemaRoot> chunk = new ArrayList<>(pending);
      pending.clear();
      try {
        if (cut > 0) {
          chunk.add(Batches.slice(b, 0, cut, allocator));
        }
        pending.add(Batches.slice(b, cut, b.getRowCount() - cut, allocator));
      } catch (RuntimeException e) {
        Batches.closeAll(chunk);
        throw e;
      } finally {
        b.close();
      }
      if (!chunk.isEmpty()) {
        computeChunk(chunk);
      }
    }
  }

  /**
   * A key value compared with {@code equals} as SQL compares it: Double.equals tells -0.0 from 0.0,
   * which are one window partition (within a batch {@link WindowFunctions#markChanges} already
   * compares them as equal).
   */
  private static Object sqlKey(Object value) {
    if (value instanceof Double d && d == 0.0) {
      return 0.0;
    }
    if (value instanceof Float f && f == 0.0f) {
      return 0.0f;
    }
    return value;
  }

  /**
   * Index of the last row of {@code b} that starts a new window partition (0 when only the first
   * row does, relative to the previous batch), or -1 when every row continues the buffered one.
   */
  private int lastPartitionStart(VectorSchemaRoot b) {
    int rows = b.getRowCount();
    boolean[] changed = new boolean[rows];
    List<FieldVector> keys = new ArrayList<>();
    try {
      for (PhysicalExpr e : partitionKeys) {
        FieldVector v = e.evaluate(b, allocator);
        keys.add(v);
        WindowFunctions.markChanges(v, rows, changed);
      }
      // Compare the first row with the previous batch's last row (boxed: once per batch).
      List<Object> first = new ArrayList<>();
      List<Object> last = new ArrayList<>();
      for (FieldVector v : keys) {
        first.add(sqlKey(v.getObject(0)));
        last.add(sqlKey(v.getObject(rows - 1)));
      }
      changed[0] = lastKey != null && !Objects.equals(first, lastKey);
      lastKey = last;
    } finally {
      Batches.closeAll(keys);
    }
    for (int i = rows - 1; i >= 0; i--) {
      if (changed[i]) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Computes every call over {@code chunk} (whole window partitions; closed here) into the result.
   */
  private void computeChunk(List<VectorSchemaRoot> chunk) {
    VectorSchemaRoot all;
    try {
      all =
          chunk.size() == 1
              ? chunk.remove(0)
              : Batches.concat(plan.input().schema(), chunk, allocator);
    } finally {
      Batches.closeAll(chunk);
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
    pos = 0;
  }

  private void releaseResult() {
    result.close();
    result = null;
    long held = 0;
    for (VectorSchemaRoot p : pending) {
      held += Batches.sizeInBytes(p);
    }
    reservation.shrink(Math.max(0, reservation.size() - held));
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
      Batches.closeAll(pending);
      pending.clear();
      if (result != null) {
        result.close();
        result = null;
      }
      reservation.close();
    }
  }
}
