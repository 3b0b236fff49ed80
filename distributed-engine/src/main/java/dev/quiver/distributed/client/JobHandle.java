package dev.quiver.distributed.client;

import dev.quiver.binding.QueryCancelledException;
import dev.quiver.binding.QuiverException;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One submitted job: waits for it to finish, remembers its last status (stages, tasks, metrics,
 * result locations) and cancels or releases it on the scheduler.
 */
public final class JobHandle implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobHandle.class);
  private static final Object END = new Object();

  private final SchedulerClient scheduler;
  private final String jobId;
  private volatile JobStatusUpdate last;
  private boolean closed;

  private JobHandle(SchedulerClient scheduler, String jobId) {
    this.scheduler = scheduler;
    this.jobId = jobId;
  }

  /** Submits {@code job}. */
  public static JobHandle submit(SchedulerClient scheduler, JobSpec job) {
    return new JobHandle(scheduler, scheduler.submit(job));
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
            updates.add(t);
          }

          @Override
          public void onCompleted() {
            updates.add(END);
          }
        });
    try {
      while (true) {
        Object next = updates.poll(100, TimeUnit.MILLISECONDS);
        if (cancelled.getAsBoolean()) {
          cancelQuietly();
          throw new QueryCancelledException("Distributed job " + jobId + " was cancelled");
        }
        if (next == null) {
          continue;
        }
        if (next instanceof JobStatusUpdate u) {
          last = u;
          switch (u.getState()) {
            case JOB_STATE_SUCCEEDED:
              return u;
            case JOB_STATE_FAILED:
              throw RemoteErrors.toException(jobId, u.getErrorInfo().getKind().isEmpty()
                  ? RemoteErrors.toProto(new QuiverException(u.getError()))
                  : u.getErrorInfo());
            case JOB_STATE_CANCELLED:
              throw new QueryCancelledException("Distributed job " + jobId + " was cancelled");
            default:
              break;
          }
        } else if (next instanceof Throwable t) {
          throw new QuiverException(
              "Lost the status stream of job " + jobId + " from the scheduler at "
                  + scheduler.target() + ": " + t.getMessage(), t);
        } else {
          throw new QuiverException(
              "The scheduler ended the status stream of job " + jobId + " before it finished");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancelQuietly();
      throw new QueryCancelledException("Interrupted while waiting for job " + jobId);
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
