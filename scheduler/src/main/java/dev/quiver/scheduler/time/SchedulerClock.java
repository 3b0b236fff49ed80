package dev.quiver.scheduler.time;

import java.util.function.LongSupplier;

/**
 * The scheduler's time: a monotonic clock for timeouts and durations, and the wall clock for the
 * times it reports. One clock serves the executor registry (heartbeat timeouts) and the job manager
 * (the wait for executors, finished-job retention, speculation, task run times), so a test that
 * advances it decides exactly when each of them is due; processes use {@link #SYSTEM}.
 */
public interface SchedulerClock {

  /** {@link System#nanoTime} and {@link System#currentTimeMillis}. */
  SchedulerClock SYSTEM = of(System::nanoTime, System::currentTimeMillis);

  /** Monotonic nanoseconds, comparable only with each other (as {@link System#nanoTime}). */
  long nanoTime();

  /** Milliseconds since the Unix epoch. */
  long unixMillis();

  /** A clock reading the given monotonic and wall clocks. */
  static SchedulerClock of(LongSupplier nanoTime, LongSupplier unixMillis) {
    return new SchedulerClock() {
      @Override
      public long nanoTime() {
        return nanoTime.getAsLong();
      }

      @Override
      public long unixMillis() {
        return unixMillis.getAsLong();
      }
    };
  }
}
