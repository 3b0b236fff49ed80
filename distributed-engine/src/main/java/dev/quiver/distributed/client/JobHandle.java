package dev.quiver.distributed.client;

import com.google.protobuf.ByteString;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.decorators.JobProgress;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.distributed.security.AccessDeniedException;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One submitted job: waits for it to finish, remembers its last status (stages, tasks, metrics,
 * result locations) and cancels or releases it on the scheduler.
 */
public final class JobHandle implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobHandle.class);
  private static final Object END = new Object();

  /** How long a job waits for an unreachable scheduler to come back by default. */
  public static final Duration DEFAULT_SCHEDULER_WAIT = DistributedSettings.DEFAULT_SCHEDULER_WAIT;

  private static final long RECONNECT_PAUSE_MILLIS = 250;

  /**
   * The scheduler no longer knows a job it accepted: it restarted while the job ran. The client
   * still holds the job's plan and can submit it again.
   */
  public static final class JobLostException extends QuiverException {
    JobLostException(String message) {
      super(message);
    }
  }

  private final SchedulerClient scheduler;
  private final String jobId;
  private final ByteString capability;
  private final JobSpec spec;
  private final long submittedNanos = System.nanoTime();
  private final Duration schedulerWait;
  private volatile JobStatusUpdate last;
  private boolean closed;

  private JobHandle(
      SchedulerClient scheduler,
      SchedulerClient.SubmittedJob job,
      JobSpec spec,
      Duration schedulerWait) {
    this.scheduler = scheduler;
    this.jobId = job.jobId();
    this.capability = job.capability();
    this.spec = spec;
    this.schedulerWait = schedulerWait;
  }

  /** Submits {@code job}, waiting up to {@link #DEFAULT_SCHEDULER_WAIT} for the scheduler. */
  public static JobHandle submit(SchedulerClient scheduler, JobSpec job) {
    return submit(scheduler, job, DEFAULT_SCHEDULER_WAIT);
  }

  /**
   * Submits {@code job}. While the scheduler is unreachable (restarting, or stopped), the
   * submission is retried for up to {@code schedulerWait}; every retry carries the same submission
   * id, so a submission the scheduler accepted before its answer was lost is not run twice. The
   * handle waits as long for the scheduler in {@link #awaitSuccess}.
   */
  public static JobHandle submit(SchedulerClient scheduler, JobSpec job, Duration schedulerWait) {
    String submissionId = UUID.randomUUID().toString();
    long deadline = System.nanoTime() + schedulerWait.toNanos();
    while (true) {
      try {
        return new JobHandle(scheduler, scheduler.submit(job, submissionId), job, schedulerWait);
      } catch (SchedulerClient.UnreachableException e) {
        if (System.nanoTime() > deadline) {
          throw new QuiverException(
              e.getMessage()
                  + "; it stayed unreachable for "
                  + schedulerWait.toSeconds()
                  + " s (quiver.distributed.scheduler_wait): check that it is running",
              e);
        }
        LOG.warn("{}; retrying", e.getMessage());
        try {
          Thread.sleep(RECONNECT_PAUSE_MILLIS);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new QueryCancelledException("Interrupted while submitting a job");
        }
        scheduler.reconnectNow();
      }
    }
  }

  /**
   * How far the job has got as of the latest status update (queued with nothing done before the
   * first one). Safe to call from any thread.
   */
  public JobProgress progress() {
    return progressOf(spec, last, jobId, (System.nanoTime() - submittedNanos) / 1_000_000);
  }

  /** The progress a status update shows of a job of {@code spec} (null: none seen yet). */
  static JobProgress progressOf(
      JobSpec spec, JobStatusUpdate status, String jobId, long elapsedMillis) {
    int stagesTotal = spec.getStagesCount();
    int tasksTotal = 0;
    for (StageSpec s : spec.getStagesList()) {
      tasksTotal += s.getTaskCount();
    }
    if (status == null) {
      return new JobProgress(
          jobId, "QUEUED", 0, stagesTotal, 0, tasksTotal, 0, 0, elapsedMillis, 0, "");
    }
    // Adaptive execution may run another number of tasks than planned: the status has the count.
    tasksTotal = 0;
    for (StageStatus s : status.getStagesList()) {
      tasksTotal += s.getTaskCount();
    }
    int stagesDone = 0;
    int tasksDone = 0;
    int running = 0;
    long rows = 0;
    for (StageStatus s : status.getStagesList()) {
      if (s.getTaskCount() > 0 && s.getTasksSucceeded() >= s.getTaskCount()) {
        stagesDone++;
      }
      tasksDone += s.getTasksSucceeded();
      for (TaskSummary t : s.getTasksList()) {
        if (t.getState() == TaskState.TASK_STATE_RUNNING) {
          running++;
        } else if (t.getState() == TaskState.TASK_STATE_SUCCEEDED) {
          rows += t.getMetrics().getOutputRows();
        }
      }
    }
    String state = status.getState().name().replace("JOB_STATE_", "");
    return new JobProgress(
        jobId,
        state,
        stagesDone,
        stagesTotal,
        tasksDone,
        tasksTotal,
        running,
        rows,
        elapsedMillis,
        status.getQueuePosition(),
        status.getResourceGroup());
  }

  /** The scheduler's id of the job. */
  public String jobId() {
    return jobId;
  }

  /**
   * The job's capability: the secret that calls on the job and reads of its output carry (the final
   * outputs' locations in {@link #lastStatus()} carry it too). Never log it.
   */
  public ByteString capability() {
    return capability;
  }

  /** The latest status seen, or null before the first. */
  public JobStatusUpdate lastStatus() {
    return last;
  }

  /**
   * Blocks until the job succeeds and returns its final status; throws the job's typed error when
   * it fails, and cancels it (throwing {@link QueryCancelledException}) when {@code cancelled}
   * turns true while waiting.
   */
  public JobStatusUpdate awaitSuccess(BooleanSupplier cancelled) {
    return awaitSuccess(cancelled, update -> {});
  }

  /**
   * Like {@link #awaitSuccess(BooleanSupplier)}, handing every status update to {@code updates}. A
   * status stream cut by the scheduler going away is re-opened for up to the scheduler wait; if the
   * scheduler then no longer knows the job, it restarted and the job is lost: that throws {@link
   * JobLostException}, so the caller can submit the job again.
   */
  public JobStatusUpdate awaitSuccess(
      BooleanSupplier cancelled, Consumer<JobStatusUpdate> updates) {
    long brokenSince = -1;
    try {
      while (true) {
        Status ended = follow(cancelled, updates);
        if (ended == null) {
          return last;
        }
        if (ended.getCode() == Status.Code.NOT_FOUND) {
          throw new JobLostException(
              "Distributed job "
                  + jobId
                  + " was lost because the scheduler at "
                  + scheduler.target()
                  + " restarted while it ran (the scheduler no longer knows the job)");
        }
        if (ended.getCode() == Status.Code.PERMISSION_DENIED
            || ended.getCode() == Status.Code.UNAUTHENTICATED) {
          throw new AccessDeniedException(
              "The scheduler at "
                  + scheduler.target()
                  + " refused the status of job "
                  + jobId
                  + ": "
                  + ended.getCode()
                  + (ended.getDescription() == null ? "" : " " + ended.getDescription()),
              ended.asRuntimeException());
        }
        if (ended.getCode() != Status.Code.UNAVAILABLE) {
          throw new QuiverException(
              "Lost the status stream of job "
                  + jobId
                  + " from the scheduler at "
                  + scheduler.target()
                  + ": "
                  + ended.getCode()
                  + (ended.getDescription() == null ? "" : " " + ended.getDescription()),
              ended.asRuntimeException());
        }
        long now = System.nanoTime();
        if (brokenSince < 0) {
          brokenSince = now;
          LOG.warn(
              "status stream of job {} broke ({}); reconnecting to the scheduler at {}",
              jobId,
              ended,
              scheduler.target());
        } else if (now - brokenSince > schedulerWait.toNanos()) {
          throw new QuiverException(
              "The scheduler at "
                  + scheduler.target()
                  + " has been unreachable for "
                  + schedulerWait.toSeconds()
                  + " s (quiver.distributed.scheduler_wait) since it accepted job "
                  + jobId
                  + ": "
                  + ended.getDescription()
                  + "; check that it is running and run the query again",
              ended.asRuntimeException());
        }
        Thread.sleep(RECONNECT_PAUSE_MILLIS);
        checkCancelled(cancelled);
        scheduler.reconnectNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancelQuietly();
      throw new QueryCancelledException("Interrupted while waiting for job " + jobId);
    }
  }

  private void checkCancelled(BooleanSupplier cancelled) {
    if (cancelled.getAsBoolean()) {
      cancelQuietly();
      throw new QueryCancelledException("Distributed job " + jobId + " was cancelled");
    }
  }

  /**
   * Follows one status stream: null once the job succeeded, or the status that ended the stream
   * early (the scheduler went away or no longer knows the job). Throws when the job failed or was
   * cancelled.
   */
  private Status follow(BooleanSupplier cancelled, Consumer<JobStatusUpdate> listener)
      throws InterruptedException {
    LinkedBlockingQueue<Object> updates = new LinkedBlockingQueue<>();
    scheduler.watch(
        jobId,
        capability,
        new StreamObserver<>() {
          @Override
          public void onNext(JobStatusUpdate value) {
            updates.add(value);
          }

          @Override
          public void onError(Throwable t) {
            updates.add(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            updates.add(END);
          }
        });
    while (true) {
      Object next = updates.poll(100, TimeUnit.MILLISECONDS);
      checkCancelled(cancelled);
      if (next == null) {
        continue;
      }
      if (next instanceof JobStatusUpdate u) {
        last = u;
        listener.accept(u);
        switch (u.getState()) {
          case JOB_STATE_SUCCEEDED:
            return null;
          case JOB_STATE_FAILED:
            throw RemoteErrors.toException(
                jobId,
                u.getErrorInfo().getKind().isEmpty()
                    ? RemoteErrors.toProto(new QuiverException(u.getError()))
                    : u.getErrorInfo());
          case JOB_STATE_CANCELLED:
            throw new QueryCancelledException("Distributed job " + jobId + " was cancelled");
          default:
            break;
        }
      } else if (next instanceof Status status) {
        return status;
      } else {
        throw new QuiverException(
            "The scheduler ended the status stream of job " + jobId + " before it finished");
      }
    }
  }

  private void cancelQuietly() {
    try {
      outsideCallerCancellation(() -> scheduler.cancel(jobId, capability));
    } catch (QuiverException e) {
      LOG.warn("cancelling job {} failed: {}", jobId, e.getMessage());
    }
  }

  /**
   * Runs a clean-up call to the scheduler in a context that does not inherit the calling thread's
   * gRPC cancellation: a server whose own client went away (a cancelled Flight SQL {@code DoGet})
   * cancels its job from that call's thread, and gRPC would cancel the outgoing call with it.
   */
  private static void outsideCallerCancellation(Runnable call) {
    Context.current().fork().run(call);
  }

  /**
   * Cancels the job if it is still running, then asks the scheduler to release its data on the
   * executors (without waiting for the answer).
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    JobStatusUpdate s = last;
    boolean finished =
        s != null
            && (s.getState() == JobState.JOB_STATE_SUCCEEDED
                || s.getState() == JobState.JOB_STATE_FAILED
                || s.getState() == JobState.JOB_STATE_CANCELLED);
    if (!finished) {
      cancelQuietly();
    }
    // The release is not waited for: the executors delete the job's data after it in any case.
    try {
      outsideCallerCancellation(
          () ->
              scheduler.releaseLater(
                  jobId,
                  capability,
                  e -> LOG.warn("releasing job {} failed: {}", jobId, e.getMessage())));
    } catch (RuntimeException e) {
      LOG.warn("releasing job {} failed: {}", jobId, e.getMessage());
    }
  }
}
