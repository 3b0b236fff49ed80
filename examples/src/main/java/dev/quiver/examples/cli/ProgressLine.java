package dev.quiver.examples.cli;

import dev.quiver.decorators.JobProgress;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A one-line progress bar on stderr for a running distributed query: it appears once the query has
 * run for a second, is redrawn in place five times a second and is erased when the query ends, so
 * the result output is never interleaved with it.
 */
final class ProgressLine implements AutoCloseable {
  /** When progress is shown. */
  enum Mode {
    /** Only when stderr is a terminal. */
    auto,
    always,
    never
  }

  static final long DELAY_MILLIS = 1_000;
  private static final long TICK_MILLIS = 200;
  private static final int BAR = 24;

  private final Supplier<Optional<JobProgress>> progress;
  private final PrintWriter err;
  private final long startNanos = System.nanoTime();
  private final ScheduledExecutorService ticker;
  private final boolean enabled;
  private int shownWidth;

  private ProgressLine(Supplier<Optional<JobProgress>> progress, PrintWriter err, boolean enabled) {
    this.progress = progress;
    this.err = err;
    this.enabled = enabled;
    if (enabled) {
      ticker =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "quiver-progress");
                t.setDaemon(true);
                return t;
              });
      ticker.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    } else {
      ticker = null;
    }
  }

  /** Starts following {@code progress} (e.g. {@code DistributedDataFrame::progressOf}). */
  static ProgressLine start(Supplier<Optional<JobProgress>> progress, PrintWriter err, Mode mode) {
    boolean enabled =
        switch (mode) {
          case always -> true;
          case never -> false;
          case auto -> stderrIsTerminal();
        };
    return new ProgressLine(progress, err, enabled);
  }

  /** Draws the line now if the query has run long enough (the ticker calls it). */
  synchronized void tick() {
    if (!enabled) {
      return;
    }
    long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    if (elapsed < DELAY_MILLIS) {
      return;
    }
    Optional<JobProgress> p = progress.get();
    if (p.isEmpty()) {
      return;
    }
    String line = format(p.get(), elapsed);
    err.print("\r" + line + " ".repeat(Math.max(0, shownWidth - line.length())));
    err.flush();
    shownWidth = Math.max(shownWidth, line.length());
  }

  /**
   * E.g. {@code [##########..............] 42% stages 2/5 tasks 17/40 1,234 rows 3.2 s}, or, while
   * the job waits for admission, {@code queued in resource group 'etl': position 3 1.4 s}.
   */
  static String format(JobProgress p, long elapsedMillis) {
    if (p.queuePosition() > 0) {
      return String.format(
          Locale.ROOT,
          "queued in resource group '%s': position %d  %.1f s",
          p.resourceGroup(),
          p.queuePosition(),
          elapsedMillis / 1000.0);
    }
    double fraction = p.fraction();
    int filled = (int) Math.round(fraction * BAR);
    return String.format(
        Locale.ROOT,
        "[%s%s] %3d%%  stages %d/%d  tasks %d/%d  %,d rows  %.1f s",
        "#".repeat(filled),
        ".".repeat(BAR - filled),
        Math.round(fraction * 100),
        p.stagesDone(),
        p.stagesTotal(),
        p.tasksDone(),
        p.tasksTotal(),
        p.rows(),
        elapsedMillis / 1000.0);
  }

  /** Stops and erases the line (if it was drawn). */
  @Override
  public synchronized void close() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
    if (shownWidth > 0) {
      err.print("\r" + " ".repeat(shownWidth) + "\r");
      err.flush();
      shownWidth = 0;
    }
  }

  /** Whether stderr is a terminal (on Linux its descriptor links to a tty; elsewhere a guess). */
  static boolean stderrIsTerminal() {
    Path fd = Path.of("/proc/self/fd/2");
    if (Files.exists(fd, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      try {
        String target = Files.readSymbolicLink(fd).toString();
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
      } catch (IOException | UnsupportedOperationException e) {
        return false;
      }
    }
    // Without /proc: a console exists when stdin and stdout are terminals.
    return System.console() != null;
  }
}
