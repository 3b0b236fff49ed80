package dev.quiver.distributed.planner;

import dev.quiver.binding.QuiverException;
import dev.quiver.binding.SessionConfig;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/** The session settings ({@code SET key = value}) that steer distributed planning. */
public final class DistributedSettings {
  /** Run queries on the cluster (true, the default) or in this process (false). */
  public static final String ENABLED = "quiver.distributed.enabled";

  /** Input bytes one task should read; sets how many tasks a stage gets. */
  public static final String BYTES_PER_TASK = "quiver.distributed.bytes_per_task";

  /** Default of {@link #BYTES_PER_TASK}: 4 MiB. */
  public static final long DEFAULT_BYTES_PER_TASK = 4L << 20;

  /**
   * A join build side estimated at no more rows than this is broadcast to every probe task
   * instead of hash-shuffling both sides.
   */
  public static final String BROADCAST_THRESHOLD_ROWS = "quiver.distributed.broadcast_threshold_rows";

  /** Upper bound on tasks per stage, below the cluster's slots (0 = the cluster's slots). */
  public static final String MAX_TASKS = "quiver.distributed.max_tasks";

  /**
   * How long a query waits for a scheduler that cannot be reached or restarted (e.g. 60s, 500ms,
   * 2m; a bare number is seconds): a job the restarted scheduler no longer knows is submitted
   * again, since the client holds its plan.
   */
  public static final String SCHEDULER_WAIT = "quiver.distributed.scheduler_wait";

  /** Default of {@link #SCHEDULER_WAIT}. */
  public static final Duration DEFAULT_SCHEDULER_WAIT = Duration.ofSeconds(60);

  private DistributedSettings() {}

  /** {@link #SCHEDULER_WAIT} among {@code settings} (a job's settings). */
  public static Duration schedulerWait(Map<String, String> settings) {
    String v = settings.get(SCHEDULER_WAIT);
    if (v == null) {
      return DEFAULT_SCHEDULER_WAIT;
    }
    String t = v.trim().toLowerCase(Locale.ROOT);
    int split = 0;
    while (split < t.length() && Character.isDigit(t.charAt(split))) {
      split++;
    }
    try {
      long n = Long.parseLong(t.substring(0, split));
      switch (t.substring(split).trim()) {
        case "ms":
          return Duration.ofMillis(n);
        case "", "s":
          return Duration.ofSeconds(n);
        case "m", "min":
          return Duration.ofMinutes(n);
        default:
          break;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new QuiverException(
        SCHEDULER_WAIT + " must be a duration such as 60s, 500ms or 2m, got '" + v + "'");
  }

  /** Whether queries of a session with {@code config} run on the cluster. */
  public static boolean enabled(SessionConfig config) {
    String v = config.get(ENABLED);
    return v == null || !v.trim().equalsIgnoreCase("false");
  }

  /** {@link #BYTES_PER_TASK} of {@code config}. */
  public static long bytesPerTask(SessionConfig config) {
    String v = config.get(BYTES_PER_TASK);
    long bytes = v == null ? DEFAULT_BYTES_PER_TASK : SessionConfig.parseBytes(v);
    if (bytes <= 0) {
      throw new QuiverException(BYTES_PER_TASK + " must be positive, got '" + v + "'");
    }
    return bytes;
  }

  /** {@link #MAX_TASKS} of {@code config}, 0 when unset. */
  public static int maxTasks(SessionConfig config) {
    String v = config.get(MAX_TASKS);
    try {
      int n = v == null ? 0 : Integer.parseInt(v.trim());
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new QuiverException(MAX_TASKS + " must be a non-negative integer, got '" + v + "'");
    }
  }
}
