package dev.quiver.binding.optimizer;

import java.util.List;
import org.apache.calcite.plan.RelOptPredicateList;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.metadata.RelMdPredicates;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;

/**
 * A filter's pulled-up predicates without the conjuncts that hold a subquery or a correlation
 * variable. Such a conjunct is no fact about the filter's own rows that a rule could use, and
 * Calcite cannot reason about it: over a set operation it compiles each predicate with Janino to
 * compare them, and a subquery there fails with a {@code ClassCastException}, raised while the
 * converter asks whether a DISTINCT's input is already unique ({@code SELECT DISTINCT ... FROM
 * (SELECT ... WHERE EXISTS (...) INTERSECT SELECT ...)}).
 */
public final class SubQueryFreePredicates extends RelMdPredicates {
  SubQueryFreePredicates() {}

  @Override
  public RelOptPredicateList getPredicates(Filter filter, RelMetadataQuery mq) {
    RexBuilder rexBuilder = filter.getCluster().getRexBuilder();
    RelOptPredicateList input = mq.getPulledUpPredicates(filter.getInput());
    List<RexNode> own =
        RexUtil.retainDeterministic(RelOptUtil.conjunctions(filter.getCondition())).stream()
            .filter(c -> RexUtil.SubQueryFinder.find(c) == null && !RexUtil.containsCorrelation(c))
            .toList();
    return (input == null ? RelOptPredicateList.EMPTY : input)
        .union(rexBuilder, RelOptPredicateList.of(rexBuilder, own));
  }
}
