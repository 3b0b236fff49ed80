package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskSummary;
import java.util.HashSet;
import java.util.Set;

/** One task of a running stage: its current attempt and where its output lives. */
final class TaskRun {

  /** Where the task is in its life; a task goes back to WAITING when it must run again. */
  enum Phase {
    WAITING,
    RUNNING,
    SUCCEEDED
  }

  final StageRun stage;
  final int index;
  Phase phase = Phase.WAITING;

  /** Attempts launched so far; the next attempt's number. */
  int launches;

  /** The current (latest launched) attempt, -1 before the first launch. */
  int attempt = -1;

  /** Failed attempts counted against the job's attempt limit. */
  int failures;

  /** Executor of the current attempt: where it runs, or where its output lives once succeeded. */
  ExecutorInfo executor;

  /** When the current attempt was launched and, once it ended, how long it ran. */
  long launchedAtNanos;

  long ranNanos = -1;

  /** Event sequence numbers of the current attempt's launch and success. */
  long launchSeq;

  long successSeq;

  /** Executors the task failed on, avoided by retries when others are free. */
  final Set<String> failedOn = new HashSet<>();

  /** The latest attempt as status reports it; null until the first launch. */
  TaskSummary summary;

  TaskRun(StageRun stage, int index) {
    this.stage = stage;
    this.index = index;
  }

  TaskId id() {
    return TaskId.newBuilder()
        .setJobId(stage.job.id)
        .setStageId(stage.id())
        .setTaskId(index)
        .setAttempt(Math.max(attempt, 0))
        .build();
  }

  void summarize(TaskState state, TaskMetrics metrics) {
    summary =
        TaskSummary.newBuilder()
            .setTask(id())
            .setExecutorId(executor.getExecutorId())
            .setState(state)
            .setMetrics(metrics)
            .build();
  }

  String describe() {
    return "stage " + stage.id() + " task " + index + " (attempt " + attempt + ")";
  }
}
