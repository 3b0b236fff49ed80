package dev.quiver.distributed.planner;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.settings.Setting;
import dev.quiver.binding.settings.SettingsProvider;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The session settings ({@code SET key = value}) of the distributed engine, registered with the
 * binding's {@link dev.quiver.binding.settings.SettingsRegistry} through {@link
 * java.util.ServiceLoader}.
 */
public final class DistributedSettings implements SettingsProvider {
  /** Run queries on the cluster (true, the default) or in this process (false). */
  public static final String ENABLED = "quiver.distributed.enabled";

  /** Input bytes one task should read; sets how many tasks a stage gets. */
  public static final String BYTES_PER_TASK = "quiver.distributed.bytes_per_task";

  /** Default of {@link #BYTES_PER_TASK}: 4 MiB. */
  public static final long DEFAULT_BYTES_PER_TASK = 4L << 20;

  /**
   * A join build side estimated at no more rows than this is broadcast to every probe task instead
   * of hash-shuffling both sides.
   */
  public static final String BROADCAST_THRESHOLD_ROWS =
      "quiver.distributed.broadcast_threshold_rows";

  /** Upper bound on tasks per stage, below the cluster's slots (0 = the cluster's slots). */
  public static final String MAX_TASKS = "quiver.distributed.max_tasks";

  /**
   * How long a query waits for a scheduler that cannot be reached or restarted (e.g. 60s, 500ms,
   * 2m; a bare number is seconds): a job the restarted scheduler no longer knows is submitted
   * again, since the client holds its plan.
   */
  public static final String SCHEDULER_WAIT = "quiver.distributed.scheduler_wait";

  /**
   * Whether an exchange computing the same stage as an earlier one reads that stage's output
   * instead of computing it again (a WITH query's view used twice).
   */
  public static final String REUSE_EXCHANGES = "quiver.distributed.reuse_exchanges";

  /**
   * Whether a plan of one task without exchanges runs in this process instead of as a job on the
   * cluster.
   */
  public static final String LOCAL_SINGLE_TASK_PLANS = "quiver.distributed.local_single_task_plans";

  /** Whether the scheduler reshapes stages from their inputs' real sizes (adaptive execution). */
  public static final String ADAPTIVE = "quiver.distributed.adaptive.enabled";

  /** Adaptive execution coalesces adjacent shuffle partitions smaller than this. */
  public static final String ADAPTIVE_MIN_PARTITION_BYTES =
      "quiver.distributed.adaptive.min_partition_bytes";

  /** A shuffle partition this many times its input's median is skewed. */
  public static final String ADAPTIVE_SKEW_FACTOR = "quiver.distributed.adaptive.skew_factor";

  /** A shuffle partition smaller than this is never split as skewed. */
  public static final String ADAPTIVE_SKEW_MIN_BYTES = "quiver.distributed.adaptive.skew_min_bytes";

  /** A join input that wrote at most this many bytes in all is read whole by every task. */
  public static final String ADAPTIVE_BROADCAST_BYTES =
      "quiver.distributed.adaptive.broadcast_bytes";

  /**
   * A scan stage feeding a shuffled join waits for the join's other input and keeps only rows whose
   * keys occur in it when that input wrote at most this many bytes ({@link RuntimeFilters}).
   */
  public static final String RUNTIME_FILTER_BYTES = "quiver.distributed.runtime_filter_bytes";

  /**
   * A scan stage with a runtime filter whose other input wrote more than {@link
   * #RUNTIME_FILTER_BYTES} keeps the rows a Bloom filter of that input's keys lets through, when
   * that input wrote at most this many rows.
   */
  public static final String RUNTIME_FILTER_ROWS = "quiver.distributed.runtime_filter_rows";

  /**
   * Whether the splits of a stage's file scans are handed out at run time to whichever task asks
   * (work stealing), so that a slow executor does not hold its stage back.
   */
  public static final String SPLIT_STEALING = "quiver.distributed.split_stealing";

  /** The resource group the session's jobs run in, on a scheduler with --resource-groups. */
  public static final String RESOURCE_GROUP = QueryLimits.RESOURCE_GROUP_KEY;

  /** Default of {@link #SCHEDULER_WAIT}. */
  public static final Duration DEFAULT_SCHEDULER_WAIT = Duration.ofSeconds(60);

  /** {@link #ENABLED}, typed. */
  public static final Setting<Boolean> ENABLED_SETTING =
      Setting.bool(ENABLED, true, "Run queries on the cluster (true) or in this process (false).");

  /** {@link #BYTES_PER_TASK}, typed. */
  public static final Setting<Long> BYTES_PER_TASK_SETTING =
      Setting.bytes(
          BYTES_PER_TASK,
          1,
          DEFAULT_BYTES_PER_TASK,
          "Input bytes one task should read: a stage gets input / this many tasks, up to the"
              + " cluster's task slots.");

