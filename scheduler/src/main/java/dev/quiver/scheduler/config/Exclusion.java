package dev.quiver.scheduler.config;

import java.time.Duration;
import java.util.Objects;

/**
 * When the scheduler stops placing tasks on an executor (Spark's exclude-on-failure): after {@code
 * failures} task attempts in a row failed there for reasons outside their plan and data, or at once
 * when it reports its disk failing, it gets no task for {@code duration}.
 *
 * @param failures consecutive failed attempts that exclude an executor (at least 1)
 * @param duration how long it stays excluded
 */
public record Exclusion(int failures, Duration duration) {

  /** Three failures in a row exclude an executor for a minute. */
  public static final Exclusion DEFAULT = new Exclusion(3, Duration.ofMinutes(1));

  /** Validates the settings. */
  public Exclusion {
    Objects.requireNonNull(duration, "duration");
    if (failures < 1) {
      throw new IllegalArgumentException(
          "executors are excluded after at least 1 failure, got " + failures);
    }
    if (duration.isNegative()) {
      throw new IllegalArgumentException("the exclusion must not be negative, got " + duration);
    }
  }
}
