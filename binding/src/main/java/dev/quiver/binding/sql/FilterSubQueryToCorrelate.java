package dev.quiver.binding.sql;

import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.rules.SubQueryRemoveRule;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.tools.RelBuilder;

/**
 * Calcite's rule for subqueries in a filter ({@code CoreRules.FILTER_SUB_QUERY_TO_CORRELATE}),
 * rewriting the innermost subquery first ({@link SubQueryOrder}).
 *
 * <p>Calcite's rule rewrote {@code WHERE (SELECT MAX(v) FROM s WHERE s.k = o.k) IN (SELECT w FROM
 * u)} outer subquery first, which left the scalar subquery in the condition of the join that
 * replaced the IN, where nothing defines {@code o}'s variable: the plan kept {@code $cor.k} and
 * failed ("cannot be evaluated here"). Inner first, the scalar subquery becomes a column of the
 * filter's input, correlated by the filter's variable, and the IN compares that column.
 */
final class FilterSubQueryToCorrelate extends SubQueryRemoveRule {
  static final FilterSubQueryToCorrelate INSTANCE = new FilterSubQueryToCorrelate();

  private FilterSubQueryToCorrelate() {
    super(Config.FILTER);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Filter filter = call.rel(0);
    RelBuilder builder = call.builder();
    builder.push(filter.getInput());
    List<RexNode> condition = List.of(filter.getCondition());
    int count = 0;
    for (RexSubQuery subQuery = SubQueryOrder.innermost(condition);
        subQuery != null;
        subQuery = SubQueryOrder.innermost(condition)) {
      count++;
      RelOptUtil.Logic logic = SubQueryOrder.logic(RelOptUtil.Logic.TRUE, condition, subQuery);
      Set<CorrelationId> variables = RelOptUtil.getVariablesUsed(subQuery.rel);
      variables.retainAll(filter.getVariablesSet());
      int fieldCount = builder.peek().getRowType().getFieldCount();
      RexNode replacement = apply(subQuery, variables, logic, builder, 1, fieldCount, count);
      condition = SubQueryOrder.replace(condition, subQuery, replacement);
    }
    builder.filter(condition);
    builder.project(builder.fields().subList(0, filter.getRowType().getFieldCount()));
    call.transformTo(builder.build());
  }
}
