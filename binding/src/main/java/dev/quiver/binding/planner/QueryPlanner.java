package dev.quiver.binding.planner;

import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.physical.ExecutionPlan;

/**
 * Turns a logical plan into a physical plan. The session's default planner can be wrapped by an
 * {@link Extension}: the distributed engine installs one that cuts the plan into stages.
 */
public interface QueryPlanner {
  /** Builds the physical plan for {@code plan}. */
  ExecutionPlan createPhysicalPlan(LogicalPlan plan, PlanningContext context);
}
