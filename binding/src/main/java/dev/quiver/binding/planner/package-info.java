/**
 * From optimized logical plan to physical plan: {@link
 * dev.quiver.binding.planner.DefaultQueryPlanner} walks the Calcite tree and chooses operators,
 * partitioning and exchanges, and {@link dev.quiver.binding.planner.RexTranslator} turns Calcite
 * expressions into physical expressions. It reads the logical plan's nodes from {@link
 * dev.quiver.binding.logical} and knows nothing of SQL text.
 */
package dev.quiver.binding.planner;
