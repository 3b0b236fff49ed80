package dev.quiver.tests;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the differential tests' engine calls on one long-lived thread with a per-call timeout. One
 * thread (rather than JUnit's thread per preemptive timeout) keeps each session on the thread that
 * created it.
 */
public final class QueryThread implements AutoCloseable {
  private ExecutorService executor = newExecutor();

  private static ExecutorService newExecutor() {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, "differential-query");
          t.setDaemon(true);
          return t;
        });
  }

  /** Runs {@code task} on the query thread; fails if it takes longer than {@code timeout}. */
  public synchronized void run(Duration timeout, String label, Runnable task) {
    run(timeout, label, task, () -> {});
  }

  /**
   * Like {@link #run(Duration, String, Runnable)}; on timeout also runs {@code onTimeout} (e.g.
   * closing the session, which cancels the abandoned query so it stops using a core).
   */
  public synchronized void run(Duration timeout, String label, Runnable task, Runnable onTimeout) {
    Callable<Void> call =
        () -> {
          task.run();
          return null;
        };
    Future<Void> future = executor.submit(call);
    try {
      future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      // The stuck thread is abandoned; later calls get a fresh one.
      executor.shutdownNow();
      executor = newExecutor();
      // Cleanup runs on its own thread: closing a session may wait for the stuck query.
      Thread cleanup =
          new Thread(
              () -> {
                try {
                  onTimeout.run();
                } catch (RuntimeException ignored) {
                  // The timeout is the failure to report; a failing cleanup adds nothing.
                }
              },
              "differential-cleanup");
      cleanup.setDaemon(true);
      cleanup.start();
      throw new AssertionError(label + " timed out after " + timeout.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(label + " interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new AssertionError(label + " failed: " + cause, cause);
    }
  }

  @Override
  public synchronized void close() {
    executor.shutdownNow();
  }
}
