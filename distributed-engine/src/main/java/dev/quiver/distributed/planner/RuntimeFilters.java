package dev.quiver.distributed.planner;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.join.BloomFilterExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runtime filters across stages: a shuffled join one of whose inputs is a stage that only scans
 * (and filters, projects, joins with broadcast inputs) files, whose other input turns out, when it
 * has run, to hold few keys. TPC-H Q18 is the example: its 624 large orders join 60 million
 * lineitem rows, which the scan stage would shuffle whole although all but a few thousand find no
 * partner; in Q10 three months of orders (573,000 keys at SF 10) meet 15 million returned
 * lineitems.
 *
 * <p>The other input is either a stage computed from earlier stages (an aggregate, a filter over
 * one, another join), whose size only running it tells, or another scan stage that filters its rows
 * and reads at most half as many bytes of files. For such a pair this finds two more plans of the
 * scan stage: its rows semi-joined with the other input's keys, that input read whole by every task
 * ({@link ShuffleReaderExec.Mode#ALL}); and its rows that a Bloom filter of those keys lets through
 * ({@link BloomFilterExec}), the filter built by the other input's tasks over the rows they write
 * and merged by the scheduler. The scheduler holds the scan stage until the other input is complete
 * and picks the semi-join when that input is small, the Bloom filter when it holds few enough rows,
 * the planned plan otherwise. Either filter drops only rows the join would not emit: it is placed
 * only on a side whose unmatched rows the join drops (either side of an INNER or SEMI join, the
 * optional side of a LEFT or RIGHT join, the right side of an ANTI join), with the join's own key
 * expressions and null semantics (no Bloom filter where NULL keys match). The scan stage must feed
 * that one join alone, so no other consumer sees the filtered rows.
 */
public final class RuntimeFilters {
  private RuntimeFilters() {}

  /**
   * The filtered plans of stage {@code stageId}: its rows whose join keys occur in the output of
   * stage {@code keysStageId} ({@code filteredRoot}), and its rows a Bloom filter of those keys
   * lets through ({@code bloomRoot}, null when the join matches NULL keys); {@code keys} are the
   * key expressions over the keys stage's output, over which its tasks build the filter.
   */
  public record Filter(
      int stageId,
      int keysStageId,
      ExecutionPlan filteredRoot,
      ExecutionPlan bloomRoot,
      List<PhysicalExpr> keys) {}

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
      Stage l = graph.stage(left.stageId());
      Stage r = graph.stage(right.stageId());
      boolean lScan = scansFiles(l, graph);
      boolean rScan = scansFiles(r, graph);
      // Which side filters which: a scan by a computed input; of two scans, the larger by the
      // smaller, when the smaller filters its own rows (an unfiltered table's keys rule out
      // nothing a foreign key points to).
      boolean filterLeft = lScan && (!rScan || smallerAndFiltered(r, l));
      boolean filterRight = rScan && (!lScan || smallerAndFiltered(l, r));
      if (filterLeft && dropsUnmatched(join.joinType(), true)) {
        consider(left, join.leftKeys(), right, join.rightKeys(), join, consumer, graph, filters);
      } else if (filterRight && dropsUnmatched(join.joinType(), false)) {
        consider(right, join.rightKeys(), left, join.leftKeys(), join, consumer, graph, filters);
      }
    }
    for (ExecutionPlan child : node.children()) {
      collect(child, consumer, graph, filters);
    }
  }

  /**
   * Whether {@code stage} only reads files (and broadcast inputs): it can wait for another input
   * without delaying what that input is computed from.
   */
  private static boolean scansFiles(Stage stage, StageGraph graph) {
    for (int input : stage.inputStageIds()) {
      if (graph.stage(input).boundary() != Boundary.BROADCAST) {
        return false;
      }
    }
    return stage.boundary() == Boundary.HASH_SHUFFLE && readsOnlyFiles(stage.root());
  }

  /**
   * Whether scan stage {@code small} filters its rows and reads at most half {@code large}'s bytes.
   */
  private static boolean smallerAndFiltered(Stage small, Stage large) {
    long smallBytes = ScanBytes.of(small.root());
    return hasFilter(small.root())
        && smallBytes > 0
        && 2 * smallBytes <= ScanBytes.of(large.root());
  }

  private static boolean hasFilter(ExecutionPlan plan) {
    if (plan instanceof FilterExec) {
      return true;
    }
    for (ExecutionPlan child : plan.children()) {
      if (hasFilter(child)) {
        return true;
      }
    }
    return false;
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
    // A stage either waits for a filter or is one's keys, never both: no stage waits in a cycle.
    if (filters.containsKey(scan.id())
        || filters.containsKey(keyStage.id())
        || filters.values().stream().anyMatch(f -> f.keysStageId() == scan.id())
        || scan.outputRowLimit() >= 0
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
    ExecutionPlan bloom =
        join.nullEqualsNull() ? null : new BloomFilterExec(scan.root(), scanKeys, scan.id(), null);
    filters.put(scan.id(), new Filter(scan.id(), keyStage.id(), filtered, bloom, keys));
  }

  /**
   * Whether every leaf of {@code plan} scans files or reads another stage: a stage over in-memory
   * rows carries them in its plan, and a second plan would ship them twice.
   */
  private static boolean readsOnlyFiles(ExecutionPlan plan) {
    if (plan.children().isEmpty()) {
      return plan instanceof FileScanExec || plan instanceof ShuffleReaderExec;
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