  /**
   * {@link #BROADCAST_THRESHOLD_ROWS}, typed (unset: the binding's collect threshold divided by the
   * executors running the probe tasks).
   */
  public static final Setting<Long> BROADCAST_THRESHOLD_ROWS_SETTING =
      Setting.longInteger(
          BROADCAST_THRESHOLD_ROWS,
          0,
          null,
          "Join build sides estimated at no more rows than this are broadcast to every probe"
              + " task instead of hash-shuffling both sides (unset:"
              + " quiver.optimizer.hash_join_collect_build_threshold_rows divided by the"
              + " executors that run the probe tasks, since each hashes its own copy).");

  /** {@link #MAX_TASKS}, typed. */
  public static final Setting<Integer> MAX_TASKS_SETTING =
      Setting.integer(
          MAX_TASKS,
          0,
          0,
          "Upper bound on tasks per stage, below the cluster's task slots; 0 for the slots.");

  /** {@link #SCHEDULER_WAIT}, typed. */
  public static final Setting<Duration> SCHEDULER_WAIT_SETTING =
      Setting.duration(
          SCHEDULER_WAIT,
          DEFAULT_SCHEDULER_WAIT,
          "How long a query waits for a scheduler that cannot be reached or restarted; a job the"
              + " restarted scheduler no longer knows is submitted again.");

  /** {@link #REUSE_EXCHANGES}, typed. */
  public static final Setting<Boolean> REUSE_EXCHANGES_SETTING =
      Setting.bool(
          REUSE_EXCHANGES,
          true,
          "An exchange computing the same rows as an earlier one in the query (a WITH query's view"
              + " used twice) reads that stage's output instead of running it again.");

  /** {@link #LOCAL_SINGLE_TASK_PLANS}, typed. */
  public static final Setting<Boolean> LOCAL_SINGLE_TASK_PLANS_SETTING =
      Setting.bool(
          LOCAL_SINGLE_TASK_PLANS,
          false,
          "A query planned as one task without exchanges runs in this process instead of on the"
              + " executors (off: every query of a distributed session runs on the cluster, reads"
              + " its data with the executors' credentials and shows in the jobs API).");

  /** {@link #ADAPTIVE}, typed. */
  public static final Setting<Boolean> ADAPTIVE_SETTING =
      Setting.bool(
          ADAPTIVE,
          true,
          "Once a stage's inputs are complete, the scheduler reshapes its tasks from their real"
              + " output sizes: tiny partitions coalesced, skewed ones split, a join whose other"
              + " side turned out small read where its large side was written.");

  /** {@link #ADAPTIVE_MIN_PARTITION_BYTES}, typed. */
  public static final Setting<Long> ADAPTIVE_MIN_PARTITION_BYTES_SETTING =
      Setting.bytes(
          ADAPTIVE_MIN_PARTITION_BYTES,
          0,
          1L << 20,
          "Adjacent shuffle partitions are coalesced into tasks reading about the larger of this"
              + " and the stage's input over its planned tasks; 0 never coalesces.");

  /** {@link #ADAPTIVE_SKEW_FACTOR}, typed. */
  public static final Setting<Integer> ADAPTIVE_SKEW_FACTOR_SETTING =
      Setting.integer(
          ADAPTIVE_SKEW_FACTOR,
          0,
          4,
          "A shuffle partition over this many times its input's median (and over"
              + " quiver.distributed.adaptive.skew_min_bytes) is split among several tasks where"
              + " the plan allows; 0 never splits.");

  /** {@link #ADAPTIVE_SKEW_MIN_BYTES}, typed. */
  public static final Setting<Long> ADAPTIVE_SKEW_MIN_BYTES_SETTING =
      Setting.bytes(
          ADAPTIVE_SKEW_MIN_BYTES,
          0,
          64L << 20,
          "Shuffle partitions smaller than this are never split as skewed.");

  /** {@link #ADAPTIVE_BROADCAST_BYTES}, typed. */
  public static final Setting<Long> ADAPTIVE_BROADCAST_BYTES_SETTING =
      Setting.bytes(
          ADAPTIVE_BROADCAST_BYTES,
          0,
          8L << 20,
          "A shuffled join whose one side wrote at most this much becomes a broadcast join at"
              + " run time: every task reads that side whole and the other side where it was"
              + " written; 0 never.");

  /** {@link #RUNTIME_FILTER_BYTES}, typed. */
  public static final Setting<Long> RUNTIME_FILTER_BYTES_SETTING =
      Setting.bytes(
          RUNTIME_FILTER_BYTES,
          0,
          4L << 20,
          "A stage that scans files for a shuffled join waits for the join's other input (computed"
              + " by earlier stages, or a filtered scan of at most half the bytes) and shuffles only"
              + " rows whose keys occur in it when that input wrote at most this much (with"
              + " quiver.distributed.adaptive.enabled); 0 never.");

