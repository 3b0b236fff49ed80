package dev.quiver.distributed.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.aggregate.HashAggregateExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.NestedLoopJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.LocalLimitExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.physical.window.WindowExec;
import dev.quiver.distributed.proto.ScanSplits;
import dev.quiver.distributed.proto.SplitList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Which scans of a stage have their splits handed out at run time (work stealing), and what the
 * scheduler needs to hand them out ({@link ScanSplits}).
 *
 * <p>Handing task t splits planned for task u is right only when each split is still read once: the
 * scan's partition t must be executed by task t, and by no other task. That holds for a scan with
 * as many partitions as the stage has tasks reached from the stage's root through operators that
 * read partition p of their input for their own partition p (filters, projections, partial
 * aggregates, a join's probe side, ...). A scan under a union (which renumbers partitions), a
 * collected build side (read whole by every task) or an unknown operator keeps its planned splits;
 * so do stages of one task and stages with a row limit, which run in waves so that later tasks need
 * not run at all (the first waves would otherwise read everything). Which rows a partition holds
 * never matters above a file scan: its partitioning is unknown.
 */
public final class SplitStealing {
  private SplitStealing() {}

  /** The file scans of {@code root} in pre-order: a node before its children, in order. */
  public static List<FileScanExec> fileScans(ExecutionPlan root) {
    List<FileScanExec> out = new ArrayList<>();
    collect(root, out);
    return out;
  }

  private static void collect(ExecutionPlan plan, List<FileScanExec> out) {
    if (plan instanceof FileScanExec scan) {
      out.add(scan);
    }
    for (ExecutionPlan child : plan.children()) {
      collect(child, out);
    }
  }

  /** The splits of {@code stage}'s scans that its tasks take at run time; empty for none. */
  public static List<ScanSplits> of(Stage stage) {
    int tasks = stage.taskCount();
    if (tasks < 2 || stage.outputRowLimit() >= 0) {
      return List.of();
    }
    Set<ExecutionPlan> aligned = Collections.newSetFromMap(new IdentityHashMap<>());
    alignedScans(stage.root(), tasks, aligned);
    List<ScanSplits> out = new ArrayList<>();
    List<FileScanExec> scans = fileScans(stage.root());
    for (int i = 0; i < scans.size(); i++) {
      FileScanExec scan = scans.get(i);
      if (!aligned.contains(scan) || scan.splitCount() == 0) {
        continue;
      }
      ScanSplits.Builder splits =
          ScanSplits.newBuilder().setScan(i).setSplitCount(scan.splitCount());
      for (int t = 0; t < tasks; t++) {
        SplitList.Builder list = SplitList.newBuilder();
        for (int s : scan.plannedSplits(t)) {
          list.addSplits(s);
        }
        splits.addPlanned(list);
      }
      out.add(splits.build());
    }
    return out;
  }

  /**
   * Adds to {@code out} the file scans below {@code plan} whose partition p only partition p of
   * {@code plan} executes, {@code plan} having {@code tasks} partitions.
   */
  private static void alignedScans(ExecutionPlan plan, int tasks, Set<ExecutionPlan> out) {
    if (plan.partitionCount() != tasks) {
      return;
    }
    if (plan instanceof FileScanExec) {
      out.add(plan);
      return;
    }
    for (ExecutionPlan child : partitionWiseInputs(plan)) {
      alignedScans(child, tasks, out);
    }
  }

  /** The inputs whose partition p {@code plan} reads for its partition p, and only then. */
  private static List<ExecutionPlan> partitionWiseInputs(ExecutionPlan plan) {
    if (plan instanceof FilterExec
        || plan instanceof ProjectionExec
        || plan instanceof LocalLimitExec
        || plan instanceof HashAggregateExec
        || plan instanceof WindowExec
        || (plan instanceof SortExec sort && sort.preservePartitioning())) {
      return plan.children();
    }
    if (plan instanceof HashJoinExec join) {
      return join.mode() == PartitionMode.PARTITIONED ? join.children() : List.of(join.probePlan());
    }
    if (plan instanceof NestedLoopJoinExec join) {
      return List.of(join.right());
    }
    return List.of();
  }
}
