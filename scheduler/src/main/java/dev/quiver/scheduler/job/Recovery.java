package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.scheduler.config.Exclusion;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import io.grpc.Status;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * What the scheduler does when something goes wrong: a failed or refused attempt is retried
 * elsewhere or fails its job, lost shuffle output is computed again and its readers re-queued, a
 * lost executor's running attempts are re-queued and its finished output re-run, and an executor
 * whose attempts keep failing gets no tasks for a while. Job loop only; the jobs belong to {@link
 * JobRegistry} and their attempts to {@link Attempts}.
 */
final class Recovery {

  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private final JobRegistry jobs;
  private final Attempts attempts;
  private final JobTermination termination;

  /** Runs the scheduling pass (a refused launch may leave a task to place elsewhere). */
  private final Runnable schedule;

  private final ExecutorRegistry registry;
  private final SchedulerConfig config;
  private final JobMetrics metrics;
  private final ExecutorCalls calls;
  private final StatusPublisher status;

  /** Task attempts that failed in a row per executor, for exclusion. */
  private final Map<String, Integer> consecutiveFailures = new HashMap<>();

  /** Executors whose LaunchTask failed with UNAVAILABLE, until they register again or a timeout. */
  private final Map<String, Long> unreachable = new HashMap<>();

  /** Whether executors leaving are expected: the application is closing the cluster. */
  private volatile boolean departuresExpected;

  /** From now on executors leave because the application closes the cluster: no news. */
  void expectDepartures() {
    departuresExpected = true;
  }

  Recovery(
      JobRegistry jobs,
      Attempts attempts,
      JobTermination termination,
      Runnable schedule,
      ExecutorRegistry registry,
      SchedulerConfig config,
      JobMetrics metrics,
      ExecutorCalls calls,
      StatusPublisher status) {
    this.jobs = jobs;
    this.attempts = attempts;
    this.termination = termination;
    this.schedule = schedule;
    this.registry = registry;
    this.config = config;
    this.metrics = metrics;
    this.calls = calls;
    this.status = status;
  }

  /** Executors LaunchTask could not reach lately: they get no tasks for now. */
  Set<String> unreachable() {
    return unreachable.keySet();
  }

  /** Gives executors unreachable for longer than the heartbeat timeout another chance. */
  void expireUnreachable(long now) {
    unreachable.values().removeIf(since -> now - since > config.heartbeatTimeout().toNanos());
  }

  /** An executor registered: it is reachable and starts without failures. */
  void registered(String executorId) {
    unreachable.remove(executorId);
    consecutiveFailures.remove(executorId);
  }

  /** An attempt succeeded on {@code executorId}: its failures are no longer in a row. */
  void succeeded(String executorId) {
    consecutiveFailures.remove(executorId);
  }

  /**
   * An executor refused or never got a LaunchTask: when unreachable it is lost, when the request
   * was bad the job fails, otherwise the attempt failed transiently.
   */
  void launchFailed(TaskRun task, int number, ExecutorInfo target, Status refusal) {
    Job job = task.stage.job;
    TaskRun.Attempt attempt = task.runningAttempt(number, target.getExecutorId());
    if (job.terminal() || attempt == null) {
      return;
    }
    String what =
        "executor '"
            + target.getExecutorId()
            + "' ("
            + target.getHost()
            + ":"
            + target.getFlightPort()
            + ") did not accept "
            + task.describe(attempt)
            + " of "
            + job.describe()
            + ": "
            + refusal.getCode()
            + (refusal.getDescription() == null ? "" : " " + refusal.getDescription());
    switch (refusal.getCode()) {
      case UNAVAILABLE -> {
        LOG.warn("{}; treating the executor as lost", what);
        unreachable.put(target.getExecutorId(), registry.clock().nanoTime());
        registry.markLost(target.getExecutorId());
        executorLost(target.getExecutorId(), "LaunchTask could not reach it");
      }
      case INVALID_ARGUMENT,
          FAILED_PRECONDITION,
          UNIMPLEMENTED,
          PERMISSION_DENIED,
          UNAUTHENTICATED -> {
        attempts.end(task, attempt, TaskState.TASK_STATE_FAILED, TaskMetrics.getDefaultInstance());
        termination.fail(
            job, ErrorInfo.newBuilder().setKind("QuiverException").setMessage(what).build());
      }
      default -> {
        attempts.end(task, attempt, TaskState.TASK_STATE_FAILED, TaskMetrics.getDefaultInstance());
        failed(
            task,
            attempt,
            ErrorInfo.newBuilder()
                .setKind("QuiverException")
                .setMessage(what)
                .setRetryable(true)
                .build());
      }
    }
    schedule.run();
  }

