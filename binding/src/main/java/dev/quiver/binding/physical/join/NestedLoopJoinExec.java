package dev.quiver.binding.physical.join;

import dev.quiver.binding.JoinType;
import dev.quiver.binding.ResourcesExhaustedException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Joins every left row with every right row that satisfies {@code filter} (a cross join when the
 * filter is null), for non-equi joins and scalar subqueries over small inputs. The left input is
 * gathered once per execution and shared; the right input is streamed per partition. Left rows
 * that LEFT/FULL/SEMI/ANTI joins emit at the end come from the partition that finishes last, so
 * every output partition must be executed.
 */
public final class NestedLoopJoinExec extends BaseExecutionPlan {
  private final ExecutionPlan left;
  private final ExecutionPlan right;
  private final JoinType joinType;
  private final PhysicalExpr filter;
  private final Schema filterSchema;
  private final boolean tracksLeft;
  private final SharedBuild.Registry<Gathered> shared = new SharedBuild.Registry<>();

  /** Creates the operator; {@code filter} may be null for a cross join. */
  public NestedLoopJoinExec(
      ExecutionPlan left, ExecutionPlan right, JoinType joinType, PhysicalExpr filter) {
    super(JoinSupport.outputSchema(left.schema(), right.schema(), joinType), List.of(left, right));
    this.left = left;
    this.right = right;
    this.joinType = joinType;
    this.filter = filter;
    this.filterSchema = JoinSupport.filterSchema(left.schema(), right.schema());
    this.tracksLeft = joinType == JoinType.LEFT || joinType == JoinType.FULL
        || joinType == JoinType.SEMI || joinType == JoinType.ANTI;
  }

  /** The left (gathered) input. */
  public ExecutionPlan left() {
    return left;
  }

  /** The right (streamed) input. */
  public ExecutionPlan right() {
    return right;
  }

  /** The join type. */
  public JoinType joinType() {
    return joinType;
  }

