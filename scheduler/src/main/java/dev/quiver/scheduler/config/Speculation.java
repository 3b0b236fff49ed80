package dev.quiver.scheduler.config;

import java.time.Duration;
import java.util.Objects;

/**
 * When a straggling task gets a second attempt on another executor (Spark's speculative execution):
 * once {@code quantile} of its stage's tasks have succeeded, an attempt running longer than {@code
 * multiplier} times their median, and at least {@code minRuntime}, gets a copy; the first to
 * succeed wins.
 *
 * @param enabled whether stragglers get copies at all
 * @param multiplier how much slower than the median a task must be
 * @param quantile the share of the stage's tasks that must have succeeded first (0 to 1)
 * @param minRuntime running time below which no task counts as a straggler
 */
public record Speculation(
    boolean enabled, double multiplier, double quantile, Duration minRuntime) {

  /** On: 1.5 times the median once 75% of the stage succeeded, after at least 2 s. */
  public static final Speculation DEFAULT = new Speculation(true, 1.5, 0.75, Duration.ofSeconds(2));

  /** Validates the settings. */
  public Speculation {
    Objects.requireNonNull(minRuntime, "minRuntime");
    if (!(multiplier >= 1)) {
      throw new IllegalArgumentException(
          "the speculation multiplier must be at least 1, got " + multiplier);
    }
    if (!(quantile > 0 && quantile <= 1)) {
      throw new IllegalArgumentException(
          "the speculation quantile must be in (0, 1], got " + quantile);
    }
    if (minRuntime.isNegative()) {
      throw new IllegalArgumentException(
          "the speculation minimum runtime must not be negative, got " + minRuntime);
    }
  }

  /** No speculative attempts. */
  public static Speculation off() {
    return new Speculation(false, DEFAULT.multiplier, DEFAULT.quantile, DEFAULT.minRuntime);
  }

  /** A copy with another minimum running time. */
  public Speculation withMinRuntime(Duration newMinRuntime) {
    return new Speculation(enabled, multiplier, quantile, newMinRuntime);
  }

  /** A copy with another quantile. */
  public Speculation withQuantile(double newQuantile) {
    return new Speculation(enabled, multiplier, newQuantile, minRuntime);
  }

  /** A copy with another multiplier. */
  public Speculation withMultiplier(double newMultiplier) {
    return new Speculation(enabled, newMultiplier, quantile, minRuntime);
  }
}
