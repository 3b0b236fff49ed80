package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * One aggregate in a {@link HashAggregateExec}.
 *
 * @param function the aggregate function
 * @param args argument expressions over the operator's raw input (empty for COUNT(*)); the last
 *     {@code orderDescending.size()} of them are the keys of the aggregate's ORDER BY
 * @param distinct whether duplicates of the argument are ignored (SINGLE mode only)
 * @param filter rows to include (FILTER (WHERE ...)), or null for all
 * @param name output column name
 * @param returnType type of the final value
 * @param orderDescending per ORDER BY key of the aggregate ({@code string_agg(s, ',' ORDER BY k
 *     DESC)}), whether it sorts descending; empty without ORDER BY
 */
public record AggregateCall(
    AggregateFunction function,
    List<PhysicalExpr> args,
    boolean distinct,
    PhysicalExpr filter,
    String name,
    ArrowType returnType,
    List<Boolean> orderDescending) {

  /** Copies the lists. */
  public AggregateCall {
    args = List.copyOf(args);
    orderDescending = List.copyOf(orderDescending);
    if (orderDescending.size() > args.size()) {
      throw new IllegalArgumentException(
          "Aggregate " + name + " has more ORDER BY keys than arguments");
    }
  }

  /** An aggregate without ORDER BY. */
  public AggregateCall(
      AggregateFunction function,
      List<PhysicalExpr> args,
      boolean distinct,
      PhysicalExpr filter,
      String name,
      ArrowType returnType) {
    this(function, args, distinct, filter, name, returnType, List.of());
  }

  /** The arguments before the ORDER BY keys: rows where one is NULL are skipped. */
  public int valueArgCount() {
    return args.size() - orderDescending.size();
  }

  /**
   * Whether this aggregate needs every raw row of a group in one place (SINGLE mode after an
   * exchange on the group keys): DISTINCT, the percentiles (a quantile of parts is not a quantile
   * of the whole) and ordered string_agg (the order spans the parts).
   */
  public boolean needsRawRows() {
    return distinct || function.holistic() || !orderDescending.isEmpty();
  }
}
