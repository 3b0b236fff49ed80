package dev.quiver.binding.planner;

import static dev.quiver.binding.planner.PhysicalPlans.column;
import static dev.quiver.binding.planner.PhysicalPlans.columns;
import static dev.quiver.binding.planner.PhysicalPlans.hashed;
import static dev.quiver.binding.planner.PhysicalPlans.single;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryBudget;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.MarkMergeExec;
import dev.quiver.binding.physical.join.NestedLoopJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.sort.SortExec;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * Plans a {@code Join}: a {@code NestedLoopJoinExec} without equality keys, otherwise a {@code
 * HashJoinExec} that collects a small build side once (below the collect threshold) or
 * hash-partitions both sides; mixed {@code =} and {@code IS NOT DISTINCT FROM} keys hash on the
 * first and check the others after.
 */
final class JoinPlanner {
  private final PlanBuilder builder;
  private final RexBuilder rexBuilder;
  private final int partitions;
  private final long collectThreshold;
  private final boolean sharedJoinMarks;
  private final boolean mergedJoinMarks;
  private final long memoryLimit;
  private final RelMetadataQuery mq;

  JoinPlanner(PlanBuilder builder) {
    this.builder = builder;
    this.rexBuilder = builder.rexBuilder;
    this.partitions = builder.partitions;
    this.collectThreshold = builder.collectThreshold;
    this.sharedJoinMarks = builder.sharedJoinMarks;
    this.mergedJoinMarks = builder.mergedJoinMarks;
    this.memoryLimit = builder.memoryLimit;
    this.mq = builder.mq;
  }

