package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.LikeExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.ScalarFunctionExpr;
import dev.quiver.binding.physical.expr.StringFunctionExpr;
import dev.quiver.binding.physical.expr.UdfExpr;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** The conjuncts of a filter predicate, in the order a filter evaluates them. */
final class Conjuncts {
  private Conjuncts() {}

  /**
   * The top-level conjuncts of {@code predicate} (nested ANDs flattened), cheapest first by a rough
   * per-row cost; conjuncts of equal cost keep their written order.
   */
  static List<PhysicalExpr> inEvaluationOrder(PhysicalExpr predicate) {
    List<PhysicalExpr> out = new ArrayList<>(written(predicate));
    out.sort(Comparator.comparingInt(Conjuncts::cost));
    return List.copyOf(out);
  }

  /** The top-level conjuncts of {@code predicate} (nested ANDs flattened), in written order. */
  static List<PhysicalExpr> written(PhysicalExpr predicate) {
    List<PhysicalExpr> out = new ArrayList<>();
    LogicalExpr.conjuncts(predicate, out);
    return out;
  }

  /** Whether {@code e} costs enough per row that the rows reaching it are worth compacting. */
  static boolean costly(PhysicalExpr e) {
    if (own(e) >= 4) {
      return true;
    }
    for (PhysicalExpr child : e.children()) {
      if (costly(child)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Relative cost per row: pattern matching and function calls cost most, anything over strings
   * more than fixed-width arithmetic and comparisons.
   */
  static int cost(PhysicalExpr e) {
    int total = own(e);
    for (PhysicalExpr child : e.children()) {
      total += cost(child);
    }
    return total;
  }

  /** The cost of {@code e}'s own operation, without its operands. */
  private static int own(PhysicalExpr e) {
    if (e instanceof LikeExpr || e instanceof UdfExpr) {
      return 16;
    } else if (e instanceof StringFunctionExpr || e instanceof ScalarFunctionExpr) {
      return 8;
    } else if (e instanceof InListExpr || overStrings(e)) {
      return 4;
    }
    return 1;
  }

  private static boolean overStrings(PhysicalExpr e) {
    for (PhysicalExpr child : e.children()) {
      ArrowType t = child.dataType();
      if (t instanceof ArrowType.Utf8
          || t instanceof ArrowType.LargeUtf8
          || t instanceof ArrowType.Binary
          || t instanceof ArrowType.LargeBinary) {
        return true;
      }
    }
    return false;
  }
}
