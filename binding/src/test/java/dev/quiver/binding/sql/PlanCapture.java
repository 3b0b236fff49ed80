package dev.quiver.binding.sql;

import dev.quiver.binding.Extension;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.List;

/** An extension whose optimizer rule records every physical plan it sees, unchanged. */
final class PlanCapture implements Extension, PhysicalOptimizerRule {
  final List<ExecutionPlan> plans = new ArrayList<>();

  @Override
  public List<PhysicalOptimizerRule> physicalOptimizerRules() {
    return List.of(this);
  }

  @Override
  public String name() {
    return "capture";
  }

  @Override
  public ExecutionPlan optimize(ExecutionPlan plan, SessionConfig config) {
    plans.add(plan);
    return plan;
  }

  ExecutionPlan last() {
    return plans.get(plans.size() - 1);
  }

  /** Every node of {@code plan}, pre-order. */
  static List<ExecutionPlan> nodes(ExecutionPlan plan) {
    List<ExecutionPlan> out = new ArrayList<>();
    collect(plan, out);
    return out;
  }

  private static void collect(ExecutionPlan plan, List<ExecutionPlan> out) {
    out.add(plan);
    plan.children().forEach(c -> collect(c, out));
  }
}
