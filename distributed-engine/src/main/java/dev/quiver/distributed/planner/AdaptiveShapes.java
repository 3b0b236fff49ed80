package dev.quiver.distributed.planner;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.aggregate.AggregateMode;
import dev.quiver.binding.physical.aggregate.HashAggregateExec;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.MarkMergeExec;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.operator.UnionExec;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What adaptive execution may change in a stage's tasks, read off its plan: the scheduler decides
 * from its inputs' real output sizes once they are complete, but only the plan tells which changes
 * keep the answer.
 *
 * <p>An input is <b>aligned</b> when it is a hash shuffle whose partition {@code p} task {@code p}
 * reads, through operators that each pass partition {@code p} on to their children (every node on
 * the way has the stage's partition count; a child of one partition, such as a broadcast build
 * side, is read whole by every task). A task may then read any set of partitions of every aligned
 * input instead, since rows of one key always fall in one partition: adjacent tiny partitions are
 * coalesced into one task. A stage whose marks a consumer merges keeps its tasks: the merge reads
 * one input per planned task. A stage whose partitions come from anything else (a scan, a union of
 * partitions, a per-task read) keeps its tasks.
 *
 * <p>An aligned input is <b>splittable</b> when each of its rows reaches the stage's output on its
 * own: only filters, projections, partial aggregates and joins lie on the way, and at each join it
 * is a side whose rows the join emits by themselves (either side of an INNER join, the preserved
 * side of a LEFT or RIGHT join, the left side of a SEMI or ANTI join; never a FULL join or one that
 * emits marks). Several tasks may then each read part of one of its partitions, all of them reading
 * the same partition of the other aligned inputs whole, and together they produce what one task
 * would have: a skewed partition is split, or a join's large side is read one producer task at a
 * time when the other side turned out small. Splitting adds tasks, so it is allowed only when every
 * consumer takes any number of producer tasks: it reads the stage by hash (every producer task's
 * share of its partition) or gathers it through a coalesce (in any order); not a sorted merge or a
 * merge of marks (one run per planned task), nor the client, which reads the final stage's tasks by
 * number. An input read twice in the stage is never split.
 */
public final class AdaptiveShapes {
  private AdaptiveShapes() {}

  /**
   * The stage's aligned inputs and, among them, the splittable ones (producer stage ids, in the
   * order found).
   */
  public record Shape(List<Integer> aligned, List<Integer> splittable) {
    /** Freezes the lists. */
    public Shape {
      aligned = List.copyOf(aligned);
      splittable = List.copyOf(splittable);
    }
  }

  /**
   * The shape of {@code stage} of {@code graph}, or empty when adaptive execution must run it as
   * planned: a stage under a row limit (it runs in waves), a stage of one task, or one whose
   * partitions are not all aligned inputs.
   */
  public static Optional<Shape> of(Stage stage, StageGraph graph) {
    int tasks = stage.taskCount();
    if (stage.outputRowLimit() >= 0 || tasks < 2 || marksMerged(stage, graph)) {
      return Optional.empty();
    }
    List<Reader> readers = new ArrayList<>();
    if (!walk(stage.root(), tasks, true, readers) || readers.isEmpty()) {
      return Optional.empty();
    }
    Map<Integer, Integer> reads = new HashMap<>();
    countReaders(stage.root(), reads);
    boolean mayAddTasks = consumersTakeAnyTaskCount(stage, graph);
    Set<Integer> aligned = new LinkedHashSet<>();
    Set<Integer> splittable = new LinkedHashSet<>();
    for (Reader r : readers) {
      aligned.add(r.stageId());
      if (mayAddTasks && r.rowIndependent() && reads.get(r.stageId()) == 1) {
        splittable.add(r.stageId());
      }
    }
    return Optional.of(new Shape(List.copyOf(aligned), List.copyOf(splittable)));
  }

