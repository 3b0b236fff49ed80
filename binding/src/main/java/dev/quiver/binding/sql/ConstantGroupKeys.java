package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.plan.RelOptPredicateList;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSimplify;
import org.apache.calcite.rex.RexUtil;
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
 * HAVING NOT EXISTS (SELECT 1 FROM t WHERE false)} removed every row. The same happened to a
 * query's own GROUP BY of a constant column ({@code SELECT c, (SELECT ...), COUNT(*) FROM (SELECT
 * DATE '2020-01-02' AS c FROM t) WHERE false GROUP BY c} gave one row) when a subquery elsewhere
 * made the decorrelator walk it. Run before the decorrelator.
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
    if (!(visited instanceof Aggregate agg)
        || agg.getGroupType() != Aggregate.Group.SIMPLE
        || agg.getGroupSet().isEmpty()
        || !freeVariables(agg).isEmpty()) {
      return visited;
    }
    List<RexNode> perKey = constantKeys(agg);
    if (perKey.stream().allMatch(java.util.Objects::isNull)) {
      return visited;
    }
    if (perKey.contains(null)) {
      return withoutConstantKeys(agg, perKey);
    }
    List<RexNode> constants = perKey;
    List<AggregateCall> calls = agg.getAggCallList();
    builder.push(agg.getInput());
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

  /**
   * Groups by the keys that are not constant and puts the constant ones back in a projection, in
   * their places. Calcite's decorrelator drops constant keys itself but put them back out of order
   * ({@code SELECT DISTINCT 1, 'A', s FROM t} became (1, s, 'A') when a subquery elsewhere in the
   * query made it walk this aggregate), so a UNION ALL matched 'A' with the other branch's column.
   */
  private RelNode withoutConstantKeys(Aggregate agg, List<RexNode> perKey) {
    List<Integer> kept = new ArrayList<>();
    int position = 0;
    for (int key : agg.getGroupSet()) {
      if (perKey.get(position++) == null) {
        kept.add(key);
      }
    }
    List<AggregateCall> calls = agg.getAggCallList();
    builder.push(agg.getInput());
    List<RelBuilder.AggCall> newCalls = new ArrayList<>();
    for (AggregateCall call : calls) {
      newCalls.add(builder.aggregateCall(call));
    }
    builder.aggregate(builder.groupKey(org.apache.calcite.util.ImmutableBitSet.of(kept)), newCalls);
    List<RexNode> out = new ArrayList<>();
    int field = 0;
    for (RexNode constant : perKey) {
      out.add(constant != null ? constant : builder.field(field++));
    }
    for (int i = 0; i < calls.size(); i++) {
      out.add(builder.field(kept.size() + i));
    }
    builder.project(out, agg.getRowType().getFieldNames(), true);
    if (!builder.peek().getRowType().equalsSansFieldNames(agg.getRowType())) {
      builder.convert(agg.getRowType(), false);
    }
    RelNode rewritten = builder.build();
    return rewritten.getRowType().equalsSansFieldNames(agg.getRowType()) ? rewritten : agg;
  }

  /**
   * The constant value of each group key, null for a key that is not constant: a literal in the
   * projection below, also under filters and further projections ({@code SELECT DATE '2020-01-02'
   * AS c0, x FROM t) WHERE x > 5 GROUP BY c0}), as Calcite's predicate metadata finds them.
   */
  private static List<RexNode> constantKeys(Aggregate agg) {
    RelNode input = agg.getInput();
    Map<RexNode, RexNode> constantMap =
        input.getCluster().getMetadataQuery().getPulledUpPredicates(input).constantMap;
    List<RexNode> constants = new ArrayList<>();
    for (int key : agg.getGroupSet()) {
      RexNode constant = constantMap.get(RexInputRef.of(key, input.getRowType()));
      if (constant == null && input instanceof Project project) {
        constant =
            simplifiedConstant(
                project.getCluster().getRexBuilder(), project.getProjects().get(key));
      }
      constants.add(constant != null && RexUtil.isConstant(constant) ? constant : null);
    }
    return constants;
  }

  /**
   * A projected key that Calcite's simplifier folds to a literal ({@code a + CAST(NULL AS INT)},
   * {@code a IS NOT DISTINCT FROM a}), as the decorrelator's own simplification later does before
   * it drops the key; null if it does not fold.
   */
  private static RexNode simplifiedConstant(RexBuilder rexBuilder, RexNode expr) {
    RexNode simplified =
        new RexSimplify(rexBuilder, RelOptPredicateList.EMPTY, RexUtil.EXECUTOR)
            .simplifyPreservingType(expr);
    return simplified instanceof RexLiteral ? simplified : null;
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
