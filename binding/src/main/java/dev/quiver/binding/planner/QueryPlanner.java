package dev.quiver.binding.planner;

import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.settings.SessionConfig;

/**
 * Turns a logical plan into a physical plan. The session's default planner can be wrapped by an
 * {@link Extension}: the distributed engine installs one that cuts the plan into stages.
 */
public interface QueryPlanner {
  /** Builds the physical plan for {@code plan}. */
  ExecutionPlan createPhysicalPlan(LogicalPlan plan, PlanningContext context);

  /**
   * Whether the plans built under {@code config} run every partition of an operator in this
   * process, so that the partitions may share what one of them gathered (a join's marks of its
   * build rows). A planner that ships partitions to other processes answers false; the logical
   * optimizer then keeps rewrites that only pay with shared state.
   */
  default boolean runsInOneProcess(SessionConfig config) {
    return true;
  }
}