  /**
   * Whether a consumer merges the marks {@code stage}'s tasks write ({@link MarkMergeExec}): each
   * planned task marks the whole build input, and the merge reads one input per planned task, so
   * coalescing tasks would leave inputs without rows (issue 38, seed 20261207 query 104: "input
   * partition 1 marked 0 build rows but partition 0 marked 7").
   */
  private static boolean marksMerged(Stage stage, StageGraph graph) {
    for (Stage consumer : graph.stages()) {
      if (consumer.inputStageIds().contains(stage.id())
          && mergesMarksOf(consumer.root(), stage.id())) {
        return true;
      }
    }
    return false;
  }

  private static boolean mergesMarksOf(ExecutionPlan node, int stageId) {
    if (node instanceof MarkMergeExec merge
        && merge.input() instanceof ShuffleReaderExec reader
        && reader.stageId() == stageId) {
      return true;
    }
    for (ExecutionPlan child : node.children()) {
      if (mergesMarksOf(child, stageId)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether every consumer of {@code stage} reads all its producer tasks' output however many there
   * are: by hash, or gathered by a coalesce.
   */
  private static boolean consumersTakeAnyTaskCount(Stage stage, StageGraph graph) {
    if (stage == graph.finalStage()) {
      return false; // the client reads final task i as partition i of the result
    }
    for (Stage consumer : graph.stages()) {
      if (consumer.inputStageIds().contains(stage.id())
          && !readsAnyTaskCount(consumer.root(), null, stage.id())) {
        return false;
      }
    }
    return true;
  }

  private static boolean readsAnyTaskCount(ExecutionPlan node, ExecutionPlan parent, int stageId) {
    if (node instanceof ShuffleReaderExec reader && reader.stageId() == stageId) {
      return reader.mode() == ShuffleReaderExec.Mode.HASH
          || parent instanceof CoalescePartitionsExec;
    }
    for (ExecutionPlan child : node.children()) {
      if (!readsAnyTaskCount(child, node, stageId)) {
        return false;
      }
    }
    return true;
  }

  /** An aligned reader, and whether its rows reach the stage's output one at a time. */
  private record Reader(int stageId, boolean rowIndependent) {}

  /**
   * Collects the aligned readers under {@code node} (which has {@code tasks} partitions); false
   * when a partition of the stage comes from anything but aligned readers.
   */
  private static boolean walk(
      ExecutionPlan node, int tasks, boolean rowIndependent, List<Reader> readers) {
    if (node instanceof ShuffleReaderExec reader) {
      if (reader.mode() != ShuffleReaderExec.Mode.HASH) {
        return false;
      }
      readers.add(new Reader(reader.stageId(), rowIndependent));
      return true;
    }
    List<ExecutionPlan> children = node.children();
    if (children.isEmpty() || node instanceof UnionExec) {
      // A scan or values makes partitions of its own; a union numbers its inputs' one after
      // another.
      return false;
    }
    boolean partitionsPassedOn = false;
    for (int i = 0; i < children.size(); i++) {
      ExecutionPlan child = children.get(i);
      if (child.partitionCount() == tasks) {
        partitionsPassedOn = true;
        if (!walk(child, tasks, rowIndependent && rowsPassThrough(node, i), readers)) {
          return false;
        }
      } else if (child.partitionCount() != 1) {
        return false;
      }
    }
    // A node of the stage's partitions whose children all have one makes its partitions itself.
    return partitionsPassedOn;
  }

  /** Whether each row of {@code node}'s child {@code child} reaches its output by itself. */
  private static boolean rowsPassThrough(ExecutionPlan node, int child) {
    if (node instanceof FilterExec || node instanceof ProjectionExec) {
      return true;
    }
    if (node instanceof HashAggregateExec agg) {
      return agg.mode() == AggregateMode.PARTIAL;
    }
    if (node instanceof HashJoinExec join) {
      if (join.emitsMarks()) {
        return false;
      }
      JoinType type = join.joinType();
      return switch (type) {
        case INNER -> true;
        case LEFT, SEMI, ANTI -> child == 0;
        case RIGHT -> child == 1;
        default -> false;
      };
    }
    return false;
  }

  private static void countReaders(ExecutionPlan node, Map<Integer, Integer> reads) {
    if (node instanceof ShuffleReaderExec reader) {
      reads.merge(reader.stageId(), 1, Integer::sum);
    }
    for (ExecutionPlan child : node.children()) {
      countReaders(child, reads);
    }
  }
}