  /**
   * An attempt failed on {@code executorId} for a reason outside its plan and data: after {@link
   * Exclusion#failures} of those in a row, or at once when its disk failed, the executor gets no
   * tasks for a while.
   */
  private void executorFailed(String executorId, ErrorInfo error) {
    if (error.getExecutorDiskFull()) {
      // Not the executor's fault, nor lasting: it has no room now, its heartbeats say when again.
      registry.markNotReady(executorId, "low on disk: a task failed there for lack of room");
      LOG.info("executor '{}' gets no tasks until it has disk room again", executorId);
      return;
    }
    int inARow = consecutiveFailures.merge(executorId, 1, Integer::sum);
    boolean disk = TaskFailures.EXECUTOR_DISK.equals(error.getKind());
    if (disk || inARow >= config.exclusion().failures()) {
      consecutiveFailures.remove(executorId);
      registry.exclude(executorId, config.exclusion().duration());
      LOG.warn(
          "executor '{}' gets no tasks for {}: {}",
          executorId,
          config.exclusion().duration(),
          disk
              ? "its disk failed: " + error.getMessage()
              : inARow + " task attempts failed there in a row");
    }
  }

  /**
   * A failed attempt (already ended): re-run lost producer output, retry a transient failure, or
   * fail the job. While another attempt of the task still runs, a transient failure only marks the
   * executor as one to avoid.
   */
  void failed(TaskRun task, TaskRun.Attempt attempt, ErrorInfo error) {
    Job job = task.stage.job;
    String executorId = attempt.executorId();
    String where = task.describe(attempt) + " failed on executor '" + executorId + "'";
    Optional<ShufflePartitionId> missing = TaskFailures.missingPartition(error);
    missing.ifPresent(p -> producerOutputLost(task, attempt, p));
    if (!missing.isPresent() && !TaskFailures.isTransient(error)) {
      LOG.info("{}: {} with {}: failing the job", job.describe(), where, error.getKind());
      termination.fail(
          job, error.toBuilder().setMessage(where + ": " + error.getMessage()).build());
      return;
    }
    task.failedOn.add(executorId);
    if (!missing.isPresent()) {
      // A fetch failure is the producer's executor's fault, not this one's.
      executorFailed(executorId, error);
    }
    if (!task.running.isEmpty()) {
      LOG.info(
          "{}: {} with {}; another attempt still runs", job.describe(), where, error.getKind());
      cancelReadersOfIncompleteInputs(job);
      return;
    }
    task.failures++;
    if (task.failures >= config.maxTaskAttempts()) {
      LOG.info("{}: {} for the {} time: failing the job", job.describe(), where, task.failures);
      termination.fail(
          job,
          error.toBuilder()
              .setMessage(
                  where
                      + " after "
                      + task.failures
                      + " attempts (the limit); last error: "
                      + error.getMessage())
              .build());
      return;
    }
    LOG.info("{}: {} with {}: retrying", job.describe(), where, error.getKind());
    task.phase = TaskRun.Phase.WAITING;
    cancelReadersOfIncompleteInputs(job);
  }

