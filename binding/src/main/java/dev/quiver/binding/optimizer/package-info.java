/**
 * Quiver's own logical optimizer passes, run by {@link dev.quiver.binding.sql.SqlPipeline} around
 * Calcite's rules: projection and filter push-down into scans ({@link
 * dev.quiver.binding.optimizer.ScanPushDown}), EXISTS to semi-join ({@link
 * dev.quiver.binding.optimizer.ExistsToSemiJoin}), semi-join reduction of grouped join inputs
 * ({@link dev.quiver.binding.optimizer.SemiJoinReduction}), per-column restrictions derived from
 * disjunctive conditions ({@link dev.quiver.binding.optimizer.ColumnRestrictions}), the row-count
 * estimate of joins ({@link dev.quiver.binding.optimizer.JoinRowCount}) and the bottom-up rewrite
 * they share ({@link dev.quiver.binding.optimizer.BottomUp}).
 */
package dev.quiver.binding.optimizer;
