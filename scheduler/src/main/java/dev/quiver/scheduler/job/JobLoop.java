package dev.quiver.scheduler.job;

import io.grpc.Status;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns all job state. Other threads post events to it, or call it and wait for
 * the answer (as gRPC status errors when it cannot answer); after every event it runs {@code
 * afterEvent} (publishing job status). An event that throws is logged and never stops the loop.
 */
final class JobLoop {

  private static final Logger LOG = LoggerFactory.getLogger(JobLoop.class);

  private final ScheduledExecutorService loop;
  private final long callDeadlineMillis;
  private final Runnable afterEvent;
  private volatile boolean closed;

  JobLoop(long callDeadlineMillis, Runnable afterEvent) {
    this.callDeadlineMillis = callDeadlineMillis;
    this.afterEvent = afterEvent;
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "quiver-scheduler-jobs");
              t.setDaemon(true);
              return t;
            });
  }

  /** Runs {@code event} on the loop every {@code periodMillis}. */
  void every(long periodMillis, Runnable event) {
    loop.scheduleWithFixedDelay(
        () -> run(event), periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** Whether the loop takes work (it stops when the scheduler shuts down). */
  boolean accepting() {
    return !closed && !loop.isShutdown();
  }

  /** Queues {@code event}; dropped once the loop is closed. */
  void post(Runnable event) {
    try {
      loop.execute(() -> run(event));
    } catch (RejectedExecutionException e) {
      LOG.debug("scheduler is closed: event dropped");
    }
  }

  /**
   * Runs {@code event} on the loop and returns its answer; its RuntimeException is rethrown.
   *
   * @throws io.grpc.StatusRuntimeException UNAVAILABLE when the loop is closed or closes first,
   *     DEADLINE_EXCEEDED when it does not answer within the call deadline
   */
  <T> T call(Callable<T> event) {
    Future<T> f;
    try {
      f =
          loop.submit(
              () -> {
                if (closed) {
                  throw Status.UNAVAILABLE
                      .withDescription("the scheduler is shutting down")
                      .asRuntimeException();
                }
                try {
                  return event.call();
                } finally {
                  afterEvent.run();
                }
              });
    } catch (RejectedExecutionException e) {
      throw Status.UNAVAILABLE
          .withDescription("the scheduler is shutting down")
          .asRuntimeException();
    }
    try {
      return f.get(callDeadlineMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    } catch (CancellationException e) {
      throw Status.UNAVAILABLE
          .withDescription("the scheduler is shutting down")
          .asRuntimeException();
    } catch (TimeoutException e) {
      throw Status.DEADLINE_EXCEEDED
          .withDescription("the scheduler's job loop did not answer in time")
          .asRuntimeException();
    }
  }

  /** Runs an event on the loop; an exception is logged, never allowed to stop the loop. */
  private void run(Runnable event) {
    if (closed) {
      return;
    }
    try {
      event.run();
    } catch (RuntimeException e) {
      LOG.error("scheduler job loop event failed", e);
    } finally {
      try {
        afterEvent.run();
      } catch (RuntimeException e) {
        LOG.error("publishing job status failed", e);
      }
    }
  }

  /**
   * Runs {@code last} as the final event (later ones are dropped), then stops the loop: callers
   * waiting on an event that will never run get UNAVAILABLE rather than a timeout.
   */
  void close(Runnable last) {
    try {
      loop.submit(
              () -> {
                closed = true;
                last.run();
              })
          .get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      LOG.warn("job manager did not stop cleanly", e);
    }
    for (Runnable queued : loop.shutdownNow()) {
      if (queued instanceof Future<?> f) {
        f.cancel(false);
      }
    }
    try {
      loop.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
