package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalCorrelate;
import org.apache.calcite.rel.logical.LogicalProject;

/**
 * Keeps Calcite's scalar-aggregate decorrelation rule away from subqueries correlated below their
 * top filter.
 *
 * <p>{@code RelDecorrelator} first tries {@code RemoveCorrelationForScalarAggregateRule} on a
 * correlate whose right side is a projection of one expression over an aggregate without group keys
 * ({@code (SELECT COALESCE(MIN(x), 8) FROM ... WHERE s.d = o.d)}). The rule turns the top filter's
 * correlation into a join condition and checks that nothing further down is correlated, but inside
 * its planner it sees only the node just below the filter. In {@code (SELECT COALESCE(MIN(x), 8)
 * FROM (SELECT * FROM u WHERE u.n <> o.n) a JOIN s ON ... WHERE s.d = o.d)} the derived table's
 * {@code o.n} was left behind, unbound ("cannot be evaluated here").
 *
 * <p>Where such a subquery uses correlation variables below its top filter, this pass puts an
 * identity projection on top of its right side, which the rule does not match; the decorrelator's
 * general rewrite handles the subquery instead, and the optimizer removes the projection.
 */
final class DeepCorrelatedAggregates {
  private DeepCorrelatedAggregates() {}

  static RelNode apply(RelNode rel) {
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode rewritten = apply(input);
      changed |= rewritten != input;
      inputs.add(rewritten);
    }
    RelNode node = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    if (node instanceof LogicalCorrelate correlate && correlatedBelowTop(correlate)) {
      RelNode right = correlate.getRight();
      RelNode identity =
          LogicalProject.create(
              right,
              List.of(),
              right.getCluster().getRexBuilder().identityProjects(right.getRowType()),
              right.getRowType().getFieldNames(),
              Set.of());
      return correlate.copy(
          correlate.getTraitSet(),
          correlate.getLeft(),
          identity,
          correlate.getCorrelationId(),
          correlate.getRequiredColumns(),
          correlate.getJoinType());
    }
    return node;
  }

  /** Whether the rule's pattern matches and a variable is used below the top filter. */
  private static boolean correlatedBelowTop(LogicalCorrelate correlate) {
    if (correlate.getJoinType() != JoinRelType.LEFT
        || !(correlate.getRight() instanceof Project top)
        || top.getProjects().size() != 1
        || !(top.getInput() instanceof Aggregate aggregate)
        || !aggregate.getGroupSet().isEmpty()
        || !(aggregate.getInput() instanceof Project below)) {
      return false;
    }
    RelNode rest = below.getInput();
    RelNode deeper = rest instanceof Filter filter ? filter.getInput() : rest;
    return !RelOptUtil.getVariablesUsed(deeper).isEmpty();
  }
}
