package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexUtil;

/**
 * Puts an identity projection under every filter that uses a correlation variable, so that the
 * filter's input keeps its column positions through decorrelation.
 *
 * <p>When a filter equates a correlation field with one of its input's columns ({@code $cor.s =
 * $26}), Calcite's decorrelator reads the field's value from that column instead of joining a
 * generator of values, but it takes the column's position in the correlated input as its position
 * in the decorrelated one. A join under the filter whose left side gained a correlation column
 * moves every right column one place on, and the value was read from the neighbouring column: a
 * type error when the types differed ({@code Hash join cannot compare key f20 of type DOUBLE with
 * s2 of type Utf8}), a wrong answer when they did not. A decorrelated projection keeps its columns
 * where they were (the correlation columns it passes along come after them), so positions taken
 * from it are right. Calcite does not push a correlated filter into a join, so the projection costs
 * no push-down, and the optimizer removes it later.
 */
final class CorrelatedFilters {
  private CorrelatedFilters() {}

  static RelNode apply(RelNode rel) {
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode rewritten = apply(input);
      changed |= rewritten != input;
      inputs.add(rewritten);
    }
    RelNode node = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    if (node instanceof LogicalFilter filter
        && !(filter.getInput() instanceof Project)
        && RexUtil.containsCorrelation(filter.getCondition())) {
      RelNode input = filter.getInput();
      RelNode identity =
          LogicalProject.create(
              input,
              List.of(),
              input.getCluster().getRexBuilder().identityProjects(input.getRowType()),
              input.getRowType().getFieldNames(),
              Set.of());
      return filter.copy(filter.getTraitSet(), identity, filter.getCondition());
    }
    return node;
  }
}
