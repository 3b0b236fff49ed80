package dev.quiver.binding.planner;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;

/**
 * Finds the computations a projection repeats, e.g. TPC-H Q1's {@code l_extendedprice * (1 -
 * l_discount)} inside two of its sums, so the plan evaluates each once in a projection below and
 * the repeats read its column.
 *
 * <p>Only subexpressions every row evaluates anyway are shared: the search descends through
 * arithmetic, casts and comparisons but not into CASE, COALESCE, AND or OR, whose operands may be
 * skipped for some rows; evaluating such an operand for every row could raise an error (a division
 * by zero under {@code CASE WHEN x <> 0}) the query does not have.
 */
final class CommonSubexpressions {
  private static final Set<SqlKind> DESCEND =
      Set.of(
          SqlKind.PLUS,
          SqlKind.MINUS,
          SqlKind.TIMES,
          SqlKind.DIVIDE,
          SqlKind.MINUS_PREFIX,
          SqlKind.PLUS_PREFIX,
          SqlKind.CAST,
          SqlKind.EQUALS,
          SqlKind.NOT_EQUALS,
          SqlKind.LESS_THAN,
          SqlKind.LESS_THAN_OR_EQUAL,
          SqlKind.GREATER_THAN,
          SqlKind.GREATER_THAN_OR_EQUAL);

  private CommonSubexpressions() {}

  /**
   * The largest subexpressions that occur more than once across {@code exprs} in positions every
   * row evaluates, outermost first; empty when there are none.
   */
  static List<RexNode> find(List<RexNode> exprs) {
    Map<RexNode, Integer> counts = new HashMap<>();
    for (RexNode e : exprs) {
      count(e, counts);
    }
    Set<RexNode> shared = new LinkedHashSet<>();
    for (RexNode e : exprs) {
      pick(e, counts, shared);
    }
    return new ArrayList<>(shared);
  }

  /** Rewrites {@code expr} so that each of {@code shared} reads input column {@code base + i}. */
  static RexNode replace(RexBuilder rex, RexNode expr, List<RexNode> shared, int base) {
    return expr.accept(
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            int i = shared.indexOf(call);
            if (i >= 0) {
              return rex.makeInputRef(call.getType(), base + i);
            }
            return super.visitCall(call);
          }
        });
  }

  private static boolean candidate(RexNode node) {
    return node instanceof RexCall call
        && DESCEND.contains(call.getKind())
        && RexUtil.isDeterministic(call);
  }

  private static void count(RexNode node, Map<RexNode, Integer> counts) {
    if (!candidate(node)) {
      return;
    }
    counts.merge(node, 1, Integer::sum);
    for (RexNode operand : ((RexCall) node).getOperands()) {
      count(operand, counts);
    }
  }

  private static void pick(RexNode node, Map<RexNode, Integer> counts, Set<RexNode> shared) {
    if (!candidate(node)) {
      return;
    }
    if (counts.getOrDefault(node, 0) > 1 && !RexUtil.isConstant(node)) {
      shared.add(node);
      return;
    }
    for (RexNode operand : ((RexCall) node).getOperands()) {
      pick(operand, counts, shared);
    }
  }
}