  /** Plans {@code j}, building on the smaller input (by estimated rows) where the type allows. */
  ExecutionPlan plan(Join j) {
    JoinType type = joinType(j.getJoinType());
    RelNode l = j.getLeft();
    RelNode r = j.getRight();
    int nl = l.getRowType().getFieldCount();
    List<Integer> lk = new ArrayList<>();
    List<Integer> rk = new ArrayList<>();
    List<Boolean> filterNulls = new ArrayList<>();
    List<RexNode> rest = new ArrayList<>();
    RelOptUtil.splitJoinCondition(l, r, j.getCondition(), lk, rk, filterNulls, rest);
    for (int k : lk) {
      RelDataTypeField key = l.getRowType().getFieldList().get(k);
      TypeMapping.requireFlat(key.getType(), key.getName(), "JOIN ON");
    }
    boolean nullEqualsNull = !filterNulls.isEmpty() && filterNulls.stream().noneMatch(b -> b);
    if (!nullEqualsNull && filterNulls.contains(Boolean.FALSE)) {
      // Mixed = and IS NOT DISTINCT FROM keys: hash on the = keys, check the others after.
      List<Integer> lk2 = new ArrayList<>();
      List<Integer> rk2 = new ArrayList<>();
      for (int i = 0; i < lk.size(); i++) {
        if (filterNulls.get(i)) {
          lk2.add(lk.get(i));
          rk2.add(rk.get(i));
        } else {
          rest.add(
              rexBuilder.makeCall(
                  SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
                  rexBuilder.makeInputRef(l, lk.get(i)),
                  new RexInputRef(
                      nl + rk.get(i), r.getRowType().getFieldList().get(rk.get(i)).getType())));
        }
      }
      lk = lk2;
      rk = rk2;
    }
    RexNode residual = rest.isEmpty() ? null : RexUtil.composeConjunction(rexBuilder, rest);
    if (residual != null && residual.isAlwaysTrue()) {
      residual = null;
    }
    RelDataType concat = rexBuilder.getTypeFactory().createJoinType(l.getRowType(), r.getRowType());
    ExecutionPlan left = builder.plan(l);
    ExecutionPlan right = builder.plan(r);
    boolean swappable =
        type == JoinType.INNER
            || type == JoinType.LEFT
            || type == JoinType.RIGHT
            || type == JoinType.FULL;
    // An uncorrelated scalar subquery is checked by a SINGLE_VALUE aggregate, which fails on a
    // second row. The side a join runs first (the gathered or build side) always runs, the other
    // not when the first is empty: the check goes first, so that a subquery with several rows is
    // an error whether or not an outer row reaches it, in one process as on a cluster (whose
    // stages all run), and as in DuckDB.
    boolean checkFirst = swappable && checksSingleRow(r) && !checksSingleRow(l);
    if (lk.isEmpty()) {
      if (checkFirst && type != JoinType.FULL) {
        // The outer side streams past the gathered subquery row, partition by partition.
        int nr = r.getRowType().getFieldCount();
        RexNode swappedResidual = residual == null ? null : swapInputs(residual, nl, nr);
        RelDataType swappedConcat =
            rexBuilder.getTypeFactory().createJoinType(r.getRowType(), l.getRowType());
        PhysicalExpr filter =
            swappedResidual == null ? null : builder.translate(swappedResidual, swappedConcat);
        return restoreOrder(
            new NestedLoopJoinExec(single(right), left, swap(type), filter), nl, nr, j);
      }
      PhysicalExpr filter = residual == null ? null : builder.translate(residual, concat);
      ExecutionPlan nlLeft = single(left);
      ExecutionPlan nlRight =
          type == JoinType.INNER || type == JoinType.RIGHT ? right : single(right);
      return new NestedLoopJoinExec(nlLeft, nlRight, type, filter);
    }
    double lRows = rows(l);
    double rRows = rows(r);
    if (swappable && (lRows > rRows || checkFirst)) {
      int nr = r.getRowType().getFieldCount();
      RexNode swappedResidual = residual == null ? null : swapInputs(residual, nl, nr);
      RelDataType swappedConcat =
          rexBuilder.getTypeFactory().createJoinType(r.getRowType(), l.getRowType());
      ExecutionPlan joined =
          hashJoin(
              right,
              left,
              rk,
              lk,
              swap(type),
              swappedResidual,
              swappedConcat,
              rRows,
              false,
              nullEqualsNull);
      return restoreOrder(joined, nl, nr, j);
    }
    boolean semi = type == JoinType.SEMI || type == JoinType.ANTI;
    boolean smallLeft =
        semi && lRows < rRows && lRows <= collectThreshold && fitsWithoutSpilling(l, lRows);
    if (smallLeft
        && !sharedJoinMarks
        && mergedJoinMarks
        && right.partitionCount() > 1
        && ordersCanonically(left.schema())) {
      // Where partitions cannot share marks (on a cluster, each is a task of its own), every
      // partition of the right marks its own copy of the gathered left input and one merge
      // combines the marks, which row by row refer to the same left rows: the gathered input is
      // sorted on all its columns, an order every copy has whatever order its rows arrived in.
      PhysicalExpr filter = residual == null ? null : builder.translate(residual, concat);
      ExecutionPlan gathered = single(left);
      List<SortField> all = new ArrayList<>();
      for (int i = 0; i < gathered.schema().getFields().size(); i++) {
        all.add(new SortField(column(gathered, i), true, true));
      }
      ExecutionPlan sorted = new SortExec(gathered, all, -1, false);
      return new MarkMergeExec(
          HashJoinExec.emittingMarks(
              sorted, right, columns(sorted, lk), columns(right, rk), type, filter, nullEqualsNull),
          type);
    }
    if (smallLeft && sharedJoinMarks) {
      // In one process a SEMI/ANTI join gathers its smaller left input once and every partition
      // of the right marks the rows it matches; the last to finish emits the marked (SEMI) or
      // unmarked (ANTI) ones. Neither side is repartitioned (TPC-H Q21's lineitem was, twice).
      PhysicalExpr filter = residual == null ? null : builder.translate(residual, concat);
      ExecutionPlan gathered = single(left);
      return new HashJoinExec(
          gathered,
          right,
          columns(gathered, lk),
          columns(right, rk),
          type,
          filter,
          PartitionMode.COLLECT_BUILD,
          nullEqualsNull,
          true);
    }
    // A SEMI/ANTI join hashes the smaller left input and marks its rows as a right input too
    // large to gather streams past.
    boolean semiBuildsLeft = semi && rRows > collectThreshold && lRows < rRows;
    double buildRows = semi && !semiBuildsLeft ? rRows : lRows;
    return hashJoin(
        left, right, lk, rk, type, residual, concat, buildRows, semiBuildsLeft, nullEqualsNull);
  }

