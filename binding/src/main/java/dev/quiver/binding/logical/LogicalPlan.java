package dev.quiver.binding.logical;

import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An optimized logical plan, opaque outside the binding; a {@link
 * dev.quiver.binding.planner.QueryPlanner} turns it into a physical plan.
 */
public interface LogicalPlan {
  /** Output schema. */
  Schema schema();

  /** Indented text rendering of the logical operators. */
  String explain();
}