  /** A consumer could not fetch a producer's partition: the producer task must run again. */
  private void producerOutputLost(
      TaskRun consumer, TaskRun.Attempt attempt, ShufflePartitionId partition) {
    Job job = consumer.stage.job;
    StageRun stage = job.stages.get(partition.getStageId());
    if (!partition.getJobId().equals(job.id)
        || stage == null
        || partition.getTaskId() >= stage.tasks.size()) {
      return;
    }
    TaskRun producer = stage.tasks.get(partition.getTaskId());
    // A producer that succeeded again after the consumer was launched has already been re-run.
    if (producer.phase == TaskRun.Phase.SUCCEEDED
        && !producer.skipped
        && producer.successSeq < attempt.launchSeq()) {
      LOG.info("{}: output of {} is gone; re-running it", job.describe(), producer.describe());
      producer.phase = TaskRun.Phase.WAITING;
      status.changed(job);
    }
  }

  /**
   * Cancels and re-queues the running tasks of every stage of {@code job} whose input is no longer
   * complete (a producer's output was lost and runs again): they may be blocked reading from an
   * executor that is gone or hung, holding task slots the re-runs need, and would fail anyway.
   */
  private void cancelReadersOfIncompleteInputs(Job job) {
    if (job.terminal()) {
      return;
    }
    for (StageRun stage : job.stages.values()) {
      if (stage.inputs.stream().allMatch(StageRun::complete)) {
        continue;
      }
      int cancelled = 0;
      Map<String, List<TaskId>> batch = new LinkedHashMap<>();
      for (TaskRun t : stage.tasks) {
        if (t.phase == TaskRun.Phase.RUNNING) {
          attempts.cancel(t, batch);
          cancelled++;
        }
      }
      attempts.sendCancels(job, batch, "its input is being computed again");
      if (cancelled > 0) {
        LOG.info(
            "{}: re-queued {} running tasks of stage {}: part of their input is being computed"
                + " again",
            job.describe(),
            cancelled,
            stage.id());
      }
    }
  }

  /**
   * Re-queues an executor's running attempts, re-runs the succeeded tasks whose output it held, and
   * cancels the tasks that were reading that output.
   */
  void executorLost(String executorId, String why) {
    metrics.executorLost();
    calls.forget(executorId);
    Set<TaskRun> tasks = attempts.removeRunning(executorId);
    int requeued = tasks == null ? 0 : tasks.size();
    int rerun = 0;
    if (tasks != null) {
      for (TaskRun t : tasks) {
        TaskRun.Attempt a = t.runningOn(executorId);
        if (a == null) {
          continue;
        }
        t.failedOn.add(executorId);
        attempts.end(t, a, TaskState.TASK_STATE_FAILED, t.summary.getMetrics());
        if (t.running.isEmpty()) {
          t.phase = TaskRun.Phase.WAITING;
        }
      }
    }
    for (Job job : jobs.live()) {
      if (job.terminal()) {
        continue;
      }
      for (StageRun stage : job.stages.values()) {
        for (TaskRun t : stage.tasks) {
          if (t.phase == TaskRun.Phase.SUCCEEDED
              && !t.skipped
              && t.executor.getExecutorId().equals(executorId)) {
            // Only stages still needed run again: scheduling starts from the final stage.
            t.phase = TaskRun.Phase.WAITING;
            status.changed(job);
            rerun++;
          }
        }
      }
    }
    for (Job job : List.copyOf(jobs.live())) {
      cancelReadersOfIncompleteInputs(job);
    }
    if (requeued + rerun == 0) {
      // E.g. a cluster shutting down: nothing running needed this executor.
      LOG.atLevel(departuresExpected ? Level.DEBUG : Level.INFO)
          .log("executor '{}' is gone ({}); no running job used it", executorId, why);
    } else {
      LOG.warn(
          "executor '{}' is lost ({}): re-queuing {} running and re-running {} finished tasks",
          executorId,
          why,
          requeued,
          rerun);
    }
  }
}
