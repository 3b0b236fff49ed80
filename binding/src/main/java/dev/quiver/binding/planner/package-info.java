/**
 * From optimized logical plan to physical plan: {@link
 * dev.quiver.binding.planner.DefaultQueryPlanner} walks the Calcite tree and chooses operators,
 * partitioning and exchanges; {@link dev.quiver.binding.planner.RexTranslator} turns Calcite
 * expressions into physical expressions, and {@link dev.quiver.binding.planner.TypeMapping} maps
 * Calcite types to Arrow types.
 */
package dev.quiver.binding.planner;
