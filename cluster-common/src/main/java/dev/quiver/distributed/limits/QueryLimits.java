package dev.quiver.distributed.limits;

import dev.quiver.binding.settings.Setting;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A query's limits: memory across the cluster and per executor, run time and queued time; 0 (or a
 * zero duration) is no limit. A job's come from its session's settings, each capped by the
 * scheduler's flag of the same name ({@link #cappedBy}): a client may lower the operator's limits,
 * never raise them.
 *
 * @param maxMemory most Arrow memory the query's tasks may hold on all executors together
 * @param maxMemoryPerExecutor most its tasks may hold on one executor
 * @param maxRunTime longest the query may take from submission to its end, queueing included
 * @param maxQueuedTime longest it may wait in its resource group's queue
 */
public record QueryLimits(
    long maxMemory, long maxMemoryPerExecutor, Duration maxRunTime, Duration maxQueuedTime) {

  /** Key of {@link #MAX_MEMORY}. */
  public static final String MAX_MEMORY_KEY = "quiver.query.max_memory";

  /** Key of {@link #MAX_MEMORY_PER_EXECUTOR}. */
  public static final String MAX_MEMORY_PER_EXECUTOR_KEY = "quiver.query.max_memory_per_executor";

  /** Key of {@link #MAX_RUN_TIME}. */
  public static final String MAX_RUN_TIME_KEY = "quiver.query.max_run_time";

  /** Key of {@link #MAX_QUEUED_TIME}. */
  public static final String MAX_QUEUED_TIME_KEY = "quiver.query.max_queued_time";

  /**
   * Key of the resource group a query is admitted into (on a scheduler with --resource-groups): the
   * group's running and queued caps and memory share bound it as well. The scheduler reads it from
   * the job's settings; {@code DistributedSettings} declares its setting.
   */
  public static final String RESOURCE_GROUP_KEY = "quiver.resource_group";

  /** The query's memory across the cluster. */
  public static final Setting<Long> MAX_MEMORY =
      Setting.bytes(
          MAX_MEMORY_KEY,
          0,
          0,
          "Most Arrow memory a query's tasks may hold on all executors together; over it the"
              + " scheduler stops the query with QueryMemoryExceededException. 0: no limit but the"
              + " scheduler's --query-max-memory, which also caps this.");

  /** The query's memory on one executor. */
  public static final Setting<Long> MAX_MEMORY_PER_EXECUTOR =
      Setting.bytes(
          MAX_MEMORY_PER_EXECUTOR_KEY,
          0,
          0,
          "Most Arrow memory a query's tasks may hold on one executor; the executor fails a task"
              + " that would pass it with QueryMemoryExceededException. 0: no limit but the"
              + " executor's memory and the scheduler's --query-max-memory-per-executor.");

  /** The query's run time. */
  public static final Setting<Duration> MAX_RUN_TIME =
      Setting.duration(
          MAX_RUN_TIME_KEY,
          Duration.ZERO,
          "Longest a query may take on the cluster, from submission (queueing included) to its"
              + " end; the scheduler then stops it with QueryTimeoutException. 0s: no limit but the"
              + " scheduler's --query-max-run-time.");

  /** The query's time in its resource group's queue. */
  public static final Setting<Duration> MAX_QUEUED_TIME =
      Setting.duration(
          MAX_QUEUED_TIME_KEY,
          Duration.ZERO,
          "Longest a query may wait in its resource group's queue before it runs; the scheduler"
              + " then stops it with QueryTimeoutException. 0s: no limit but the scheduler's"
              + " --query-max-queued-time.");

  /** No limit at all. */
  public static final QueryLimits NONE = new QueryLimits(0, 0, Duration.ZERO, Duration.ZERO);

  /** Validates the limits. */
  public QueryLimits {
    if (maxMemory < 0 || maxMemoryPerExecutor < 0) {
      throw new IllegalArgumentException("memory limits must be >= 0 bytes (0: no limit)");
    }
    if (maxRunTime.isNegative() || maxQueuedTime.isNegative()) {
      throw new IllegalArgumentException("time limits must be >= 0 (0: no limit)");
    }
  }

  /** The four settings, for the settings registry. */
  public static List<Setting<?>> settings() {
    return List.of(MAX_MEMORY, MAX_MEMORY_PER_EXECUTOR, MAX_RUN_TIME, MAX_QUEUED_TIME);
  }

  /**
   * The limits a job's {@code settings} ask for (unset keys: no limit).
   *
   * @throws dev.quiver.binding.errors.InvalidSettingException for a malformed value
   */
  public static QueryLimits of(Map<String, String> settings) {
    return new QueryLimits(
        parse(MAX_MEMORY, settings, 0L),
        parse(MAX_MEMORY_PER_EXECUTOR, settings, 0L),
        parse(MAX_RUN_TIME, settings, Duration.ZERO),
        parse(MAX_QUEUED_TIME, settings, Duration.ZERO));
  }

  private static <T> T parse(Setting<T> setting, Map<String, String> settings, T none) {
    String v = settings.get(setting.key());
    return v == null ? none : setting.parse(v);
  }

  /** Each limit the smaller of this one and {@code caps}' (a 0 on either side is no limit). */
  public QueryLimits cappedBy(QueryLimits caps) {
    return new QueryLimits(
        min(maxMemory, caps.maxMemory),
        min(maxMemoryPerExecutor, caps.maxMemoryPerExecutor),
        min(maxRunTime, caps.maxRunTime),
        min(maxQueuedTime, caps.maxQueuedTime));
  }

  /** {@code settings} with this object's limits in place of theirs (unset where no limit). */
  public Map<String, String> applyTo(Map<String, String> settings) {
    Map<String, String> out = new HashMap<>(settings);
    put(out, MAX_MEMORY_KEY, maxMemory == 0 ? null : Long.toString(maxMemory));
    put(
        out,
        MAX_MEMORY_PER_EXECUTOR_KEY,
        maxMemoryPerExecutor == 0 ? null : Long.toString(maxMemoryPerExecutor));
    put(out, MAX_RUN_TIME_KEY, maxRunTime.isZero() ? null : maxRunTime.toMillis() + "ms");
    put(out, MAX_QUEUED_TIME_KEY, maxQueuedTime.isZero() ? null : maxQueuedTime.toMillis() + "ms");
    return out;
  }

  private static void put(Map<String, String> out, String key, String value) {
    if (value == null) {
      out.remove(key);
    } else {
      out.put(key, value);
    }
  }

  private static long min(long a, long b) {
    return a == 0 ? b : b == 0 ? a : Math.min(a, b);
  }

  private static Duration min(Duration a, Duration b) {
    return a.isZero() ? b : b.isZero() ? a : (a.compareTo(b) <= 0 ? a : b);
  }
}
