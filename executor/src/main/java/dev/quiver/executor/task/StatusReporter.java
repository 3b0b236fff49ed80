package dev.quiver.executor.task;

import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.TaskStatusReport;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends task status reports to the scheduler from one background thread, retrying with backoff
 * while the scheduler is briefly unreachable, so a task's slot is free as soon as it has ended.
 */
public final class StatusReporter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StatusReporter.class);

  private static final long CALL_DEADLINE_MILLIS = 10_000;

  private final SchedulerGrpc.SchedulerBlockingStub scheduler;
  private final int maxAttempts;
  private final long firstBackoffMillis;
  private final ScheduledExecutorService thread;

  /**
   * Creates a reporter.
   *
   * @param maxAttempts calls made per report before giving up (the scheduler then notices the task
   *     through the executor's heartbeat or its own timeout)
   * @param firstBackoffMillis wait before the first retry; doubled for each further one
   */
  public StatusReporter(
      SchedulerGrpc.SchedulerBlockingStub scheduler, int maxAttempts, long firstBackoffMillis) {
    this.scheduler = scheduler;
    this.maxAttempts = maxAttempts;
    this.firstBackoffMillis = firstBackoffMillis;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "quiver-executor-task-reports");
              t.setDaemon(true);
              return t;
            });
  }

  /** Queues {@code report}; returns at once. */
  public void report(TaskStatusReport report) {
    schedule(report, 1, 0);
  }

  private void schedule(TaskStatusReport report, int attempt, long delayMillis) {
    try {
      thread.schedule(() -> send(report, attempt), delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.warn(
          "executor is stopping; the {} report of {} is not sent",
          report.getState(),
          describe(report));
    }
  }

  private void send(TaskStatusReport report, int attempt) {
    try {
      scheduler
          .withDeadlineAfter(CALL_DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
          .reportTaskStatus(report);
      LOG.debug("reported {} {}", describe(report), report.getState());
    } catch (StatusRuntimeException e) {
      if (isTransient(e.getStatus()) && attempt < maxAttempts) {
        long backoff = firstBackoffMillis << Math.min(attempt - 1, 16);
        LOG.info(
            "reporting {} {} failed ({}); retry {} of {} in {} ms",
            describe(report),
            report.getState(),
            e.getStatus().getCode(),
            attempt,
            maxAttempts - 1,
            backoff);
        schedule(report, attempt + 1, backoff);
      } else {
        LOG.error(
            "could not report {} {} to the scheduler after {} attempts: {}",
            describe(report),
            report.getState(),
            attempt,
            e.getStatus());
      }
    }
  }

  private static boolean isTransient(Status status) {
    return switch (status.getCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED -> true;
      default -> false;
    };
  }

  private static String describe(TaskStatusReport r) {
    return "job "
        + r.getTask().getJobId()
        + " stage "
        + r.getTask().getStageId()
        + " task "
        + r.getTask().getTaskId()
        + " attempt "
        + r.getTask().getAttempt();
  }

  /** Sends the queued reports (waiting at most 5 s for them), then stops. */
  @Override
  public void close() {
    thread.shutdown();
    try {
      if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
