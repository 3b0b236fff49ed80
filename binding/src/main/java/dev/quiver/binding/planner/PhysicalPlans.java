package dev.quiver.binding.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/** Column references into a physical plan and the exchanges the planners put above one. */
final class PhysicalPlans {
  private PhysicalPlans() {}

  static ColumnExpr column(ExecutionPlan plan, int index) {
    return ColumnExpr.of(index, plan.schema().getFields().get(index));
  }

  static List<PhysicalExpr> columns(ExecutionPlan plan, List<Integer> indices) {
    List<PhysicalExpr> out = new ArrayList<>();
    for (int i : indices) {
      out.add(column(plan, i));
    }
    return out;
  }

  /** {@code plan} as one partition, gathering it when it has several. */
  static ExecutionPlan single(ExecutionPlan plan) {
    return plan.partitionCount() > 1 ? new CoalescePartitionsExec(plan) : plan;
  }

  /**
   * Hash-partitions {@code plan} into {@code partitions} on exactly {@code keys} (in order), unless
   * it already is.
   */
  static ExecutionPlan hashed(ExecutionPlan plan, List<Integer> keys, int partitions) {
    Partitioning p = plan.outputPartitioning();
    if (p.kind() == Partitioning.Kind.HASH
        && p.partitionCount() == partitions
        && indices(p.hashExprs()).equals(keys)) {
      return plan;
    }
    return new RepartitionExec(plan, Partitioning.hash(columns(plan, keys), partitions));
  }

  /** True if equal values of {@code keys} are guaranteed to be in the same partition. */
  static boolean hashedOnSubsetOf(ExecutionPlan plan, List<Integer> keys) {
    Partitioning p = plan.outputPartitioning();
    if (p.kind() != Partitioning.Kind.HASH || p.hashExprs().isEmpty()) {
      return false;
    }
    List<Integer> idx = indices(p.hashExprs());
    return idx != null && new HashSet<>(keys).containsAll(idx);
  }

  private static List<Integer> indices(List<PhysicalExpr> exprs) {
    List<Integer> out = new ArrayList<>();
    for (PhysicalExpr e : exprs) {
      if (!(e instanceof ColumnExpr c)) {
        return null;
      }
      out.add(c.index());
    }
    return out;
  }
}
