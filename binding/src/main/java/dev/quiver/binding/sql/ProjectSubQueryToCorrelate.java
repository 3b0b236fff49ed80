package dev.quiver.binding.sql;

import java.util.Objects;
import java.util.Set;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.rules.SubQueryRemoveRule;
import org.apache.calcite.rex.LogicVisitor;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
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
    RexSubQuery subQuery =
        Objects.requireNonNull(RexUtil.SubQueryFinder.find(project.getProjects()));
    RelOptUtil.Logic logic =
        LogicVisitor.find(RelOptUtil.Logic.TRUE_FALSE_UNKNOWN, project.getProjects(), subQuery);
    builder.push(project.getInput());
    int fieldCount = builder.peek().getRowType().getFieldCount();
    Set<CorrelationId> variables = RelOptUtil.getVariablesUsed(subQuery.rel);
    variables.retainAll(project.getVariablesSet());
    RexNode replacement = apply(subQuery, variables, logic, builder, 1, fieldCount, 0);
    RexShuttle replace =
        new RexShuttle() {
          @Override
          public RexNode visitSubQuery(RexSubQuery other) {
            return other.equals(subQuery) ? replacement : other;
          }
        };
    // The projection keeps its variables: its other subqueries still use them. Without them the
    // next subquery, correlated by the same variable, became a plain join and the decorrelator
    // joined its rows to every outer row (SELECT (SELECT MIN(..) WHERE s.k = o.m), (SELECT v
    // WHERE t.id = o.i) FROM o gave each row of o once per row of t).
    builder.project(
        replace.apply(project.getProjects()),
        project.getRowType().getFieldNames(),
        false,
        project.getVariablesSet());
    call.transformTo(builder.build());
  }
}
