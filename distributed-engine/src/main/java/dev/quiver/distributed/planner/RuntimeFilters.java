package dev.quiver.distributed.planner;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runtime filters across stages: a shuffled join one of whose inputs is a stage that only scans
 * (and filters, projects) files, the other a stage computed from earlier stages (an aggregate, a
 * filter over one, another join), whose size only running it tells. TPC-H Q18 is the example: its
 * 624 large orders join 60 million lineitem rows, which the scan stage would shuffle whole although
 * all but a few thousand find no partner.
 *
 * <p>For such a scan stage this finds a second plan: the scan's rows semi-joined with the other
 * input's keys, that input read whole by every task ({@link ShuffleReaderExec.Mode#ALL}). The
 * scheduler holds the scan stage until the other input is complete and runs the filtered plan when
 * that input turned out small, the planned one otherwise. The filter drops only rows the join would
 * not emit: it is placed only on a side whose unmatched rows the join drops (either side of an
 * INNER or SEMI join, the optional side of a LEFT or RIGHT join, the right side of an ANTI join),
 * with the join's own key expressions and null semantics. The scan stage must feed that one join
 * alone, so no other consumer sees the filtered rows.
 */
public final class RuntimeFilters {
  private RuntimeFilters() {}

  /**
   * A filtered plan for stage {@code stageId}: its rows whose join keys occur in the output of
   * stage {@code keysStageId}.
   */
  public record Filter(int stageId, int keysStageId, ExecutionPlan filteredRoot) {}

  /** The runtime filters of {@code graph}'s scan stages, by the id of the stage filtered. */
  public static Map<Integer, Filter> of(StageGraph graph) {
    Map<Integer, Filter> filters = new LinkedHashMap<>();
    for (Stage consumer : graph.stages()) {
      collect(consumer.root(), consumer, graph, filters);
    }
    return filters;
  }

  private static void collect(
      ExecutionPlan node, Stage consumer, StageGraph graph, Map<Integer, Filter> filters) {
    if (node instanceof HashJoinExec join
        && join.mode() == PartitionMode.PARTITIONED
        && !join.emitsMarks()
        && join.left() instanceof ShuffleReaderExec left
        && join.right() instanceof ShuffleReaderExec right
        && left.mode() == ShuffleReaderExec.Mode.HASH
        && right.mode() == ShuffleReaderExec.Mode.HASH
        && left.stageId() != right.stageId()) {
      if (dropsUnmatched(join.joinType(), true)) {
        consider(left, join.leftKeys(), right, join.rightKeys(), join, consumer, graph, filters);
      }
      if (dropsUnmatched(join.joinType(), false)) {
        consider(right, join.rightKeys(), left, join.leftKeys(), join, consumer, graph, filters);
      }
    }
    for (ExecutionPlan child : node.children()) {
      collect(child, consumer, graph, filters);
    }
  }

  /** Whether the join drops the rows of its left (or right) input that have no partner. */
  static boolean dropsUnmatched(JoinType type, boolean leftSide) {
    return switch (type) {
      case INNER, SEMI -> true;
      case LEFT, ANTI -> !leftSide;
      case RIGHT -> leftSide;
      case FULL -> false;
    };
  }

  private static void consider(
      ShuffleReaderExec scanSide,
      List<PhysicalExpr> scanKeys,
      ShuffleReaderExec keysSide,
      List<PhysicalExpr> keys,
      HashJoinExec join,
      Stage consumer,
      StageGraph graph,
      Map<Integer, Filter> filters) {
    Stage scan = graph.stage(scanSide.stageId());
    Stage keyStage = graph.stage(keysSide.stageId());
    if (filters.containsKey(scan.id())
        || !scan.inputStageIds().isEmpty()
        || scan.boundary() != Boundary.HASH_SHUFFLE
        || scan.outputRowLimit() >= 0
        || !readsOnlyFiles(scan.root())
        || keyStage.inputStageIds().isEmpty()
        || !onlyReader(graph, scan.id(), consumer)) {
      return;
    }
    ExecutionPlan keysRead =
        ShuffleReaderExec.unresolved(
            keyStage.id(),
            keyStage.root().schema(),
            Partitioning.single(),
            ShuffleReaderExec.Mode.ALL,
            keyStage.taskCount());
    ExecutionPlan filtered =
        new HashJoinExec(
            scan.root(),
            keysRead,
            scanKeys,
            keys,
            JoinType.SEMI,
            null,
            PartitionMode.COLLECT_BUILD,
            join.nullEqualsNull());
    filters.put(scan.id(), new Filter(scan.id(), keyStage.id(), filtered));
  }

  /**
   * Whether every leaf of {@code plan} scans files: a stage over in-memory rows carries them in its
   * plan, and a second plan would ship them twice.
   */
  private static boolean readsOnlyFiles(ExecutionPlan plan) {
    if (plan.children().isEmpty()) {
      return plan instanceof FileScanExec;
    }
    for (ExecutionPlan child : plan.children()) {
      if (!readsOnlyFiles(child)) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code consumer} is the one stage reading {@code stageId}, through one reader. */
  private static boolean onlyReader(StageGraph graph, int stageId, Stage consumer) {
    List<Stage> consumers = graph.consumers(stageId);
    return consumers.size() == 1
        && consumers.get(0).id() == consumer.id()
        && readers(consumer.root(), stageId) == 1;
  }

  private static int readers(ExecutionPlan node, int stageId) {
    if (node instanceof ShuffleReaderExec reader) {
      return reader.stageId() == stageId ? 1 : 0;
    }
    int n = 0;
    for (ExecutionPlan child : node.children()) {
      n += readers(child, stageId);
    }
    return n;
  }
}
