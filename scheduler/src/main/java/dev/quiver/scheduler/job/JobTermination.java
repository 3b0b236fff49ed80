package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a job: it moves to a terminal state and leaves its resource group (admitting the next
 * job waiting there), what of it still runs is cancelled, and the executors that hold its shuffle
 * output are told to delete it once nobody will read it. Job loop only.
 */
final class JobTermination {

  private static final Logger LOG = LoggerFactory.getLogger(JobTermination.class);

  private final ExecutorRegistry registry;
  private final JobMetrics metrics;
  private final StatusPublisher status;
  private final ExecutorCalls calls;
  private final Attempts attempts;
  private final Admissions admissions;
  private final JobRegistry jobs;

  JobTermination(
      ExecutorRegistry registry,
      JobMetrics metrics,
      StatusPublisher status,
      ExecutorCalls calls,
      Attempts attempts,
      Admissions admissions,
      JobRegistry jobs) {
    this.admissions = admissions;
    this.jobs = jobs;
    this.registry = registry;
    this.metrics = metrics;
    this.status = status;
    this.calls = calls;
    this.attempts = attempts;
  }

  /** Fails {@code job} with {@code error}. */
  void fail(Job job, ErrorInfo error) {
    finish(job, JobState.JOB_STATE_FAILED, error);
  }

  /**
   * Moves a job to a terminal state and stops whatever of it still runs; a failed or cancelled
   * job's data is removed at once ({@code error} may be null).
   */
  void finish(Job job, JobState state, ErrorInfo error) {
    job.state = state;
    job.error = error;
    job.finishedAtNanos = registry.clock().nanoTime();
    job.finishedAtMillis = registry.clock().unixMillis();
    metrics.jobFinished(state, job.finishedAtNanos - job.submittedAtNanos);
    job.waitingSinceNanos = -1;
    status.changed(job);
    admissions.leave(job);
    Map<String, List<TaskId>> batch = new LinkedHashMap<>();
    for (StageRun stage : job.stages.values()) {
      for (TaskRun t : stage.tasks) {
        if (t.phase == TaskRun.Phase.RUNNING) {
          attempts.cancel(t, batch);
        }
      }
    }
    attempts.sendCancels(job, batch, "its job ended");
    jobs.ended(job, job.finishedAtNanos);
    if (state == JobState.JOB_STATE_SUCCEEDED) {
      LOG.debug("{} succeeded", job.describe());
    } else {
      LOG.info(
          "{} {}{}",
          job.describe(),
          state == JobState.JOB_STATE_FAILED ? "failed" : "cancelled",
          error == null ? "" : ": " + error.getKind() + ": " + error.getMessage());
      // Nobody will read a failed or cancelled job's shuffle output.
      removeData(job);
    }
  }

  /** Tells every alive executor that ran the job's tasks to delete its data, once. */
  void removeData(Job job) {
    if (job.dataRemoved) {
      return;
    }
    job.dataRemoved = true;
    Map<String, ExecutorInfo> alive = new HashMap<>();
    for (ExecutorInfo info : registry.alive()) {
      alive.put(info.getExecutorId(), info);
    }
    for (String executorId : job.executorsUsed.keySet()) {
      ExecutorInfo info = alive.get(executorId);
      if (info == null) {
        continue; // lost: its data went with it
      }
      calls.removeJobData(
          info,
          job.id,
          "RemoveJobData for " + job.describe() + " on executor '" + executorId + "'");
    }
  }
}
