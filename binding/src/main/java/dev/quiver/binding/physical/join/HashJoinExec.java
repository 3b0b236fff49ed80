package dev.quiver.binding.physical.join;

import dev.quiver.binding.JoinType;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Equi-join of two inputs with an optional residual filter over left ++ right columns. INNER,
 * LEFT, RIGHT and FULL joins build a hash table on the left input and stream the right; SEMI and
 * ANTI build on the right and stream the left, emitting left columns only, unless built with
 * {@code semiBuildsLeft}: then they build on the left (the smaller input, e.g. TPC-H Q21's 75K
 * orders against 6M lineitem rows), mark the build rows the right input matches and emit the marked
 * (SEMI) or unmarked (ANTI) ones once the right input ends. Keys with a null never match unless
 * {@code nullEqualsNull}.
 *
 * <p>In {@link PartitionMode#COLLECT_BUILD} mode the build input is gathered once per execution
 * and shared by all output partitions; unmatched build rows of LEFT/FULL joins are emitted once,
 * by the partition that finishes last, so every output partition must be executed.
 */
public final class HashJoinExec extends BaseExecutionPlan {
  private final ExecutionPlan left;
  private final ExecutionPlan right;
  private final List<PhysicalExpr> leftKeys;
  private final List<PhysicalExpr> rightKeys;
  private final JoinType joinType;
  private final PhysicalExpr residualFilter;
  private final PartitionMode mode;
  private final boolean nullEqualsNull;
  private final boolean buildLeft;
  private final boolean semiBuildsLeft;
  private final Schema filterSchema;
  private final SharedBuild.Registry<BuildSide> shared = new SharedBuild.Registry<>();

  /** Creates the operator; {@code residualFilter} may be null. */
  public HashJoinExec(
      ExecutionPlan left,
      ExecutionPlan right,
      List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys,
      JoinType joinType,
      PhysicalExpr residualFilter,
      PartitionMode mode,
      boolean nullEqualsNull) {
    this(left, right, leftKeys, rightKeys, joinType, residualFilter, mode, nullEqualsNull, false);
  }

  /**
   * Creates the operator; {@code semiBuildsLeft} makes a SEMI or ANTI join build on its left input
   * (see the class comment).
   */
  public HashJoinExec(
      ExecutionPlan left,
      ExecutionPlan right,
      List<PhysicalExpr> leftKeys,
      List<PhysicalExpr> rightKeys,
      JoinType joinType,
      PhysicalExpr residualFilter,
      PartitionMode mode,
      boolean nullEqualsNull,
      boolean semiBuildsLeft) {
    super(JoinSupport.outputSchema(left.schema(), right.schema(), joinType), List.of(left, right));
    JoinKeys.checkCompatible(leftKeys, rightKeys, "Hash join");
    if (mode == PartitionMode.PARTITIONED && left.partitionCount() != right.partitionCount()) {
      throw new IllegalArgumentException(
          "Partitioned hash join needs inputs with equal partition counts, got "
              + left.partitionCount() + " and " + right.partitionCount());
    }
    this.left = left;
    this.right = right;
    this.leftKeys = List.copyOf(leftKeys);
    this.rightKeys = List.copyOf(rightKeys);
    this.joinType = joinType;
    this.residualFilter = residualFilter;
    this.mode = mode;
    this.nullEqualsNull = nullEqualsNull;
    boolean semi = joinType == JoinType.SEMI || joinType == JoinType.ANTI;
    if (semiBuildsLeft && !semi) {
      throw new IllegalArgumentException("Only SEMI and ANTI joins choose their build side");
    }
    this.semiBuildsLeft = semiBuildsLeft;
    this.buildLeft = !semi || semiBuildsLeft;
    this.filterSchema = JoinSupport.filterSchema(left.schema(), right.schema());
  }

  /** The left input. */
  public ExecutionPlan left() {
    return left;
  }

  /** The right input. */
  public ExecutionPlan right() {
    return right;
  }

  /** Key expressions over the left input. */
  public List<PhysicalExpr> leftKeys() {
    return leftKeys;
  }

  /** Key expressions over the right input. */
  public List<PhysicalExpr> rightKeys() {
    return rightKeys;
  }

  /** The join type. */
  public JoinType joinType() {
    return joinType;
  }

  /** The residual filter over left ++ right columns, or null. */
  public PhysicalExpr residualFilter() {
    return residualFilter;
  }

  /** How inputs map to output partitions. */
  public PartitionMode mode() {
    return mode;
  }

  /** Whether null keys match each other. */
  public boolean nullEqualsNull() {
    return nullEqualsNull;
  }

  /** Whether this SEMI or ANTI join builds on its left input and marks the rows matched. */
  public boolean semiBuildsLeft() {
    return semiBuildsLeft;
  }

  /** Whether build rows' matches are tracked: they decide which build rows are emitted at the end. */
  private boolean tracksBuildMatches() {
    return buildLeft && (semiBuildsLeft || JoinSupport.emitsUnmatchedLeft(joinType));
  }

  private ExecutionPlan buildPlan() {
    return buildLeft ? left : right;
  }

  private ExecutionPlan probePlan() {
    return buildLeft ? right : left;
  }

  @Override
  public Partitioning outputPartitioning() {
    int n = probePlan().partitionCount();
    int leftWidth = left.schema().getFields().size();
    if (mode == PartitionMode.PARTITIONED) {
      return switch (joinType) {
        case INNER, LEFT, SEMI, ANTI -> Partitioning.hash(leftKeys, n);
        case RIGHT -> {
          List<PhysicalExpr> shifted = JoinSupport.shift(rightKeys, leftWidth);
          yield shifted == null ? Partitioning.unknown(n) : Partitioning.hash(shifted, n);
        }
        case FULL -> Partitioning.unknown(n);
      };
    }
    if (semiBuildsLeft) {
      // Every row is emitted by whichever partition finishes the shared build last.
      return Partitioning.unknown(n);
    }
    Partitioning probe = probePlan().outputPartitioning();
    return switch (joinType) {
      case SEMI, ANTI -> probe;
      case INNER, RIGHT -> {
        if (probe.kind() != Partitioning.Kind.HASH) {
          yield probe.kind() == Partitioning.Kind.SINGLE ? probe : Partitioning.unknown(n);
        }
        List<PhysicalExpr> shifted = JoinSupport.shift(probe.hashExprs(), leftWidth);
        yield shifted == null ? Partitioning.unknown(n) : Partitioning.hash(shifted, n);
      }
      case LEFT, FULL -> Partitioning.unknown(n);
    };
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 2) {
      throw new IllegalArgumentException("HashJoinExec takes two children, got " + children.size());
    }
    return new HashJoinExec(children.get(0), children.get(1), leftKeys, rightKeys, joinType,
        residualFilter, mode, nullEqualsNull, semiBuildsLeft);
  }

  @Override
  public String displayDetails() {
    List<String> on = new ArrayList<>();
    for (int i = 0; i < leftKeys.size(); i++) {
      on.add("(" + leftKeys.get(i) + ", " + rightKeys.get(i) + ")");
    }
    return "mode=" + mode + ", join_type=" + joinType + ", on=" + on
        + (residualFilter != null ? ", filter=" + residualFilter : "")
        + (nullEqualsNull ? ", null_equals_null=true" : "")
        + (semiBuildsLeft ? ", build=left" : "");
  }

  private String consumer(int partition) {
    return "HashJoinExec(" + joinType + " on " + leftKeys + " = " + rightKeys + ") build side"
        + (partition >= 0 ? " of partition " + partition : "");
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    SharedBuild<BuildSide> s = mode == PartitionMode.COLLECT_BUILD
        ? shared.acquire(context, partitionCount())
        : null;
    return new HashJoinStream(partition, context, s);
  }

  /** The hashed build input: its rows in one batch, the key table and the reserved memory. */
  private static final class BuildSide implements AutoCloseable {
    final VectorSchemaRoot batch;
    final JoinHashTable table;
    final MemoryReservation reservation;

    BuildSide(VectorSchemaRoot batch, JoinHashTable table, MemoryReservation reservation) {
      this.batch = batch;
      this.table = table;
      this.reservation = reservation;
    }

    @Override
    public void close() {
      Batches.closeAll(List.of(batch, reservation));
    }
  }

  private BuildSide buildSide(int partition, TaskContext context) {
    MemoryReservation reservation = context.memoryPool().newReservation(consumer(partition));
    try {
      VectorSchemaRoot batch = JoinSupport.gather(buildPlan(), partition, context, reservation);
      try {
        List<PhysicalExpr> keys = buildLeft ? leftKeys : rightKeys;
        reservation.grow(JoinHashTable.estimateBytes(batch.getRowCount(), keys.size()));
        JoinKeys k = JoinKeys.extract(batch, keys, context.allocator());
        return new BuildSide(batch, new JoinHashTable(k, nullEqualsNull), reservation);
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
    } catch (RuntimeException e) {
      reservation.close();
      throw e;
    }
  }

  private final class HashJoinStream extends JoinOutputStream {
    private final int partition;
    private final TaskContext context;
    private final SharedBuild<BuildSide> sharedBuild;
    private final int[] buildIdx;
    private final int[] probeIdx;
    private BuildSide build;
    private BuildSide ownBuild;
    private long[] buildMatched;
    private BatchStream probeIn;
    private VectorSchemaRoot probeBatch;
    private JoinKeys probeKeys;
    private JoinHashTable.Probe probe;
    private boolean[] probeMatched;

    HashJoinStream(int partition, TaskContext context, SharedBuild<BuildSide> sharedBuild) {
      super(context);
      this.partition = partition;
      this.context = context;
      this.sharedBuild = sharedBuild;
      this.buildIdx = new int[batchSize];
      this.probeIdx = new int[batchSize];
    }

    @Override
    public Schema schema() {
      return HashJoinExec.this.schema();
    }

    @Override
    protected String memoryConsumer() {
      return consumer(partition);
    }

    @Override
    protected void step() {
      if (build == null) {
        if (sharedBuild != null) {
          build = sharedBuild.get(() -> buildSide(-1, context));
        } else {
          ownBuild = buildSide(partition, context);
          build = ownBuild;
        }
        int rows = build.batch.getRowCount();
        if (rows == 0 && (joinType == JoinType.INNER || joinType == JoinType.LEFT
            || joinType == JoinType.SEMI || semiBuildsLeft)) {
          finished = true;
          return;
        }
        if (tracksBuildMatches()) {
          buildMatched = new long[(rows + 63) >>> 6];
        }
        probeIn = probePlan().execute(partition, context);
        return;
      }
      if (probeBatch == null) {
        VectorSchemaRoot b = probeIn.next();
        if (b == null) {
          probeEnded();
          finished = true;
          return;
        }
        if (b.getRowCount() == 0) {
          b.close();
          return;
        }
        probeBatch = b;
        probeKeys = JoinKeys.extract(b, buildLeft ? rightKeys : leftKeys, allocator);
        boolean needPairs = buildLeft || residualFilter != null;
        probe = needPairs ? build.table.new Probe(probeKeys) : null;
        probeMatched = buildLeft && !JoinSupport.emitsUnmatchedRight(joinType)
            ? null
            : new boolean[b.getRowCount()];
        return;
      }
      if (probe != null && !probe.done()) {
        int n = probe.fill(buildIdx, probeIdx, batchSize);
        if (n > 0) {
          if (semiBuildsLeft) {
            markBuildMatches(n);
          } else if (buildLeft) {
            emitPairs(n);
          } else {
            markSemiCandidates(n);
          }
        }
        return;
      }
      finishProbeBatch();
    }

    /** INNER/LEFT/RIGHT/FULL: output matched pairs that pass the filter and record matches. */
    private void emitPairs(int n) {
      VectorSchemaRoot out = JoinSupport.gatherPairs(
          schema(), build.batch, buildIdx, probeBatch, probeIdx, n, allocator);
      boolean[] keep = null;
      if (residualFilter != null) {
        try {
          keep = JoinSupport.evaluateFilter(residualFilter, out, allocator);
        } catch (RuntimeException e) {
          out.close();
          throw e;
        }
        out = JoinSupport.select(out, keep, allocator);
      }
      for (int i = 0; i < n; i++) {
        if (keep == null || keep[i]) {
          if (buildMatched != null) {
            JoinSupport.setBit(buildMatched, buildIdx[i]);
          }
          if (probeMatched != null) {
            probeMatched[probeIdx[i]] = true;
          }
        }
      }
      addReady(out);
    }

    /** SEMI/ANTI built on the left: mark build rows with a probe row passing the filter. */
    private void markBuildMatches(int n) {
      if (residualFilter == null) {
        for (int i = 0; i < n; i++) {
          JoinSupport.setBit(buildMatched, buildIdx[i]);
        }
        return;
      }
      try (VectorSchemaRoot candidates = JoinSupport.gatherPairs(
          filterSchema, build.batch, buildIdx, probeBatch, probeIdx, n, allocator)) {
        boolean[] keep = JoinSupport.evaluateFilter(residualFilter, candidates, allocator);
        for (int i = 0; i < n; i++) {
          if (keep[i]) {
            JoinSupport.setBit(buildMatched, buildIdx[i]);
          }
        }
      }
    }

    /** SEMI/ANTI with a filter: mark probe (left) rows with a candidate passing the filter. */
    private void markSemiCandidates(int n) {
      try (VectorSchemaRoot candidates = JoinSupport.gatherPairs(
          filterSchema, probeBatch, probeIdx, build.batch, buildIdx, n, allocator)) {
        boolean[] keep = JoinSupport.evaluateFilter(residualFilter, candidates, allocator);
        for (int i = 0; i < n; i++) {
          if (keep[i]) {
            probeMatched[probeIdx[i]] = true;
          }
        }
      }
    }

    private void finishProbeBatch() {
      int rows = probeBatch.getRowCount();
      if (!buildLeft) {
        if (probe == null) {
          build.table.anyMatches(probeKeys, probeMatched);
        }
        boolean wanted = joinType == JoinType.SEMI;
        emitRows(probeBatch, JoinSupport.rowsWhere(probeMatched, wanted));
      } else if (JoinSupport.emitsUnmatchedRight(joinType)) {
        emitPadded(build.batch, null, probeBatch, JoinSupport.rowsWhere(probeMatched, false));
      }
      probeBatch.close();
      probeBatch = null;
      probeKeys = null;
      probe = null;
      probeMatched = null;
    }

    private void probeEnded() {
      if (buildMatched == null) {
        return;
      }
      long[] matched = buildMatched;
      if (sharedBuild != null) {
        if (!sharedBuild.finish(buildMatched)) {
          return;
        }
        matched = sharedBuild.matched();
      }
      if (semiBuildsLeft) {
        boolean wanted = joinType == JoinType.SEMI;
        emitRows(build.batch, JoinSupport.rowsWhere(matched, build.batch.getRowCount(), wanted));
        return;
      }
      int[] idx = JoinSupport.rowsWhere(matched, build.batch.getRowCount(), false);
      try (VectorSchemaRoot emptyRight = Batches.empty(right.schema(), allocator)) {
        emitPadded(build.batch, idx, emptyRight, null);
      }
    }

    @Override
    protected void releaseResources(List<AutoCloseable> toClose) {
      toClose.add(probeBatch);
      toClose.add(probeIn);
      toClose.add(ownBuild);
      if (sharedBuild != null) {
        toClose.add(() -> shared.release(context, sharedBuild));
      }
      probeBatch = null;
    }
  }
}
