package dev.quiver.binding.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/** Renders a physical plan as indented text, optionally with each operator's metrics. */
public final class PlanFormatter {
  private PlanFormatter() {}

  /**
   * One line per operator: name, details, output partitioning (and metrics when asked); details of
   * several lines follow their operator's line. A node that several parents read (a shared subplan)
   * is shown in full under the first and as a reference under the others.
   */
  public static String format(ExecutionPlan plan, boolean withMetrics) {
    StringBuilder sb = new StringBuilder();
    append(sb, plan, 0, withMetrics, Collections.newSetFromMap(new IdentityHashMap<>()));
    return sb.toString();
  }

  private static void append(
      StringBuilder sb,
      ExecutionPlan plan,
      int depth,
      boolean withMetrics,
      Set<ExecutionPlan> shown) {
    sb.append("  ".repeat(depth)).append(plan.name());
    if (!plan.children().isEmpty() && !shown.add(plan)) {
      sb.append(": ").append(plan.displayDetails()).append(" (shown above)\n");
      return;
    }
    if (!plan.tableName().isEmpty()) {
      sb.append(" table=").append(plan.tableName());
    }
    String details = plan.displayDetails();
    // Details of several lines (a distributed job's stages) continue below the operator's line,
    // after its annotations, so that these stay on the line they describe.
    String more = "";
    if (details != null && !details.isEmpty()) {
      int newline = details.indexOf('\n');
      if (newline >= 0) {
        more = details.substring(newline);
        details = details.substring(0, newline);
      }
      sb.append(": ").append(details);
    }
    sb.append(" [partitions=").append(plan.partitionCount()).append(']');
    if (withMetrics) {
      sb.append(" metrics=[");
      boolean first = true;
      for (Map.Entry<String, Long> e : plan.metrics().asMap().entrySet()) {
        if (!first) {
          sb.append(", ");
        }
        sb.append(e.getKey()).append('=').append(e.getValue());
        first = false;
      }
      sb.append(']');
    }
    sb.append(more).append('\n');
    for (ExecutionPlan child : plan.children()) {
      append(sb, child, depth + 1, withMetrics, shown);
    }
  }
}
