package dev.quiver.binding.optimizer;

import java.util.Map;
import org.apache.calcite.plan.RelOptPredicateList;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.rules.ReduceExpressionsRule;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;

/**
 * Calcite's projection reduction, safe when the input's predicates pin a NOT NULL column to NULL. A
 * correlated subquery compared with a group key that folds to NULL ({@code t2.a = s.k}, {@code s.k}
 * a NULL constant, {@code t2.a} NOT NULL) becomes, once decorrelated, a filter {@code null IS NOT
 * DISTINCT FROM t2.a}; Calcite's rule then replaces {@code t2.a} in the projection above by a NULL
 * literal, which changes the column's type and fails its check ("Cannot add expression of different
 * type to set"). Such an input has no rows, so the projection becomes an empty VALUES.
 */
public final class NotNullEqualsNull extends ReduceExpressionsRule.ProjectReduceExpressionsRule {
  /** The rule, in place of {@code CoreRules.PROJECT_REDUCE_EXPRESSIONS}. */
  public static final NotNullEqualsNull PROJECT_REDUCE_EXPRESSIONS = new NotNullEqualsNull();

  private NotNullEqualsNull() {
    super(ProjectReduceExpressionsRuleConfig.DEFAULT);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Project project = call.rel(0);
    RelOptPredicateList predicates =
        call.getMetadataQuery().getPulledUpPredicates(project.getInput());
    if (pinsNotNullToNull(predicates)) {
      call.transformTo(LogicalValues.createEmpty(project.getCluster(), project.getRowType()));
      call.getPlanner().prune(project);
      return;
    }
    super.onMatch(call);
  }

  /** Whether a predicate says a NOT NULL expression equals NULL: no row can satisfy them. */
  static boolean pinsNotNullToNull(RelOptPredicateList predicates) {
    for (Map.Entry<RexNode, RexNode> e : predicates.constantMap.entrySet()) {
      if (!e.getKey().getType().isNullable() && RexLiteral.isNullLiteral(e.getValue())) {
        return true;
      }
    }
    return false;
  }
}
