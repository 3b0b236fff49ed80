package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Task attempts from launch to end: which attempts run on which executor (the executors' busy
 * slots), launching one, ending one, and cancelling a task's running attempts. Job loop only; what
 * an executor answers later comes back through {@link Outcomes}, whose implementation posts an
 * event to the loop.
 */
final class Attempts {

  private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);

  /** Answers of executors that arrive on gRPC threads; the job loop must act on them. */
  interface Outcomes {
    /** LaunchTask of attempt {@code number} of {@code task} on {@code target} failed. */
    void launchRefused(TaskRun task, int number, ExecutorInfo target, Status refusal);

    /** CancelTasks on the channel of {@code generation} found the executor unreachable. */
    void cancelUnreachable(String executorId, long generation);
  }

  private final SchedulerClock clock;
  private final JobMetrics metrics;
  private final StatusPublisher status;
  private final ExecutorCalls calls;
  private final Outcomes outcomes;

  /** The tasks with an attempt running on each executor. */
  private final Map<String, Set<TaskRun>> running = new HashMap<>();

  /** Orders launches and successes (a lost output is re-run only if it succeeded before). */
  private long eventSeq;

  Attempts(
      SchedulerClock clock,
      JobMetrics metrics,
      StatusPublisher status,
      ExecutorCalls calls,
      Outcomes outcomes) {
    this.clock = clock;
    this.metrics = metrics;
    this.status = status;
    this.calls = calls;
    this.outcomes = outcomes;
  }

  /** The tasks with an attempt running on each executor (for free slots; do not change it). */
  Map<String, Set<TaskRun>> running() {
    return running;
  }

  /** Forgets the attempts running on {@code executorId}, returning their tasks (or null). */
  Set<TaskRun> removeRunning(String executorId) {
    return running.remove(executorId);
  }

  /** The next event sequence number (launches and successes share it). */
  long nextEventSeq() {
    return ++eventSeq;
  }

  /**
   * Launches the next attempt of {@code task} on {@code target}. A speculative copy races the
   * running attempt and leaves the task's status showing that one.
   */
  void launch(TaskRun task, ExecutorInfo target, boolean speculative) {
    Job job = task.stage.job;
    int number = task.launches++;
    TaskRun.Attempt attempt =
        new TaskRun.Attempt(number, target, ++eventSeq, clock.nanoTime(), speculative);
    task.running.add(attempt);
    task.phase = TaskRun.Phase.RUNNING;
    if (job.startedAtNanos < 0) {
      job.startedAtNanos = attempt.launchedNanos();
    }
    if (number > 0 && !speculative) {
      metrics.taskRetried();
    }
    if (!speculative) {
      task.attempt = number;
      task.executor = target;
      task.launchedAtNanos = attempt.launchedNanos();
      task.ranNanos = -1;
      task.summarize(TaskState.TASK_STATE_RUNNING, TaskMetrics.getDefaultInstance());
    }
    running.computeIfAbsent(target.getExecutorId(), k -> new LinkedHashSet<>()).add(task);
    job.executorsUsed.put(target.getExecutorId(), target);
    if (job.state == JobState.JOB_STATE_QUEUED) {
      job.state = JobState.JOB_STATE_RUNNING;
    }
    status.changed(job);

    LaunchTaskRequest request = ExecutorCalls.launchRequest(task, number);
    LOG.debug(
        "{}: launching {} on {}", job.describe(), task.describe(attempt), target.getExecutorId());
    calls.launchTask(
        target, request, refusal -> outcomes.launchRefused(task, number, target, refusal));
  }

  /**
   * Ends one attempt of {@code task}: it no longer holds a slot. When it was the attempt the task's
   * status shows, the status shows how it ended, or the attempt still running.
   */
  void end(TaskRun task, TaskRun.Attempt attempt, TaskState state, TaskMetrics taskMetrics) {
    task.running.remove(attempt);
    Set<TaskRun> set = running.get(attempt.executorId());
    if (set != null) {
      set.remove(task);
    }
    status.changed(task.stage.job);
    long ran = clock.nanoTime() - attempt.launchedNanos();
    metrics.taskEnded(state, ran);
    if (attempt.number() != task.attempt) {
      return;
    }
    if (task.running.isEmpty()) {
      task.ranNanos = ran;
      task.summarize(state, taskMetrics);
    } else {
      TaskRun.Attempt other = task.running.get(0);
      task.attempt = other.number();
      task.executor = other.executor();
      task.launchedAtNanos = other.launchedNanos();
      task.ranNanos = -1;
      task.summarize(TaskState.TASK_STATE_RUNNING, TaskMetrics.getDefaultInstance());
    }
  }

  /** Cancels every running attempt of {@code task} on its executor; the task waits again. */
  void cancel(TaskRun task, String why) {
    Map<String, List<TaskId>> batch = new LinkedHashMap<>();
    cancel(task, batch);
    sendCancels(task.stage.job, batch, why);
  }

  /**
   * Ends every running attempt of {@code task} (the task waits again) and adds it to {@code batch},
   * by executor, for {@link #sendCancels}.
   */
  void cancel(TaskRun task, Map<String, List<TaskId>> batch) {
    for (TaskRun.Attempt a : List.copyOf(task.running)) {
      end(task, a, TaskState.TASK_STATE_CANCELLED, TaskMetrics.getDefaultInstance());
      batch.computeIfAbsent(a.executorId(), k -> new ArrayList<>()).add(task.id(a.number()));
    }
    if (task.phase == TaskRun.Phase.RUNNING) {
      task.phase = TaskRun.Phase.WAITING;
    }
  }

  /** Asks each executor in {@code batch} to cancel its attempts of {@code job}'s tasks. */
  void sendCancels(Job job, Map<String, List<TaskId>> batch, String why) {
    batch.forEach(
        (executorId, ids) ->
            calls.cancelTasks(
                job,
                executorId,
                ids,
                why,
                generation -> outcomes.cancelUnreachable(executorId, generation)));
  }
}