  private ExecutionPlan hashJoin(
      ExecutionPlan left,
      ExecutionPlan right,
      List<Integer> lk,
      List<Integer> rk,
      JoinType type,
      RexNode residual,
      RelDataType concat,
      double buildRows,
      boolean semiBuildsLeft,
      boolean nullEqualsNull) {
    PhysicalExpr filter = residual == null ? null : builder.translate(residual, concat);
    boolean leftIsBuild = type != JoinType.SEMI && type != JoinType.ANTI;
    // Collecting the build side is only safe when unmatched build rows need not be emitted (nor,
    // for a SEMI/ANTI join built on the left, matched ones: one process's marks are unknown to
    // the other processes of a distributed run).
    boolean collectSafe =
        !semiBuildsLeft
            && (type == JoinType.INNER
                || type == JoinType.RIGHT
                || type == JoinType.SEMI
                || type == JoinType.ANTI);
    if (collectSafe && (buildRows <= collectThreshold || partitions == 1)) {
      ExecutionPlan l = leftIsBuild ? single(left) : left;
      ExecutionPlan r = leftIsBuild ? right : single(right);
      return new HashJoinExec(
          l,
          r,
          columns(l, lk),
          columns(r, rk),
          type,
          filter,
          PartitionMode.COLLECT_BUILD,
          nullEqualsNull);
    }
    ExecutionPlan l;
    ExecutionPlan r;
    if (partitions == 1) {
      l = single(left);
      r = single(right);
    } else {
      l = hashed(left, lk, partitions);
      r = hashed(right, rk, partitions);
    }
    return new HashJoinExec(
        l,
        r,
        columns(l, lk),
        columns(r, rk),
        type,
        filter,
        PartitionMode.PARTITIONED,
        nullEqualsNull,
        semiBuildsLeft);
  }

  /**
   * Whether sorting on all of {@code schema}'s columns puts equal rows, and only those, next to
   * each other in one order: not with floating-point columns, whose -0.0 and 0.0 sort as equal but
   * can be told apart.
   */
  private static boolean ordersCanonically(Schema schema) {
    for (Field f : schema.getFields()) {
      switch (f.getType().getTypeID()) {
        case Int, Decimal, Utf8, Binary, Bool, Date, Timestamp, Time, Null -> {}
        default -> {
          return false;
        }
      }
    }
    return true;
  }

  /** Puts the columns of a join planned with its inputs swapped back in {@code j}'s order. */
  private static ExecutionPlan restoreOrder(ExecutionPlan joined, int nl, int nr, Join j) {
    List<PhysicalExpr> exprs = new ArrayList<>();
    for (int i = 0; i < nl; i++) {
      exprs.add(column(joined, nr + i));
    }
    for (int i = 0; i < nr; i++) {
      exprs.add(column(joined, i));
    }
    return new ProjectionExec(joined, exprs, j.getRowType().getFieldNames());
  }

  /**
   * Whether {@code rel} is an uncorrelated scalar subquery's check: a SINGLE_VALUE aggregate
   * without group keys (under projections and filters), which fails when its input has several
   * rows.
   */
  private static boolean checksSingleRow(RelNode rel) {
    while (rel instanceof Project || rel instanceof Filter) {
      rel = rel.getInput(0);
    }
    return rel instanceof Aggregate a
        && a.getGroupSet().isEmpty()
        && a.getAggCallList().stream()
            .anyMatch(c -> c.getAggregation().getKind() == SqlKind.SINGLE_VALUE);
  }

  private static JoinType joinType(JoinRelType t) {
    return switch (t) {
      case INNER -> JoinType.INNER;
      case LEFT -> JoinType.LEFT;
      case RIGHT -> JoinType.RIGHT;
      case FULL -> JoinType.FULL;
      case SEMI -> JoinType.SEMI;
      case ANTI -> JoinType.ANTI;
      default -> throw new QuiverException("Join type " + t + " is not supported");
    };
  }

  private static JoinType swap(JoinType t) {
    return switch (t) {
      case LEFT -> JoinType.RIGHT;
      case RIGHT -> JoinType.LEFT;
      default -> t;
    };
  }

  private static RexNode swapInputs(RexNode e, int nl, int nr) {
    return e.accept(
        new RexShuttle() {
          @Override
          public RexNode visitInputRef(RexInputRef ref) {
            int i = ref.getIndex();
            return new RexInputRef(i < nl ? i + nr : i - nl, ref.getType());
          }
        });
  }

  /**
   * Whether {@code rel}'s rows, gathered and hashed, fit in a quarter of the query's spill budget
   * ({@link MemoryBudget#spill}): a build whose matches are merged across partitions cannot spill,
   * so a join that may not fit takes a plan that can.
   */
  private boolean fitsWithoutSpilling(RelNode rel, double rows) {
    if (memoryLimit == Long.MAX_VALUE) {
      return true;
    }
    Double size = mq.getAverageRowSize(rel);
    // Beside the row itself, the hash table keeps about 40 bytes a row (id, hash, key copies).
    double bytes = rows * ((size == null ? 64 : size) + 40);
    return bytes <= MemoryBudget.spill(memoryLimit) / 4.0;
  }

  private double rows(RelNode rel) {
    Double d = mq.getRowCount(rel);
    return d == null ? Double.MAX_VALUE : d;
  }
}
