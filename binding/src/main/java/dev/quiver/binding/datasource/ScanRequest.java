package dev.quiver.binding.datasource;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;
import java.util.OptionalLong;

/**
 * What a query wants from a table scan.
 *
 * @param projection indices into the table schema of the columns to return, in this order; null
 *     means all columns
 * @param filters predicates over the table's full schema (column indices of the table schema). They
 *     are hints: the provider may use them to skip data, but the planner still applies them
 * @param limit at most this many rows are needed (after filters), if present
 * @param targetPartitions how many output partitions the scan should aim for
 * @param config the session's settings (batch size etc.)
 */
public record ScanRequest(
    int[] projection,
    List<PhysicalExpr> filters,
    OptionalLong limit,
    int targetPartitions,
    SessionConfig config) {}
