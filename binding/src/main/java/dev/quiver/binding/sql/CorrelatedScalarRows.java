package dev.quiver.binding.sql;

import dev.quiver.binding.planner.SingleRowFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Makes a decorrelated scalar subquery fail when it returns several rows for an outer row, as SQL
 * requires. Decorrelated, {@code (SELECT s.v FROM s WHERE s.k = o.k)} is a join of the outer rows
 * with {@code SELECT k, SINGLE_VALUE(v) FROM s GROUP BY k}; that aggregate sees every group,
 * including groups no outer row joins, so it cannot fail by itself (it keeps any one value). This
 * adds the groups' row counts to the aggregate and wraps each use of its values after the join in
 * {@code $SINGLE_ROW(value, rows, anchor)}, which fails only for the rows that the join pairs. A
 * join whose right side is not such an aggregate (under filters only) keeps the old behaviour: one
 * of the rows.
 */
final class CorrelatedScalarRows extends RelShuttleImpl {
  private final RexBuilder rex;

  private CorrelatedScalarRows(RexBuilder rex) {
    this.rex = rex;
  }

  static RelNode apply(RelNode rel) {
    return rel.accept(new CorrelatedScalarRows(rel.getCluster().getRexBuilder()));
  }

  @Override
  public RelNode visit(LogicalJoin join) {
    RelNode visited = super.visit(join);
    if (!(visited instanceof Join j) || j.getLeft().getRowType().getFieldCount() == 0) {
      return visited;
    }
    // The decorrelator puts a filter on the subquery's value between the aggregate and the join
    // (WHERE (SELECT v ...) = 'y'); it moves into the join condition, which keeps the same rows
    // for every join type, so that it is checked only for the pairs the join makes.
    List<RexNode> filters = new ArrayList<>();
    RelNode right = j.getRight();
    while (right instanceof Filter f) {
      filters.add(f.getCondition());
      right = f.getInput();
    }
    if (!(right instanceof Aggregate agg) || !qualifies(agg)) {
      return visited;
    }
    int nLeft = j.getLeft().getRowType().getFieldCount();
    int groups = agg.getGroupCount();
    List<AggregateCall> calls = new ArrayList<>(agg.getAggCallList());
    RelDataType bigint = rex.getTypeFactory().createSqlType(SqlTypeName.BIGINT);
    calls.add(
        AggregateCall.create(
            SqlStdOperatorTable.COUNT,
            false,
            false,
            false,
            List.of(),
            List.of(),
            -1,
            null,
            RelCollations.EMPTY,
            bigint,
            "$rows"));
    Aggregate counted =
        LogicalAggregate.create(agg.getInput(), agg.getHints(), agg.getGroupSet(), null, calls);
    int rowsInRight = groups + agg.getAggCallList().size();
    List<Integer> singles = new ArrayList<>();
    for (int i = 0; i < agg.getAggCallList().size(); i++) {
      if (agg.getAggCallList().get(i).getAggregation().getKind() == SqlKind.SINGLE_VALUE) {
        singles.add(nLeft + groups + i);
      }
    }
    // The condition sees the inputs' types; the rows column follows the right side's fields.
    List<RelDataTypeField> inputFields = new ArrayList<>(j.getLeft().getRowType().getFieldList());
    inputFields.addAll(counted.getRowType().getFieldList());
    int rowsIndex = nLeft + rowsInRight;
    List<RexNode> conjuncts = new ArrayList<>();
    conjuncts.add(j.getCondition());
    for (RexNode f : filters) {
      conjuncts.add(RexUtil.shift(f, nLeft));
    }
    RexNode condition =
        RexUtil.composeConjunction(rex, conjuncts)
            .accept(
                new RexShuttle() {
                  @Override
                  public RexNode visitInputRef(RexInputRef ref) {
                    return singles.contains(ref.getIndex())
                        ? checked(
                            ref,
                            new RexInputRef(rowsIndex, inputFields.get(rowsIndex).getType()),
                            new RexInputRef(0, inputFields.get(0).getType()))
                        : ref;
                  }
                });
    Join rewritten =
        LogicalJoin.create(
            j.getLeft(), counted, j.getHints(), condition, Set.of(), j.getJoinType());
    if (!j.getJoinType().projectsRight()) {
      return rewritten;
    }
    List<RelDataTypeField> outFields = rewritten.getRowType().getFieldList();
    RexInputRef rows = new RexInputRef(rowsIndex, outFields.get(rowsIndex).getType());
    RexInputRef anchor = new RexInputRef(0, outFields.get(0).getType());
    List<RexNode> projects = new ArrayList<>();
    for (int f = 0; f < rowsIndex; f++) {
      RexInputRef ref = new RexInputRef(f, outFields.get(f).getType());
      projects.add(singles.contains(f) ? checked(ref, rows, anchor) : ref);
    }
    return LogicalProject.create(
        rewritten, List.of(), projects, j.getRowType().getFieldNames(), Set.of());
  }

  /**
   * {@code $SINGLE_ROW(value, rows, anchor)}: {@code anchor} is a column of the join's left side,
   * unused when run, so that a condition checking the value refers to both sides and the optimizer
   * cannot push it below the join, where it would see groups the join drops.
   */
  private RexNode checked(RexNode value, RexNode rows, RexNode anchor) {
    return rex.makeCall(
        rex.getTypeFactory().createTypeWithNullability(value.getType(), true),
        SingleRowFunction.INSTANCE,
        List.of(value, rows, anchor));
  }

  /** A grouped aggregate with SINGLE_VALUE calls, as the decorrelator writes them. */
  private static boolean qualifies(Aggregate agg) {
    if (agg.getGroupType() != Aggregate.Group.SIMPLE || agg.getGroupCount() == 0) {
      return false;
    }
    boolean any = false;
    for (AggregateCall call : agg.getAggCallList()) {
      if (call.getAggregation().getKind() == SqlKind.SINGLE_VALUE) {
        if (call.filterArg >= 0 || call.isDistinct()) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }
}
