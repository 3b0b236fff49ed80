package dev.quiver.binding.physical.window;

import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * One window function call. The operator's input arrives sorted by {@code partitionBy} then {@code
 * orderBy} (the planner adds the sort) and hash-partitioned on {@code partitionBy}.
 *
 * @param function the function
 * @param args arguments (e.g. the value for SUM, value/offset/default for LAG)
 * @param partitionBy partition keys
 * @param orderBy order within a partition
 * @param frame frame for aggregate functions
 * @param name output column name
 * @param returnType output type
 */
public record WindowCall(
    WindowFunction function,
    List<PhysicalExpr> args,
    List<PhysicalExpr> partitionBy,
    List<SortField> orderBy,
    WindowFrame frame,
    String name,
    ArrowType returnType) {}
