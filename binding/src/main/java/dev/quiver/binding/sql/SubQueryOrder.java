package dev.quiver.binding.sql;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rex.LogicVisitor;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexVisitorImpl;

/**
 * Which subquery of a filter or projection the sub-query rules rewrite next, and which correlation
 * variables the rewritten node still needs.
 *
 * <p>Calcite's rules take the outermost subquery first. A subquery in another one's operands
 * ({@code (SELECT MIN(s) FROM t WHERE t.k = o.k) IN (SELECT ...)}) then ends up inside the
 * condition of the join that replaced the outer one, where its correlation variable is defined by
 * nothing: the plan kept {@code $cor.k} ("cannot be evaluated here"). Rewriting the innermost first
 * turns it into a column of the node's input, correlated by the node's own variable, before the
 * outer subquery is rewritten around that column.
 */
final class SubQueryOrder {
  private SubQueryOrder() {}

  /** A subquery of {@code exprs} none of whose operands holds a subquery; null if none. */
  static RexSubQuery innermost(List<RexNode> exprs) {
    RexSubQuery[] found = new RexSubQuery[1];
    RexVisitorImpl<Void> finder =
        new RexVisitorImpl<>(true) {
          @Override
          public Void visitSubQuery(RexSubQuery subQuery) {
            if (found[0] == null) {
              // Operands first: a subquery nested in them is more inner.
              for (RexNode operand : subQuery.getOperands()) {
                operand.accept(this);
              }
              if (found[0] == null) {
                found[0] = subQuery;
              }
            }
            return null;
          }
        };
    for (RexNode e : exprs) {
      e.accept(finder);
      if (found[0] != null) {
        return found[0];
      }
    }
    return null;
  }

  /**
   * The logic {@code subQuery} needs within {@code exprs}, which need {@code logic}; the most
   * general one (true, false and unknown told apart) where Calcite's visitor cannot place it
   * (inside another subquery's operands).
   */
  static RelOptUtil.Logic logic(RelOptUtil.Logic logic, List<RexNode> exprs, RexSubQuery subQuery) {
    try {
      return LogicVisitor.find(logic, exprs, subQuery);
    } catch (IllegalArgumentException | AssertionError notFound) {
      return RelOptUtil.Logic.TRUE_FALSE_UNKNOWN;
    }
  }

  /** {@code exprs} with {@code subQuery} replaced by {@code replacement}. */
  static List<RexNode> replace(List<RexNode> exprs, RexSubQuery subQuery, RexNode replacement) {
    RexShuttle shuttle =
        new RexShuttle() {
          @Override
          public RexNode visitSubQuery(RexSubQuery other) {
            return other.equals(subQuery) ? replacement : super.visitSubQuery(other);
          }
        };
    return shuttle.apply(exprs);
  }

  /** The variables of {@code defined} that some subquery left in {@code exprs} still uses. */
  static Set<CorrelationId> stillUsed(List<RexNode> exprs, Set<CorrelationId> defined) {
    Set<CorrelationId> used = new LinkedHashSet<>();
    RexShuttle collect =
        new RexShuttle() {
          @Override
          public RexNode visitSubQuery(RexSubQuery subQuery) {
            used.addAll(RelOptUtil.getVariablesUsed(subQuery.rel));
            return super.visitSubQuery(subQuery);
          }
        };
    for (RexNode e : exprs) {
      e.accept(collect);
    }
    used.retainAll(defined);
    return used;
  }
}