  /** {@link #RUNTIME_FILTER_ROWS}, typed. */
  public static final Setting<Long> RUNTIME_FILTER_ROWS_SETTING =
      Setting.longInteger(
          RUNTIME_FILTER_ROWS,
          0,
          4_000_000L,
          "When that input wrote more than quiver.distributed.runtime_filter_bytes but at most this"
              + " many rows, the scan shuffles only rows a Bloom filter of its keys (8-32"
              + " bits a key, built by its tasks) lets through; 0 never.");

  /** {@link #SPLIT_STEALING}, typed. */
  public static final Setting<Boolean> SPLIT_STEALING_SETTING =
      Setting.bool(
          SPLIT_STEALING,
          true,
          "The scheduler hands the splits of a stage's file scans (row groups, files) to its tasks"
              + " as they ask, so that faster executors read more of them; false: each task reads"
              + " the splits planned for it.");

  /** {@link PlanCodec#MAX_SHIPPED_BYTES}, typed. */
  public static final Setting<Long> MAX_MEMORY_TABLE_BYTES_SETTING =
      Setting.bytes(
          PlanCodec.MAX_SHIPPED_BYTES,
          0,
          PlanCodec.DEFAULT_MAX_SHIPPED_BYTES,
          "Most in-memory table data (Arrow IPC bytes) one stage plan may carry to the"
              + " executors.");

  /** {@link ShuffleCompression#SETTING}, typed; unset, the executor's default applies. */
  public static final Setting<String> SHUFFLE_COMPRESSION_SETTING =
      Setting.oneOf(
          ShuffleCompression.SETTING,
          List.of("none", "lz4", "zstd", "auto"),
          null,
          "the executor's --shuffle-compression (auto)",
          "How a task's shuffle output travels to its consumers: auto sends it plain until the"
              + " link holds a stream back, then compressed with Zstandard.");

  /** {@link #RESOURCE_GROUP}, typed; the scheduler checks that the group exists. */
  public static final Setting<String> RESOURCE_GROUP_SETTING =
      Setting.text(
          RESOURCE_GROUP,
          "the group the scheduler's selectors choose for the user",
          "The resource group of the scheduler's --resource-groups file the session's jobs are"
              + " admitted into and share task slots by; an unknown group fails the query.");

  /** Used by {@link java.util.ServiceLoader}. */
  public DistributedSettings() {}

  @Override
  public List<Setting<?>> settings() {
    List<Setting<?>> all = new java.util.ArrayList<>(ownSettings());
    all.addAll(QueryLimits.settings());
    return all;
  }

  private static List<Setting<?>> ownSettings() {
    return List.of(
        ENABLED_SETTING,
        BYTES_PER_TASK_SETTING,
        BROADCAST_THRESHOLD_ROWS_SETTING,
        MAX_TASKS_SETTING,
        SCHEDULER_WAIT_SETTING,
        REUSE_EXCHANGES_SETTING,
        LOCAL_SINGLE_TASK_PLANS_SETTING,
        ADAPTIVE_SETTING,
        ADAPTIVE_MIN_PARTITION_BYTES_SETTING,
        ADAPTIVE_SKEW_FACTOR_SETTING,
        ADAPTIVE_SKEW_MIN_BYTES_SETTING,
        ADAPTIVE_BROADCAST_BYTES_SETTING,
        RUNTIME_FILTER_BYTES_SETTING,
        RUNTIME_FILTER_ROWS_SETTING,
        SPLIT_STEALING_SETTING,
        MAX_MEMORY_TABLE_BYTES_SETTING,
        SHUFFLE_COMPRESSION_SETTING,
        RESOURCE_GROUP_SETTING);
  }

  /** {@link #SCHEDULER_WAIT} among {@code settings} (a job's settings). */
  public static Duration schedulerWait(Map<String, String> settings) {
    String v = settings.get(SCHEDULER_WAIT);
    return v == null ? DEFAULT_SCHEDULER_WAIT : SCHEDULER_WAIT_SETTING.parse(v);
  }

  /** Whether queries of a session with {@code config} run on the cluster. */
  public static boolean enabled(SessionConfig config) {
    return config.get(ENABLED_SETTING);
  }

  /** {@link #BYTES_PER_TASK} of {@code config}. */
  public static long bytesPerTask(SessionConfig config) {
    return config.get(BYTES_PER_TASK_SETTING);
  }

  /** {@link #REUSE_EXCHANGES} of {@code config}. */
  public static boolean reuseExchanges(SessionConfig config) {
    return config.get(REUSE_EXCHANGES_SETTING);
  }

  /** {@link #LOCAL_SINGLE_TASK_PLANS} of {@code config}. */
  public static boolean localSingleTaskPlans(SessionConfig config) {
    return config.get(LOCAL_SINGLE_TASK_PLANS_SETTING);
  }

  /** {@link #SPLIT_STEALING} of {@code config}. */
  public static boolean splitStealing(SessionConfig config) {
    return config.get(SPLIT_STEALING_SETTING);
  }

  /** {@link #MAX_TASKS} of {@code config}, 0 when unset. */
  public static int maxTasks(SessionConfig config) {
    return config.get(MAX_TASKS_SETTING);
  }
}
