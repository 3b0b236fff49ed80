package dev.quiver.distributed.planner;

import dev.quiver.binding.QuiverException;
import dev.quiver.binding.SessionConfig;

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

  private DistributedSettings() {}

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
