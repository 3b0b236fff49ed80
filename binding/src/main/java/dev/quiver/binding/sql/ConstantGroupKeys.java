package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;

/**
 * Rewrites an uncorrelated aggregate whose group keys are all constants, {@code GROUP BY TRUE}, as
 * a global aggregate that also counts its rows, a filter keeping it only when that count is
 * positive, and a projection putting the constants back. Both give one row over a non-empty input
 * and none over an empty one.
 *
 * <p>Calcite turns {@code EXISTS (q)} into a join with {@code SELECT TRUE FROM q GROUP BY TRUE},
 * and its decorrelator, when it walks such an uncorrelated subtree of a query that is correlated
 * elsewhere, drops constant group keys (expecting correlation keys to take their place): the
 * aggregate became {@code GROUP BY ()}, which returns a row even over an empty input, so {@code
 * HAVING NOT EXISTS (SELECT 1 FROM t WHERE false)} removed every row. Run before the decorrelator.
 */
final class ConstantGroupKeys extends RelShuttleImpl {
  private final RelBuilder builder;

  private ConstantGroupKeys(RelBuilder builder) {
    this.builder = builder;
  }

  static RelNode apply(RelNode rel, RelBuilder builder) {
    return rel.accept(new ConstantGroupKeys(builder));
  }

  @Override
  public RelNode visit(LogicalAggregate aggregate) {
    RelNode visited = super.visit(aggregate);
    if (!(visited instanceof Aggregate agg) || !qualifies(agg)) {
      return visited;
    }
    Project input = (Project) agg.getInput();
    List<RexNode> constants = new ArrayList<>();
    for (int key : agg.getGroupSet()) {
      constants.add(input.getProjects().get(key));
    }
    List<AggregateCall> calls = agg.getAggCallList();
    builder.push(input);
    List<RelBuilder.AggCall> newCalls = new ArrayList<>();
    for (AggregateCall call : calls) {
      newCalls.add(builder.aggregateCall(call));
    }
    newCalls.add(builder.countStar("$rows"));
    builder.aggregate(builder.groupKey(), newCalls);
    builder.filter(
        builder.call(
            SqlStdOperatorTable.GREATER_THAN, builder.field(calls.size()), builder.literal(0L)));
    List<RexNode> out = new ArrayList<>(constants);
    for (int i = 0; i < calls.size(); i++) {
      out.add(builder.field(i));
    }
    builder.project(out, agg.getRowType().getFieldNames(), true);
    if (!builder.peek().getRowType().equalsSansFieldNames(agg.getRowType())) {
      // A call over no GROUP BY may be NULL-able where the grouped one was not (AVG, MIN):
      // here it never sees an empty input, so it keeps the original types.
      builder.convert(agg.getRowType(), false);
    }
    RelNode rewritten = builder.build();
    return rewritten.getRowType().equalsSansFieldNames(agg.getRowType()) ? rewritten : agg;
  }

  private static boolean qualifies(Aggregate agg) {
    if (agg.getGroupType() != Aggregate.Group.SIMPLE
        || agg.getGroupSet().isEmpty()
        || !(agg.getInput() instanceof Project input)) {
      return false;
    }
    for (int key : agg.getGroupSet()) {
      if (!(input.getProjects().get(key) instanceof RexLiteral)) {
        return false;
      }
    }
    return freeVariables(agg).isEmpty();
  }

  /**
   * The correlation variables {@code rel} uses that are not defined inside it: a subquery
   * correlated and decorrelated within the aggregate's input leaves it uncorrelated.
   */
  private static Set<CorrelationId> freeVariables(RelNode rel) {
    Set<CorrelationId> free = new HashSet<>(RelOptUtil.getVariablesUsed(rel));
    removeDefined(rel, free);
    return free;
  }

  private static void removeDefined(RelNode rel, Set<CorrelationId> vars) {
    vars.removeAll(rel.getVariablesSet());
    if (rel instanceof Correlate c) {
      vars.remove(c.getCorrelationId());
    }
    for (RelNode input : rel.getInputs()) {
      removeDefined(input, vars);
    }
  }
}
