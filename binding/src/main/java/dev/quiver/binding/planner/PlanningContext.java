package dev.quiver.binding.planner;

import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;

/** What a {@link QueryPlanner} sees of the session while it plans one query. */
public interface PlanningContext {
  /** The session's settings as of this query. */
  SessionConfig config();

  /** Physical optimizer rules installed by extensions, in installation order. */
  List<PhysicalOptimizerRule> physicalOptimizerRules();
}
