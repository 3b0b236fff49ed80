package dev.quiver.distributed.client;

import dev.quiver.binding.QueryCancelledException;
import dev.quiver.binding.QuiverException;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.decorators.JobProgress;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
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

  /** How long a job waits for an unreachable scheduler to come back. */
  public static final long SCHEDULER_RECONNECT_MILLIS = 30_000;

  private static final long RECONNECT_PAUSE_MILLIS = 250;

  private final SchedulerClient scheduler;
  private final String jobId;
  private final JobSpec spec;
  private final long submittedNanos = System.nanoTime();
  private volatile JobStatusUpdate last;
  private boolean closed;

  private JobHandle(SchedulerClient scheduler, String jobId, JobSpec spec) {
    this.scheduler = scheduler;
    this.jobId = jobId;
    this.spec = spec;
  }

  /** Submits {@code job}. */
  public static JobHandle submit(SchedulerClient scheduler, JobSpec job) {
    return new JobHandle(scheduler, scheduler.submit(job), job);
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
      return new JobProgress(jobId, "QUEUED", 0, stagesTotal, 0, tasksTotal, 0, 0, elapsedMillis);
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
        jobId, state, stagesDone, stagesTotal, tasksDone, tasksTotal, running, rows, elapsedMillis);
  }

  /** The scheduler's id of the job. */
  public String jobId() {
    return jobId;
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
   * Like {@link #awaitSuccess(BooleanSupplier)}, handing every status update to {@code updates}.
   * A status stream cut by the scheduler going away is re-opened for up to {@link
   * #SCHEDULER_RECONNECT_MILLIS}; if the scheduler then no longer knows the job, it restarted and
   * the job is lost: that fails with a message saying so.
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
          throw new QuiverException(
              "Distributed job "
                  + jobId
                  + " was lost because the scheduler at "
                  + scheduler.target()
                  + " restarted while it ran (the scheduler no longer knows the job); run the"
                  + " query again");
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
        } else if (now - brokenSince > TimeUnit.MILLISECONDS.toNanos(SCHEDULER_RECONNECT_MILLIS)) {
          throw new QuiverException(
              "The scheduler at "
                  + scheduler.target()
                  + " has been unreachable for "
                  + SCHEDULER_RECONNECT_MILLIS / 1000
                  + " s while job "
                  + jobId
                  + " ran: "
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
      scheduler.cancel(jobId);
    } catch (QuiverException e) {
      LOG.warn("cancelling job {} failed: {}", jobId, e.getMessage());
    }
  }

  /** Cancels the job if it is still running, then releases its data on the executors. */
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
    try {
      scheduler.release(jobId);
    } catch (QuiverException e) {
      LOG.warn("releasing job {} failed: {}", jobId, e.getMessage());
    }
  }
}
