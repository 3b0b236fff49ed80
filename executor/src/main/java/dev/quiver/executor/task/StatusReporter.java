package dev.quiver.executor.task;

import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.proto.TaskStatusResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends task status reports to the scheduler, retrying with backoff while the scheduler is briefly
 * unreachable, so a task's slot is free as soon as it has ended. A report leaves on the thread that
 * ends the task (an asynchronous call: handing it to another thread first would add a thread
 * wake-up to every stage's critical path); retries wait on one background thread.
 */
public final class StatusReporter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StatusReporter.class);

  private static final long CALL_DEADLINE_MILLIS = 10_000;

  private static final long CLOSE_WAIT_MILLIS = 5_000;

  private final SchedulerGrpc.SchedulerStub scheduler;
  private final int maxAttempts;
  private final long firstBackoffMillis;
  private final ScheduledExecutorService retries;

  /** Reports sent or waiting for a retry and not yet answered (guarded by this). */
  private int unanswered;

  private boolean closed;

  /**
   * Creates a reporter.
   *
   * @param maxAttempts calls made per report before giving up (the scheduler then notices the task
   *     through the executor's heartbeat or its own timeout)
   * @param firstBackoffMillis wait before the first retry; doubled for each further one
   */
  public StatusReporter(
      SchedulerGrpc.SchedulerStub scheduler, int maxAttempts, long firstBackoffMillis) {
    this.scheduler = scheduler;
    this.maxAttempts = maxAttempts;
    this.firstBackoffMillis = firstBackoffMillis;
    this.retries =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "quiver-executor-task-reports");
              t.setDaemon(true);
              return t;
            });
  }

  /** Sends {@code report}; returns at once. */
  public void report(TaskStatusReport report) {
    synchronized (this) {
      if (closed) {
        LOG.warn(
            "executor is stopping; the {} report of {} is not sent",
            report.getState(),
            describe(report));
        return;
      }
      unanswered++;
    }
    send(report, 1);
  }

  private void send(TaskStatusReport report, int attempt) {
    try {
      scheduler
          .withDeadlineAfter(CALL_DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
          .reportTaskStatus(
              report,
              new StreamObserver<>() {
                @Override
                public void onNext(TaskStatusResponse value) {}

                @Override
                public void onError(Throwable t) {
                  failed(report, attempt, Status.fromThrowable(t));
                }

                @Override
                public void onCompleted() {
                  LOG.debug("reported {} {}", describe(report), report.getState());
                  answered();
                }
              });
    } catch (RuntimeException e) {
      // The channel is shut down: the executor is stopping.
      failed(report, attempt, Status.fromThrowable(e));
    }
  }

  private void failed(TaskStatusReport report, int attempt, Status status) {
    if (isTransient(status) && attempt < maxAttempts) {
      long backoff = firstBackoffMillis << Math.min(attempt - 1, 16);
      LOG.info(
          "reporting {} {} failed ({}); retry {} of {} in {} ms",
          describe(report),
          report.getState(),
          status.getCode(),
          attempt,
          maxAttempts - 1,
          backoff);
      try {
        retries.schedule(() -> send(report, attempt + 1), backoff, TimeUnit.MILLISECONDS);
        return;
      } catch (RejectedExecutionException e) {
        LOG.warn(
            "executor is stopping; the {} report of {} is not sent",
            report.getState(),
            describe(report));
      }
    } else {
      LOG.error(
          "could not report {} {} to the scheduler after {} attempts: {}",
          describe(report),
          report.getState(),
          attempt,
          status);
    }
    answered();
  }

  private synchronized void answered() {
    unanswered--;
    notifyAll();
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

  /**
   * Waits at most 5 s for the reports sent (and their retries) to be answered, then stops; reports
   * made afterwards are not sent.
   */
  @Override
  public void close() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
    synchronized (this) {
      closed = true;
      try {
        while (unanswered > 0) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            LOG.warn(
                "{} task status reports were still unanswered when the executor stopped",
                unanswered);
            break;
          }
          TimeUnit.NANOSECONDS.timedWait(this, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    retries.shutdownNow();
  }
}
