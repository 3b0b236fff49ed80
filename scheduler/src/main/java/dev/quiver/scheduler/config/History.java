package dev.quiver.scheduler.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how long the scheduler keeps finished jobs for the jobs API and web UI.
 *
 * @param stateDir the scheduler's state folder: finished jobs go to a database there and survive
 *     restarts; null keeps the most recent {@link #IN_MEMORY_JOBS} in memory only
 * @param maxJobs finished jobs kept at most; the oldest go first
 * @param maxAge finished jobs older than this are dropped
 */
public record History(Path stateDir, int maxJobs, Duration maxAge) {

  /** Finished jobs kept when there is no state folder (they hold all their task details). */
  public static final int IN_MEMORY_JOBS = 100;

  /** In memory only, the last 100 jobs. */
  public static final History DEFAULT = new History(null, 10_000, Duration.ofDays(30));

  /** Validates the settings. */
  public History {
    Objects.requireNonNull(maxAge, "maxAge");
    if (maxJobs < 1) {
      throw new IllegalArgumentException("the history keeps at least 1 job, got " + maxJobs);
    }
    if (maxAge.isNegative() || maxAge.isZero()) {
      throw new IllegalArgumentException("the history's max age must be positive, got " + maxAge);
    }
  }

  /** A copy keeping its database in {@code dir} (null: in memory). */
  public History withStateDir(Path dir) {
    return new History(dir, maxJobs, maxAge);
  }
}
