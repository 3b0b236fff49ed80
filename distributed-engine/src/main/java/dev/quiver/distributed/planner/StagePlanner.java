package dev.quiver.distributed.planner;

import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.MarkMergeExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.operator.LimitExec;
import dev.quiver.binding.physical.operator.LocalLimitExec;
import dev.quiver.binding.physical.sort.SortPreservingMergeExec;
import dev.quiver.distributed.codec.StagePlan;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Cuts a single-node physical plan into stages at its exchanges.
 *
 * <p>The binding's planner already placed every point where rows must move between partitions: a
 * {@link RepartitionExec} (hash or round-robin) becomes a shuffle, a {@link CoalescePartitionsExec}
 * a gather (or, when the stage above runs several tasks, a broadcast of a join's build side), and
 * the input of a {@link SortPreservingMergeExec} (or {@link MarkMergeExec}) a gather that keeps
 * each producer's sorted run (or marks) apart. Below each cut is a producer stage; in its consumer
 * the cut becomes a {@link ShuffleReaderExec}. What remains on top becomes the final stage, whose
 * outputs the client reads. Aggregations arrive already split into partial and final around the
 * hash repartition, so the split falls on a stage boundary.
 *
 * <p>Given each stage plan's encoding, an exchange whose producer would encode to the same bytes as
 * an earlier stage's reads that stage again instead of adding one (exchange reuse, as Spark's
 * {@code ReuseExchange}): a WITH query's view read twice, as in TPC-H Q15, is computed once. A
 * stage's output stays with its executors until the job ends, and reads leave it in place, so any
 * number of consumers can read it. The bytes hold every operator, expression, file and input stage,
 * so equal bytes are the same work; like the binding's planner, this takes functions (UDFs
 * included) to be deterministic.
 */
public final class StagePlanner {
  private final List<Stage> stages = new ArrayList<>();
  private final Function<StagePlan, byte[]> encoding;
  private final Map<ByteBuffer, Stage> stagesByEncoding = new HashMap<>();

  private StagePlanner(Function<StagePlan, byte[]> encoding) {
    this.encoding = encoding;
  }

  /**
   * Cuts {@code plan} into stages; every exchange gets a stage of its own. A plan of one partition
   * without exchanges becomes one stage of one task.
   */
  public static StageGraph plan(ExecutionPlan plan) {
    return plan(plan, null);
  }

  /**
   * As {@link #plan(ExecutionPlan)}, but an exchange whose stage plan {@code encoding} encodes to
   * the same bytes as an earlier stage's reuses that stage; null encodes nothing and reuses none.
   */
  public static StageGraph plan(ExecutionPlan plan, Function<StagePlan, byte[]> encoding) {
    StagePlanner planner = new StagePlanner(encoding);
    ExecutionPlan top = planner.cut(plan);
    planner.stages.add(
        new Stage(
            planner.stages.size() + 1, top, Partitioning.single(), Boundary.RESULT, readers(top)));
    return new StageGraph(planner.labelBroadcasts());
  }

  /** Whether {@code plan} runs as one task without exchanges: nothing in it needs a cluster. */
  public static boolean isSingleTask(ExecutionPlan plan) {
    return plan.partitionCount() == 1 && !hasExchange(plan);
  }

  private static boolean hasExchange(ExecutionPlan plan) {
    if (plan instanceof RepartitionExec
        || plan instanceof CoalescePartitionsExec
        || plan instanceof SortPreservingMergeExec
        || plan instanceof MarkMergeExec) {
      return true;
    }
    for (ExecutionPlan child : plan.children()) {
      if (hasExchange(child)) {
        return true;
      }
    }
    return false;
  }

