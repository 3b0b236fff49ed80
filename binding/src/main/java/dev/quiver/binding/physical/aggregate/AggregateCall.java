package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * One aggregate in a {@link HashAggregateExec}.
 *
 * @param function the aggregate function
 * @param args argument expressions over the operator's raw input (empty for COUNT(*))
 * @param distinct whether duplicates of the argument are ignored (SINGLE mode only)
 * @param filter rows to include (FILTER (WHERE ...)), or null for all
 * @param name output column name
 * @param returnType type of the final value
 */
public record AggregateCall(
    AggregateFunction function,
    List<PhysicalExpr> args,
    boolean distinct,
    PhysicalExpr filter,
    String name,
    ArrowType returnType) {}