  /** The join condition over left ++ right columns, or null. */
  public PhysicalExpr filter() {
    return filter;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.unknown(right.partitionCount());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 2) {
      throw new IllegalArgumentException(
          "NestedLoopJoinExec takes two children, got " + children.size());
    }
    return new NestedLoopJoinExec(children.get(0), children.get(1), joinType, filter);
  }

  @Override
  public String displayDetails() {
    return "join_type=" + joinType + (filter != null ? ", filter=" + filter : "");
  }

  private String consumer() {
    return "NestedLoopJoinExec(" + joinType + (filter != null ? " on " + filter : "")
        + ") left side";
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new NestedLoopStream(
        partition, context, shared.acquire(context, partitionCount(), tracksLeft));
  }

  /** The gathered left input and its reserved memory. */
  private static final class Gathered implements AutoCloseable {
    final VectorSchemaRoot batch;
    final MemoryReservation reservation;

    Gathered(VectorSchemaRoot batch, MemoryReservation reservation) {
      this.batch = batch;
      this.reservation = reservation;
    }

    @Override
    public void close() {
      Batches.closeAll(List.of(batch, reservation));
    }
  }

  private final class NestedLoopStream implements BatchStream {
    private final int partition;
    private final TaskContext context;
    private final SharedBuild<Gathered> sharedLeft;
    private final BufferAllocator allocator;
    private final int batchSize;
    private final int[] leftIdx;
    private final int[] rightIdx;
    private final ArrayDeque<VectorSchemaRoot> ready = new ArrayDeque<>();
    private VectorSchemaRoot leftBatch;
    private long[] leftMatched;
    private BatchStream rightIn;
    private VectorSchemaRoot rightBatch;
    private boolean[] rightMatched;
    private int nextRight;
    private int nextLeft;
    private boolean finished;
    private boolean closed;

    NestedLoopStream(int partition, TaskContext context, SharedBuild<Gathered> sharedLeft) {
      this.partition = partition;
      this.context = context;
      this.sharedLeft = sharedLeft;
      this.allocator = context.allocator();
      this.batchSize = Math.max(1, context.batchSize());
      this.leftIdx = new int[batchSize];
      this.rightIdx = new int[batchSize];
    }

    @Override
    public Schema schema() {
      return NestedLoopJoinExec.this.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      if (closed) {
        return null;
      }
      try {
        while (true) {
          if (!ready.isEmpty()) {
            return ready.poll();
          }
          if (finished) {
            return null;
          }
          step();
        }
      } catch (OutOfMemoryException e) {
        throw new ResourcesExhaustedException(
            "Resources exhausted: " + consumer() + " could not allocate Arrow memory ("
                + e.getMessage() + "); raise quiver.execution.memory_limit", e);
      }
    }

    private void step() {
      if (leftBatch == null) {
        leftBatch = sharedLeft.get(() -> {
          MemoryReservation r = context.memoryPool().newReservation(consumer());
          try {
            return new Gathered(JoinSupport.gather(left, -1, context, r), r);
          } catch (RuntimeException e) {
            r.close();
            throw e;
          }
        }).batch;
        int rows = leftBatch.getRowCount();
        if (rows == 0 && joinType != JoinType.RIGHT && joinType != JoinType.FULL) {
          finished = true;
          return;
        }
        leftMatched = tracksLeft ? new long[(rows + 63) >>> 6] : null;
        rightIn = right.execute(partition, context);
        return;
      }
      if (rightBatch == null) {
        VectorSchemaRoot b = rightIn.next();
        if (b == null) {
          rightEnded();
          finished = true;
          return;
        }
        if (b.getRowCount() == 0) {
          b.close();
          return;
        }
        rightBatch = b;
        rightMatched = JoinSupport.emitsUnmatchedRight(joinType) ? new boolean[b.getRowCount()] : null;
        nextRight = 0;
        nextLeft = 0;
        if (filter == null && (joinType == JoinType.SEMI || joinType == JoinType.ANTI)) {
          // Without a condition every left row matches any right row.
          Arrays.fill(leftMatched, -1L);
          nextRight = b.getRowCount();
        }
        return;
      }
      int leftRows = leftBatch.getRowCount();
      int rightRows = rightBatch.getRowCount();
      if (nextRight < rightRows && leftRows > 0) {
        int n = 0;
        while (n < batchSize && nextRight < rightRows) {
          leftIdx[n] = nextLeft;
          rightIdx[n++] = nextRight;
          if (++nextLeft == leftRows) {
            nextLeft = 0;
            nextRight++;
          }
        }
        joinPairs(n);
        return;
      }
      if (rightMatched != null) {
        int[] idx = rows(rightMatched, false);
        emitPadded(null, idx, rightBatch);
      }
      rightBatch.close();
      rightBatch = null;
      rightMatched = null;
    }

    private void joinPairs(int n) {
      boolean semiLike = joinType == JoinType.SEMI || joinType == JoinType.ANTI;
      VectorSchemaRoot out = JoinSupport.gatherPairs(semiLike ? filterSchema : schema(),
          leftBatch, leftIdx, rightBatch, rightIdx, n, allocator);
      boolean[] keep = null;
      if (filter != null) {
        try {
          keep = JoinSupport.evaluateFilter(filter, out, allocator);
        } catch (RuntimeException e) {
          out.close();
          throw e;
        }
      }
      for (int i = 0; i < n; i++) {
        if (keep == null || keep[i]) {
          if (leftMatched != null) {
            JoinSupport.setBit(leftMatched, leftIdx[i]);
          }
          if (rightMatched != null) {
            rightMatched[rightIdx[i]] = true;
          }
        }
      }
      if (semiLike) {
        out.close();
        return;
      }
      addReady(keep == null ? out : JoinSupport.select(out, keep, allocator));
    }

    private int[] rows(boolean[] flags, boolean wanted) {
      int[] idx = new int[flags.length];
      int k = 0;
      for (int i = 0; i < flags.length; i++) {
        if (flags[i] == wanted) {
          idx[k++] = i;
        }
      }
      return Arrays.copyOf(idx, k);
    }

    private int[] rows(long[] bits, int count, boolean wanted) {
      int[] idx = new int[count];
      int k = 0;
      for (int i = 0; i < count; i++) {
        if (JoinSupport.getBit(bits, i) == wanted) {
          idx[k++] = i;
        }
      }
      return Arrays.copyOf(idx, k);
    }

    private void emitPadded(int[] leftRows, int[] rightRows, VectorSchemaRoot rightSide) {
      int[] rows = leftRows != null ? leftRows : rightRows;
      int[] nulls = new int[Math.min(batchSize, rows.length)];
      Arrays.fill(nulls, -1);
      for (int off = 0; off < rows.length; off += batchSize) {
        int n = Math.min(batchSize, rows.length - off);
        int[] part = Arrays.copyOfRange(rows, off, off + n);
        addReady(leftRows != null
            ? JoinSupport.gatherPairs(schema(), leftBatch, part, rightSide, nulls, n, allocator)
            : JoinSupport.gatherPairs(schema(), leftBatch, nulls, rightSide, part, n, allocator));
      }
    }

    private void rightEnded() {
      if (!tracksLeft || !sharedLeft.finish(leftMatched)) {
        return;
      }
      long[] matched = sharedLeft.matched();
      int rows = leftBatch.getRowCount();
      if (joinType == JoinType.SEMI || joinType == JoinType.ANTI) {
        int[] idx = rows(matched, rows, joinType == JoinType.SEMI);
        for (int off = 0; off < idx.length; off += batchSize) {
          int n = Math.min(batchSize, idx.length - off);
          addReady(Take.take(leftBatch, Arrays.copyOfRange(idx, off, off + n), n, allocator));
        }
      } else {
        try (VectorSchemaRoot emptyRight = Batches.empty(right.schema(), allocator)) {
          emitPadded(rows(matched, rows, false), null, emptyRight);
        }
      }
    }

    private void addReady(VectorSchemaRoot out) {
      if (out.getRowCount() == 0) {
        out.close();
      } else {
        ready.add(out);
      }
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      List<AutoCloseable> all = new ArrayList<>(ready);
      ready.clear();
      all.add(rightBatch);
      all.add(rightIn);
      all.add(() -> shared.release(context, sharedLeft));
      rightBatch = null;
      Batches.closeAll(all);
    }
  }
}
