package dev.quiver.binding.optimizer;

import java.util.List;
import org.apache.calcite.plan.RelOptPredicateList;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.metadata.RelMdPredicates;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;

/**
 * A filter's pulled-up predicates without the conjuncts that hold a subquery or a correlation
 * variable. Such a conjunct is no fact about the filter's own rows that a rule could use, and
 * Calcite cannot reason about it: over a set operation it compiles each predicate with Janino to
 * compare them, and a subquery there fails with a {@code ClassCastException}, raised while the
 * converter asks whether a DISTINCT's input is already unique ({@code SELECT DISTINCT ... FROM
 * (SELECT ... WHERE EXISTS (...) INTERSECT SELECT ...)}). Comparisons with a NULL literal go too
 * ({@link #comparesWithNull}).
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
            .filter(c -> !comparesWithNull(c))
            .toList();
    return (input == null ? RelOptPredicateList.EMPTY : input)
        .union(rexBuilder, RelOptPredicateList.of(rexBuilder, own));
  }

  /**
   * A comparison with a NULL literal ({@code x = NULL}, left where the converter does not
   * simplify): never true, so no fact a rule could use, and Calcite's predicate list refuses it
   * with an assertion ("Comparison with NULL in pulledUpPredicates"), which failed the planning of
   * any query whose filter kept one. Leaving a conjunct out only weakens what is known.
   */
  private static boolean comparesWithNull(RexNode c) {
    return c.isA(SqlKind.COMPARISON)
        && c instanceof RexCall call
        && call.getOperands().stream().anyMatch(o -> RexUtil.isNullLiteral(o, true));
  }
}
