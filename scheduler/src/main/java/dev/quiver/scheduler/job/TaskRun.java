package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.KeyFilterBits;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskSummary;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** One task of a running stage: its running attempts and where its output lives. */
final class TaskRun {

  /** Where the task is in its life; a task goes back to WAITING when it must run again. */
  enum Phase {
    WAITING,
    RUNNING,
    SUCCEEDED
  }

  /**
   * One launched attempt that has not ended.
   *
   * @param number the attempt number (the executor's TaskId.attempt)
   * @param launchSeq event sequence number of the launch
   * @param launchedNanos when it was launched (the scheduler clock's nanoTime)
   * @param speculative whether it is a copy racing a slow attempt
   */
  record Attempt(
      int number, ExecutorInfo executor, long launchSeq, long launchedNanos, boolean speculative) {
    String executorId() {
      return executor.getExecutorId();
    }
  }

  final StageRun stage;
  final int index;

  /** What the task reads when adaptive execution reshaped its stage; null: partition index. */
  final AdaptiveTasks.TaskInput input;

  Phase phase = Phase.WAITING;

  /** Attempts launched so far; the next attempt's number. */
  int launches;

  /** The attempt the summary describes (the latest launched, or the one that succeeded). */
  int attempt = -1;

  /** Failed attempts counted against the job's attempt limit. */
  int failures;

  /** Attempts running now: one, or two while a speculative copy races a slow one. */
  final List<Attempt> running = new ArrayList<>();

  /**
   * Executor of the summarized attempt: where it runs, or where its output lives once succeeded.
   */
  ExecutorInfo executor;

  /** When the summarized attempt was launched and, once it ended, how long it ran. */
  long launchedAtNanos;

  long ranNanos = -1;

  /** Event sequence number of the success. */
  long successSeq;

  /** How long the successful attempt ran, for the stage's median (speculation). */
  long succeededAfterNanos;

  /**
   * True when the task is SUCCEEDED without having run: its stage's row limit was met by other
   * tasks, so its output is empty and lives nowhere.
   */
  boolean skipped;

  /** Executors the task failed on, avoided by retries while others exist. */
  final Set<String> failedOn = new HashSet<>();

  /** Why each failed attempt failed, oldest first ("attempt 0 on executor e1: ..."). */
  final List<String> failureReasons = new ArrayList<>();

  /** The latest attempt as status reports it; null until the first launch. */
  TaskSummary summary;

  /** The Bloom filters the summarized attempt built (TaskMetrics.key_filters), kept apart. */
  List<KeyFilterBits> keyFilters = List.of();

  TaskRun(StageRun stage, int index) {
    this(stage, index, null);
  }

  TaskRun(StageRun stage, int index, AdaptiveTasks.TaskInput input) {
    this.stage = stage;
    this.index = index;
    this.input = input;
  }

  /** The running attempt {@code number} on {@code executorId}, or null (ended or unknown). */
  Attempt runningAttempt(int number, String executorId) {
    if (phase != Phase.RUNNING) {
      return null;
    }
    for (Attempt a : running) {
      if (a.number() == number && a.executorId().equals(executorId)) {
        return a;
      }
    }
    return null;
  }

  /** The running attempt on {@code executorId}, or null. */
  Attempt runningOn(String executorId) {
    for (Attempt a : running) {
      if (a.executorId().equals(executorId)) {
        return a;
      }
    }
    return null;
  }

  TaskId id() {
    return id(Math.max(attempt, 0));
  }

  TaskId id(int attemptNumber) {
    return TaskId.newBuilder()
        .setJobId(stage.job.id)
        .setStageId(stage.id())
        .setTaskId(index)
        .setAttempt(attemptNumber)
        .build();
  }

  void summarize(TaskState state, TaskMetrics metrics) {
    summarize(state, metrics, false);
  }

  void summarize(TaskState state, TaskMetrics metrics, boolean speculative) {
    // The Bloom filters stay here: status updates go to clients and pages, often. A later
    // attempt that did not succeed (a cancelled speculative copy) keeps the winner's.
    if (state == TaskState.TASK_STATE_SUCCEEDED) {
      keyFilters = List.copyOf(metrics.getKeyFiltersList());
    }
    summary =
        TaskSummary.newBuilder()
            .setTask(id())
            .setExecutorId(executor.getExecutorId())
            .setState(state)
            .setMetrics(
                metrics.getKeyFiltersCount() == 0
                    ? metrics
                    : metrics.toBuilder().clearKeyFilters().build())
            .setSpeculative(speculative)
            .build();
  }

  /** Marks the task done without running it (its stage's row limit is met). */
  void skip() {
    phase = Phase.SUCCEEDED;
    skipped = true;
    summary =
        TaskSummary.newBuilder()
            .setTask(id())
            .setState(TaskState.TASK_STATE_SUCCEEDED)
            .setMetrics(TaskMetrics.getDefaultInstance())
            .setSkipped(true)
            .build();
  }

  String describe() {
    return "stage " + stage.id() + " task " + index + " (attempt " + attempt + ")";
  }

  /** The job, stage and task, for test failures. */
  @Override
  public String toString() {
    return stage.job.id + " " + describe();
  }

  String describe(Attempt a) {
    return "stage "
        + stage.id()
        + " task "
        + index
        + " (attempt "
        + a.number()
        + (a.speculative() ? ", speculative" : "")
        + ")";
  }
}
