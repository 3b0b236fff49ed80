package dev.quiver.binding.physical.join;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Joins every left row with every right row that satisfies {@code filter} (a cross join when the
 * filter is null), for non-equi joins and scalar subqueries over small inputs. The left input is
 * gathered once per execution and shared; the right input is streamed per partition. Left rows that
 * LEFT/FULL/SEMI/ANTI joins emit at the end come from the partition that finishes last, so every
 * output partition must be executed.
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
    this.tracksLeft =
        joinType == JoinType.LEFT
            || joinType == JoinType.FULL
            || joinType == JoinType.SEMI
            || joinType == JoinType.ANTI;
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
    return "NestedLoopJoinExec("
        + joinType
        + (filter != null ? " on " + filter : "")
        + ") left side";
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new NestedLoopStream(partition, context, shared.acquire(context, partitionCount()));
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

  private final class NestedLoopStream extends JoinOutputStream {
    private final int partition;
    private final TaskContext context;
    private final SharedBuild<Gathered> sharedLeft;
    private final int[] leftIdx;
    private final int[] rightIdx;
    private VectorSchemaRoot leftBatch;
    private long[] leftMatched;
    private BatchStream rightIn;
    private VectorSchemaRoot rightBatch;
    private boolean[] rightMatched;
    private int nextRight;
    private int nextLeft;

    NestedLoopStream(int partition, TaskContext context, SharedBuild<Gathered> sharedLeft) {
      super(context);
      this.partition = partition;
      this.context = context;
      this.sharedLeft = sharedLeft;
      this.leftIdx = new int[batchSize];
      this.rightIdx = new int[batchSize];
    }

    @Override
    public Schema schema() {
      return NestedLoopJoinExec.this.schema();
    }

    @Override
    protected String memoryConsumer() {
      return consumer();
    }

    @Override
    protected void step() {
      if (leftBatch == null) {
        leftBatch =
            sharedLeft.get(
                    () -> {
                      MemoryReservation r = context.memoryPool().newReservation(consumer());
                      try {
                        return new Gathered(JoinSupport.gather(left, -1, context, r), r);
                      } catch (RuntimeException e) {
                        r.close();
                        throw e;
                      }
                    })
                .batch;
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
        rightMatched =
            JoinSupport.emitsUnmatchedRight(joinType) ? new boolean[b.getRowCount()] : null;
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
        emitPadded(leftBatch, null, rightBatch, JoinSupport.rowsWhere(rightMatched, false));
      }
      rightBatch.close();
      rightBatch = null;
      rightMatched = null;
    }

    private void joinPairs(int n) {
      boolean semiLike = joinType == JoinType.SEMI || joinType == JoinType.ANTI;
      VectorSchemaRoot out =
          JoinSupport.gatherPairs(
              semiLike ? filterSchema : schema(),
              leftBatch,
              leftIdx,
              rightBatch,
              rightIdx,
              n,
              allocator);
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

    private void rightEnded() {
      if (!tracksLeft || !sharedLeft.finish(leftMatched)) {
        return;
      }
      long[] matched = sharedLeft.matched();
      int rows = leftBatch.getRowCount();
      if (joinType == JoinType.SEMI || joinType == JoinType.ANTI) {
        emitRows(leftBatch, JoinSupport.rowsWhere(matched, rows, joinType == JoinType.SEMI));
      } else {
        try (VectorSchemaRoot emptyRight = Batches.empty(right.schema(), allocator)) {
          emitPadded(leftBatch, JoinSupport.rowsWhere(matched, rows, false), emptyRight, null);
        }
      }
    }

    @Override
    protected void releaseResources(List<AutoCloseable> toClose) {
      toClose.add(rightBatch);
      toClose.add(rightIn);
      toClose.add(() -> shared.release(context, sharedLeft));
      rightBatch = null;
    }
  }
}
