package dev.quiver.binding.sql;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.rules.SubQueryRemoveRule;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.tools.RelBuilder;

/**
 * Calcite's rule for subqueries in a projection ({@code CoreRules.PROJECT_SUB_QUERY_TO_CORRELATE}),
 * correlating a subquery only by the variables its own projection defines.
 *
 * <p>Calcite's rule, for a projection that defines no correlation variable, correlates the subquery
 * by every variable it uses, including those of enclosing queries. A subquery in a subquery's
 * select list that refers only to the outermost query ({@code a1.id IN (SELECT (SELECT SUM(v) FROM
 * t WHERE t.k = a1.k) FROM s)}) thus became a correlate over {@code s} named by the outermost
 * query's variable, which then stood for an {@code s} row: the decorrelator failed on the
 * mismatched fields or, where the types happened to line up, would have read the wrong row. The
 * filter rule already keeps only its own variables; this one does the same for projections.
 *
 * <p>It also rewrites the innermost subquery first ({@link SubQueryOrder}) and keeps the
 * projection's variables for the subqueries still left: Calcite's rule rebuilt the projection
 * without them, so in {@code SELECT (SELECT MAX(v) FROM t), (SELECT w FROM s WHERE s.k = o.k) FROM
 * o} the second subquery lost its correlation (a {@code $cor} left in the plan) and two correlated
 * scalar subqueries gave every {@code s} row for every {@code o} row.
 */
final class ProjectSubQueryToCorrelate extends SubQueryRemoveRule {
  static final ProjectSubQueryToCorrelate INSTANCE = new ProjectSubQueryToCorrelate();

  private ProjectSubQueryToCorrelate() {
    super(Config.PROJECT);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Project project = call.rel(0);
    RelBuilder builder = call.builder();
    List<RexNode> exprs = project.getProjects();
    RexSubQuery subQuery = Objects.requireNonNull(SubQueryOrder.innermost(exprs));
    RelOptUtil.Logic logic =
        SubQueryOrder.logic(RelOptUtil.Logic.TRUE_FALSE_UNKNOWN, exprs, subQuery);
    builder.push(project.getInput());
    int fieldCount = builder.peek().getRowType().getFieldCount();
    Set<CorrelationId> variables = RelOptUtil.getVariablesUsed(subQuery.rel);
    variables.retainAll(project.getVariablesSet());
    RexNode replacement = apply(subQuery, variables, logic, builder, 1, fieldCount, 0);
    List<RexNode> rewritten = SubQueryOrder.replace(exprs, subQuery, replacement);
    // The projection keeps the variables its other subqueries use: without them the next
    // correlated subquery of the list was joined uncorrelated and the decorrelator joined its rows
    // to every outer row (SELECT (SELECT MIN(..) WHERE s.k = o.m), (SELECT v WHERE t.id = o.i)
    // FROM o gave each row of o once per row of t), or a $cor was left in the plan.
    builder.project(
        rewritten,
        project.getRowType().getFieldNames(),
        false,
        SubQueryOrder.stillUsed(rewritten, project.getVariablesSet()));
    call.transformTo(builder.build());
  }
}
