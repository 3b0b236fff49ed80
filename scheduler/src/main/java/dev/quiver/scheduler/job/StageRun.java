package dev.quiver.scheduler.job;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.KeyFilterBits;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.scheduler.config.Speculation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One stage of a job: its tasks and the stages whose output it reads. */
final class StageRun {

  final Job job;
  final StageSpec spec;
  final List<TaskRun> tasks = new ArrayList<>();

  /** Input stages in the spec's order; filled once every stage of the job exists. */
  final List<StageRun> inputs = new ArrayList<>();

  /** Rows the consumers need at most from all tasks together, or -1 (all). */
  final long rowLimit;

  /** Whether adaptive execution has looked at the stage (once, when its inputs completed). */
  boolean adapted;

  /** What adaptive execution changed in the stage's tasks, or empty. */
  String adaptiveNote = "";

  /** The splits its tasks take at run time, by scan (work stealing); empty when none. */
  final Map<Integer, SplitQueue> splits;

  /** The plan its tasks run: the spec's, or its runtime filter's once chosen. */
  ByteString plan;

  /** Whether the runtime filter, if the stage has one, was decided on (once). */
  boolean filterDecided;

  /** The text of the plan its tasks run: the spec's, or its runtime filter's once chosen. */
  String planText;

  /** The Bloom filter its tasks' plan applies, when the runtime filter chose its bloom plan. */
  KeyFilterBits keyFilter;

  StageRun(Job job, StageSpec spec) {
    this.job = job;
    this.spec = spec;
    this.rowLimit = spec.hasOutputRowLimit() ? spec.getOutputRowLimit() : -1;
    this.splits = SplitQueue.of(spec);
    this.plan = spec.getPlan();
    this.planText = spec.getPlanText();
    for (int i = 0; i < spec.getTaskCount(); i++) {
      tasks.add(new TaskRun(this, i));
    }
  }

  int id() {
    return spec.getStageId();
  }

  /**
   * Whether adaptive execution may still reshape the stage: it has an adaptive spec, was not looked
   * at yet, its inputs are complete and none of its tasks ever launched.
   */
  boolean adaptable() {
    return !adapted && spec.hasAdaptive() && inputsCompleteNoneLaunched();
  }

  /** Whether every input is complete and none of the stage's tasks ever launched. */
  private boolean inputsCompleteNoneLaunched() {
    return inputs.stream().allMatch(StageRun::complete)
        && tasks.stream().allMatch(t -> t.phase == TaskRun.Phase.WAITING && t.launches == 0);
  }

  /**
   * Whether the stage's runtime filter is still to be decided on: it has one, its inputs are
   * complete and none of its tasks ever launched.
   */
  boolean filterable() {
    return !filterDecided && spec.hasRuntimeFilter() && inputsCompleteNoneLaunched();
  }

  /** The text of the plan its tasks run. */
  String planText() {
    return planText;
  }

  /** Replaces the planned tasks with {@code reshape}'s. */
  void reshape(AdaptiveTasks.Reshape reshape) {
    tasks.clear();
    for (AdaptiveTasks.TaskInput input : reshape.tasks()) {
      tasks.add(new TaskRun(this, tasks.size(), input));
    }
    adaptiveNote = reshape.note();
  }

  /** True when every task has a successful attempt whose output is still available. */
  boolean complete() {
    return tasks.stream().allMatch(t -> t.phase == TaskRun.Phase.SUCCEEDED);
  }

  /**
   * Running time beyond which an attempt of this stage is a straggler under {@code policy}, or -1
   * while too few of its tasks have succeeded to tell.
   */
  long speculationThresholdNanos(Speculation policy) {
    int n = tasks.size();
    if (n < 2) {
      return -1;
    }
    long[] done =
        tasks.stream()
            .filter(t -> t.phase == TaskRun.Phase.SUCCEEDED && t.succeededAfterNanos > 0)
            .mapToLong(t -> t.succeededAfterNanos)
            .sorted()
            .toArray();
    if (done.length == n || done.length < Math.max(1, (int) Math.ceil(policy.quantile() * n))) {
      return -1;
    }
    long median = done[done.length / 2];
    return Math.max((long) (median * policy.multiplier()), policy.minRuntime().toNanos());
  }

  /** Rows written by the tasks that ran and succeeded (skipped ones wrote none). */
  long rowsWritten() {
    long rows = 0;
    for (TaskRun t : tasks) {
      if (t.phase == TaskRun.Phase.SUCCEEDED && !t.skipped && t.summary != null) {
        rows += t.summary.getMetrics().getOutputRows();
      }
    }
    return rows;
  }

  int succeeded() {
    return (int) tasks.stream().filter(t -> t.phase == TaskRun.Phase.SUCCEEDED).count();
  }

  /** Every output partition of every task of a complete stage, ordered by task then partition. */
  List<PartitionLocation> outputs() {
    List<PartitionLocation> out = new ArrayList<>();
    for (TaskRun t : tasks) {
      for (int p = 0; p < spec.getOutputPartitions(); p++) {
        PartitionLocation.Builder l =
            PartitionLocation.newBuilder()
                .setPartition(ShuffleTickets.id(job.id, id(), t.index, p))
                .setJobCapability(job.capability);
        if (t.skipped) {
          l.setEmpty(true);
        } else {
          l.setExecutorId(t.executor.getExecutorId())
              .setHost(t.executor.getHost())
              .setFlightPort(t.executor.getFlightPort());
        }
        out.add(l.build());
      }
    }
    return out;
  }
}
