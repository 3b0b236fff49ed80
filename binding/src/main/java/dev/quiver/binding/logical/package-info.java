/**
 * Logical plans: {@link dev.quiver.binding.logical.LogicalPlan}, the optimized plan a {@link
 * dev.quiver.binding.planner.QueryPlanner} turns into a physical one, and Quiver's side of
 * Calcite's plans, shared by the SQL front end, the optimizer passes and the physical planner: a
 * table as Calcite sees it ({@link dev.quiver.binding.logical.ProviderTable}), its scan node
 * carrying the columns to read and filter hints ({@link dev.quiver.binding.logical.QuiverScan}),
 * the {@code LogicalPlan} over an optimized Calcite tree ({@link
 * dev.quiver.binding.logical.RelLogicalPlan}) and the mapping between Calcite and Arrow types
 * ({@link dev.quiver.binding.logical.TypeMapping}).
 */
package dev.quiver.binding.logical;
