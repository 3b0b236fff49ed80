/**
 * From optimized logical plan to physical plan: the {@link dev.quiver.binding.planner.QueryPlanner}
 * interface a session plans with (given a {@link dev.quiver.binding.planner.PlanningContext}), and
 * its implementation {@link dev.quiver.binding.planner.DefaultQueryPlanner}, which walks the
 * Calcite tree and chooses operators, partitioning and exchanges; {@link
 * dev.quiver.binding.planner.RexTranslator} turns Calcite expressions into physical expressions. It
 * reads the logical plan's nodes from {@code logical} and knows nothing of SQL text.
 */
package dev.quiver.binding.planner;
