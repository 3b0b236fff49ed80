package dev.quiver.scheduler.job;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.scheduler.time.SchedulerClock;
import java.util.List;

/** Jobs in a chosen state, built without a scheduler, for the pure parts' tests. */
final class JobFixtures {
  private JobFixtures() {}

  static ExecutorInfo executor(String id, int cores) {
    return ExecutorInfo.newBuilder()
        .setExecutorId(id)
        .setHost("127.0.0.1")
        .setFlightPort(1)
        .setCores(cores)
        .build();
  }

  /** A stage of {@code tasks} tasks reading {@code inputs}. */
  static StageSpec stage(int id, int tasks, Integer... inputs) {
    return StageSpec.newBuilder()
        .setStageId(id)
        .setTaskCount(tasks)
        .setOutputPartitions(1)
        .addAllInputStageIds(List.of(inputs))
        .setPlan(ByteString.copyFromUtf8("plan " + id))
        .build();
  }

  /** As {@link #stage}, whose consumers need at most {@code rowLimit} rows. */
  static StageSpec limitedStage(int id, int tasks, long rowLimit, Integer... inputs) {
    return stage(id, tasks, inputs).toBuilder().setOutputRowLimit(rowLimit).build();
  }

  /** A job of {@code stages}, the last one final, submitted at time 0 of a stopped clock. */
  static Job job(long seq, StageSpec... stages) {
    JobSpec spec =
        JobSpec.newBuilder()
            .addAllStages(List.of(stages))
            .setFinalStageId(stages[stages.length - 1].getStageId())
            .build();
    return new Job(
        "job-" + seq + "-00",
        seq,
        spec,
        "",
        ByteString.copyFromUtf8("capability " + seq),
        SchedulerClock.of(() -> 0, () -> 0));
  }

  /** Marks {@code task} succeeded on {@code on} after {@code ranNanos}, writing {@code rows}. */
  static void succeeded(TaskRun task, ExecutorInfo on, long rows, long ranNanos) {
    task.phase = TaskRun.Phase.SUCCEEDED;
    task.executor = on;
    task.succeededAfterNanos = ranNanos;
    task.summarize(
        TaskState.TASK_STATE_SUCCEEDED, TaskMetrics.newBuilder().setOutputRows(rows).build());
  }

  /** Starts an attempt of {@code task} on {@code on} at {@code launchedNanos}. */
  static TaskRun.Attempt running(TaskRun task, ExecutorInfo on, long launchedNanos) {
    TaskRun.Attempt a = new TaskRun.Attempt(task.launches++, on, 0, launchedNanos, false);
    task.running.add(a);
    task.phase = TaskRun.Phase.RUNNING;
    task.attempt = a.number();
    task.executor = on;
    task.summarize(TaskState.TASK_STATE_RUNNING, TaskMetrics.getDefaultInstance());
    return a;
  }
}
