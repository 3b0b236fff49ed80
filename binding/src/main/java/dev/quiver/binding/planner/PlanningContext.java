package dev.quiver.binding.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;

/** What a {@link QueryPlanner} sees of the session while it plans one query. */
public interface PlanningContext {
  /** The session's settings as of this query. */
  SessionConfig config();

  /** Physical optimizer rules installed by extensions, in installation order. */
  List<PhysicalOptimizerRule> physicalOptimizerRules();

  /**
   * What consumes the query's rows where they are computed: the planner puts it over the finished
   * plan (after the rules), so that a planner which cuts the plan into stages runs it in the tasks
   * that compute the rows (a table write whose tasks write the files themselves). The default
   * returns the plan as it is.
   */
  default ExecutionPlan finish(ExecutionPlan plan) {
    return plan;
  }
}
