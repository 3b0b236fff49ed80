package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executors' task status reports, on the job loop: the first attempt of a task to succeed wins (a
 * copy still racing it is cancelled) and may finish its job; a failed or cancelled attempt goes to
 * {@link Recovery}. Reports of stale attempts are ignored, and output a task of an unknown job
 * wrote is removed.
 */
final class TaskReports {

  private static final Logger LOG = LoggerFactory.getLogger(TaskReports.class);

  private final ExecutorRegistry registry;
  private final ExecutorCalls calls;
  private final JobRegistry jobs;
  private final Attempts attempts;
  private final Recovery recovery;
  private final JobTermination termination;
  private final SchedulingPass pass;

  TaskReports(
      ExecutorRegistry registry,
      ExecutorCalls calls,
      JobRegistry jobs,
      Attempts attempts,
      Recovery recovery,
      JobTermination termination,
      SchedulingPass pass) {
    this.registry = registry;
    this.calls = calls;
    this.jobs = jobs;
    this.attempts = attempts;
    this.recovery = recovery;
    this.termination = termination;
    this.pass = pass;
  }

  /** Records the end of the attempt {@code report} describes, then runs the scheduling pass. */
  void handle(TaskStatusReport report) {
    TaskId id = report.getTask();
    Job job = jobs.get(id.getJobId());
    if (job == null && report.getState() == TaskState.TASK_STATE_SUCCEEDED) {
      dropUnknownJobData(report);
      return;
    }
    StageRun stage = job == null ? null : job.stages.get(id.getStageId());
    TaskRun task =
        job == null || job.terminal() || stage == null || id.getTaskId() >= stage.tasks.size()
            ? null
            : stage.tasks.get(id.getTaskId());
    TaskRun.Attempt attempt =
        task == null ? null : task.runningAttempt(id.getAttempt(), report.getExecutorId());
    if (attempt == null) {
      LOG.debug(
          "ignoring report {} from executor '{}' for job {} stage {} task {} attempt {}:"
              + " stale or unknown",
          report.getState(),
          report.getExecutorId(),
          id.getJobId(),
          id.getStageId(),
          id.getTaskId(),
          id.getAttempt());
      return;
    }
    switch (report.getState()) {
      case TASK_STATE_SUCCEEDED -> {
        attempts.end(task, attempt, TaskState.TASK_STATE_SUCCEEDED, report.getMetrics());
        job.notePeakMemory(report.getExecutorId(), report.getMetrics().getJobPeakMemoryBytes(), 0);
        recovery.succeeded(attempt.executorId());
        // The first attempt to succeed wins; a copy still racing it is cancelled.
        attempts.cancel(task, "another attempt of the task succeeded");
        task.phase = TaskRun.Phase.SUCCEEDED;
        task.attempt = attempt.number();
        task.executor = attempt.executor();
        task.successSeq = attempts.nextEventSeq();
        task.succeededAfterNanos = registry.clock().nanoTime() - attempt.launchedNanos();
        task.launchedAtNanos = attempt.launchedNanos();
        task.ranNanos = task.succeededAfterNanos;
        task.summarize(TaskState.TASK_STATE_SUCCEEDED, report.getMetrics(), attempt.speculative());
        if (attempt.speculative()) {
          LOG.info(
              "{}: speculative {} on executor '{}' finished first",
              job.describe(),
              task.describe(attempt),
              attempt.executorId());
        }
        if (job.finalStage.complete()) {
          termination.finish(job, JobState.JOB_STATE_SUCCEEDED, null);
        }
      }
      case TASK_STATE_FAILED -> {
        attempts.end(task, attempt, TaskState.TASK_STATE_FAILED, report.getMetrics());
        task.failureReasons.add(
            "attempt "
                + attempt.number()
                + " on executor '"
                + attempt.executorId()
                + "': "
                + report.getError().getKind()
                + ": "
                + report.getError().getMessage());
        recovery.failed(task, attempt, report.getError());
      }
      default -> {
        attempts.end(task, attempt, TaskState.TASK_STATE_CANCELLED, report.getMetrics());
        recovery.failed(
            task,
            attempt,
            ErrorInfo.newBuilder()
                .setKind("QueryCancelledException")
                .setMessage("executor '" + report.getExecutorId() + "' cancelled the task")
                .setRetryable(true)
                .build());
      }
    }
    pass.run();
  }

  /**
   * A task of a job this scheduler does not know (never submitted here, e.g. launched by a rogue
   * client, or already forgotten) wrote output nobody will read or remove: drop it.
   */
  private void dropUnknownJobData(TaskStatusReport report) {
    String jobId = report.getTask().getJobId();
    for (ExecutorInfo info : registry.alive()) {
      if (info.getExecutorId().equals(report.getExecutorId())) {
        LOG.warn(
            "executor '{}' ran a task of job '{}', which this scheduler does not know:"
                + " removing its output",
            info.getExecutorId(),
            jobId);
        calls.removeJobData(
            info,
            jobId,
            "RemoveJobData for unknown job '"
                + jobId
                + "' on executor '"
                + info.getExecutorId()
                + "'");
      }
    }
  }
}
