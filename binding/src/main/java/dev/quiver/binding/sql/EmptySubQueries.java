package dev.quiver.binding.sql;

import java.util.List;
import org.apache.calcite.plan.RelOptPredicateList;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.rules.PruneEmptyRules;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSimplify;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Removes correlated subqueries that cannot have rows before decorrelation. A subquery whose filter
 * is always false ({@code x NOT IN (SELECT .. WHERE o.k = k AND s <> s)}) is simplified by
 * Calcite's decorrelator to an empty VALUES, which drops the correlation it would have turned into
 * join keys; the decorrelator then gives up on the whole query and a Correlate is left that Quiver
 * cannot run. Here such filters become empty inputs first and Calcite's pruning rules fold them
 * away: a LEFT correlate over an empty subquery keeps its left rows padded with NULLs, as the
 * subquery's NULL (scalar) or empty (IN, EXISTS) answer requires.
 */
final class EmptySubQueries {
  /**
   * Calcite's {@code PruneEmptyRules.AGGREGATE_INSTANCE} but for an aggregate whose grouping sets
   * include {@code ()}: Calcite tells a grand total by an empty group key alone, so it pruned
   * {@code GROUP BY ROLLUP (k)} over no rows and lost the grand total's row (issue 38, seed
   * 20261207 query 155).
   */
  private static final RelOptRule PRUNE_EMPTY_AGGREGATE =
      PruneEmptyRules.RemoveEmptySingleRule.RemoveEmptySingleRuleConfig.AGGREGATE
          .withOperandFor(Aggregate.class, a -> !a.getGroupSets().contains(ImmutableBitSet.of()))
          .toRule();

  private EmptySubQueries() {}

  static RelNode apply(RelNode rel) {
    if (!containsCorrelate(rel)) {
      return rel;
    }
    RelNode marked =
        rel.accept(
            new RelHomogeneousShuttle() {
              @Override
              public RelNode visit(RelNode other) {
                RelNode visited = super.visit(other);
                if (visited instanceof Filter filter && alwaysFalse(filter)) {
                  return LogicalValues.createEmpty(filter.getCluster(), filter.getRowType());
                }
                return visited;
              }
            });
    if (marked == rel) {
      return rel;
    }
    HepPlanner hep =
        new HepPlanner(
            HepProgram.builder()
                .addRuleCollection(
                    List.of(
                        PruneEmptyRules.PROJECT_INSTANCE,
                        PruneEmptyRules.FILTER_INSTANCE,
                        PRUNE_EMPTY_AGGREGATE,
                        PruneEmptyRules.SORT_INSTANCE,
                        PruneEmptyRules.JOIN_LEFT_INSTANCE,
                        PruneEmptyRules.JOIN_RIGHT_INSTANCE,
                        PruneEmptyRules.CORRELATE_LEFT_INSTANCE,
                        PruneEmptyRules.CORRELATE_RIGHT_INSTANCE))
                .build());
    hep.setRoot(marked);
    // A correlate whose subquery became an aggregate over nothing (COUNT(*) of an empty filter)
    // no longer uses its variable; left as a correlate it stops the decorrelator.
    return UnusedCorrelations.apply(hep.findBestExp());
  }

  private static boolean containsCorrelate(RelNode rel) {
    if (rel instanceof Correlate) {
      return true;
    }
    for (RelNode input : rel.getInputs()) {
      if (containsCorrelate(input)) {
        return true;
      }
    }
    return false;
  }

  private static boolean alwaysFalse(Filter filter) {
    RexNode condition = filter.getCondition();
    if (RexUtil.SubQueryFinder.find(condition) != null) {
      return false;
    }
    RexSimplify simplify =
        new RexSimplify(
            filter.getCluster().getRexBuilder(), RelOptPredicateList.EMPTY, RexUtil.EXECUTOR);
    return simplify.simplifyUnknownAsFalse(condition).isAlwaysFalse();
  }
}