  private ExecutionPlan cut(ExecutionPlan node) {
    if (node instanceof HashJoinExec join
        && join.mode() == PartitionMode.COLLECT_BUILD
        && join.semiBuildsLeft()
        && !join.emitsMarks()
        && join.right().partitionCount() > 1) {
      // Its partitions merge their marks of the gathered left input in memory; tasks in other
      // processes cannot (the binding plans it only with quiver.optimizer.shared_join_marks on).
      throw new IllegalStateException(
          "A SEMI/ANTI join sharing marks of its gathered left input across partitions cannot be"
              + " distributed: "
              + join.name());
    }
    if (node instanceof LimitExec limit
        && limit.fetch() >= 0
        && limit.input() instanceof CoalescePartitionsExec coalesce
        && coalesce.children().get(0).partitionCount() > 1) {
      // The limit runs on one task over a gather: each producer task needs to write no more than
      // the limit (a per-partition limit), and once the producers that finished wrote that many
      // rows, the others need not run at all (the stage's row limit, enforced by the scheduler).
      long rows = saturatedSum(limit.offset(), limit.fetch());
      ExecutionPlan input = cut(coalesce.children().get(0));
      ExecutionPlan gathered = gather(new LocalLimitExec(input, rows), rows);
      return limit.withNewChildren(List.of(coalesce.withNewChildren(List.of(gathered))));
    }
    List<ExecutionPlan> children = new ArrayList<>(node.children().size());
    for (ExecutionPlan child : node.children()) {
      children.add(cut(child));
    }
    if (node instanceof RepartitionExec repartition) {
      ExecutionPlan input = children.get(0);
      Partitioning out = repartition.outputPartitioning();
      Boundary kind =
          out.kind() == Partitioning.Kind.HASH
              ? Boundary.HASH_SHUFFLE
              : Boundary.ROUND_ROBIN_SHUFFLE;
      Stage stage = stage(input, out, kind, -1);
      return ShuffleReaderExec.unresolved(
          stage.id(), input.schema(), out, ShuffleReaderExec.Mode.HASH, stage.taskCount());
    }
    if (node instanceof CoalescePartitionsExec && children.get(0).partitionCount() > 1) {
      return node.withNewChildren(List.of(gather(children.get(0))));
    }
    if ((node instanceof SortPreservingMergeExec || node instanceof MarkMergeExec)
        && children.get(0).partitionCount() > 1) {
      // Both read each producer's output on its own (a sorted run; one partition's marks).
      return node.withNewChildren(List.of(gather(children.get(0))));
    }
    return node.children().isEmpty() ? node : node.withNewChildren(children);
  }

  private static long saturatedSum(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /** Makes {@code input} a stage whose tasks each write one partition, read per task. */
  private ExecutionPlan gather(ExecutionPlan input) {
    return gather(input, -1);
  }

  /** As {@link #gather(ExecutionPlan)}, for a consumer needing at most {@code rowLimit} rows. */
  private ExecutionPlan gather(ExecutionPlan input, long rowLimit) {
    Stage stage = stage(input, Partitioning.single(), Boundary.GATHER, rowLimit);
    int tasks = stage.taskCount();
    return ShuffleReaderExec.unresolved(
        stage.id(),
        input.schema(),
        Partitioning.unknown(tasks),
        ShuffleReaderExec.Mode.PER_TASK,
        tasks);
  }

  /**
   * The stage computing {@code root} split by {@code output}: an earlier one encoding to the same
   * bytes, or a new one. A stage with a row limit is never shared: its tasks stop early for one
   * consumer.
   */
  private Stage stage(ExecutionPlan root, Partitioning output, Boundary boundary, long rowLimit) {
    ByteBuffer key = null;
    if (encoding != null && rowLimit < 0) {
      key = ByteBuffer.wrap(encoding.apply(new StagePlan(root, output)));
      Stage earlier = stagesByEncoding.get(key);
      if (earlier != null && earlier.boundary() == boundary) {
        return earlier;
      }
    }
    Stage stage = new Stage(stages.size() + 1, root, output, boundary, readers(root), rowLimit);
    stages.add(stage);
    if (key != null) {
      stagesByEncoding.putIfAbsent(key, stage);
    }
    return stage;
  }

  /** The producer stages read by the shuffle readers in {@code plan} (within this stage). */
  private static List<Integer> readers(ExecutionPlan plan) {
    List<Integer> ids = new ArrayList<>();
    collectReaders(plan, ids);
    return ids;
  }

  private static void collectReaders(ExecutionPlan plan, List<Integer> ids) {
    if (plan instanceof ShuffleReaderExec reader) {
      if (!ids.contains(reader.stageId())) {
        ids.add(reader.stageId());
      }
      return;
    }
    for (ExecutionPlan child : plan.children()) {
      collectReaders(child, ids);
    }
  }

  /** A gather read by every task of a consumer with several tasks is a broadcast. */
  private List<Stage> labelBroadcasts() {
    List<Stage> out = new ArrayList<>(stages.size());
    for (Stage s : stages) {
      Stage labelled = s;
      if (s.boundary() == Boundary.GATHER) {
        for (Stage consumer : stages) {
          if (consumer.inputStageIds().contains(s.id()) && consumer.taskCount() > 1) {
            labelled =
                new Stage(
                    s.id(),
                    s.root(),
                    s.output(),
                    Boundary.BROADCAST,
                    s.inputStageIds(),
                    s.outputRowLimit());
          }
        }
      }
      out.add(labelled);
    }
    return out;
  }
}
