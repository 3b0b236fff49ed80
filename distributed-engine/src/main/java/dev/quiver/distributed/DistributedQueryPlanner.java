package dev.quiver.distributed;

import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.planner.DefaultQueryPlanner;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.QueryScope;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.client.DistributedQueryExec;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.codec.StagePlan;
import dev.quiver.distributed.planner.AdaptiveShapes;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.planner.RuntimeFilters;
import dev.quiver.distributed.planner.ScanBytes;
import dev.quiver.distributed.planner.SplitStealing;
import dev.quiver.distributed.planner.Stage;
import dev.quiver.distributed.planner.StageEncoder;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.planner.StagePlanner;
import dev.quiver.distributed.proto.AdaptiveSpec;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.KeyFilterBuild;
import dev.quiver.distributed.proto.RuntimeFilterSpec;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The distributed engine's query planner: plans with the wrapped (binding) planner for as many
 * partitions as the input deserves ({@link DistributedSettings#BYTES_PER_TASK}, capped by the
 * cluster's task slots), cuts the plan into stages and returns a {@link DistributedQueryExec} that
 * runs them on the cluster. A plan of one task without exchanges runs on the cluster too (as one
 * stage), so that the executors, not the client, read the data with their own credentials and every
 * query shows in the jobs API, unless {@link DistributedSettings#LOCAL_SINGLE_TASK_PLANS} keeps it
 * in this process.
 */
public final class DistributedQueryPlanner implements QueryPlanner {
  private final QueryPlanner inner;
  private final ClusterRuntime runtime;
  private final StageEncoder encoder;
  private final long defaultMaxShippedBytes;
  private final String maxShippedBytesKey;

  /**
   * Wraps {@code inner}.
   *
   * @param maxShippedBytesKey the session setting bounding shipped memory-table bytes
   */
  public DistributedQueryPlanner(
      QueryPlanner inner,
      ClusterRuntime runtime,
      StageEncoder encoder,
      String maxShippedBytesKey,
      long defaultMaxShippedBytes) {
    this.inner = inner;
    this.runtime = runtime;
    this.encoder = encoder;
    this.maxShippedBytesKey = maxShippedBytesKey;
    this.defaultMaxShippedBytes = defaultMaxShippedBytes;
  }

  /** The planner this one wraps. */
  public QueryPlanner inner() {
    return inner;
  }

  @Override
  public boolean runsInOneProcess(SessionConfig config) {
    return !DistributedSettings.enabled(config) && inner.runsInOneProcess(config);
  }

  @Override
  public ExecutionPlan createPhysicalPlan(LogicalPlan plan, PlanningContext context) {
    SessionConfig config = context.config().copy();
    if (!DistributedSettings.enabled(config)) {
      return inner.createPhysicalPlan(plan, context);
    }
    // Partitions that share one process's marks of a gathered build side would each see only
    // their own task's: a SEMI/ANTI join marks per task and merges the marks instead
    // (quiver.optimizer.merged_join_marks, MarkMergeExec).
    config.set(BindingSettings.SHARED_JOIN_MARKS.key(), "false");
    // A shared subplan hands its batches to readers in one process; across stages, a subplan read
    // twice becomes one stage that both read (reuse_exchanges, StagePlanner).
    config.set(BindingSettings.SHARE_SUBPLANS.key(), "false");
    // A bad value fails here, typed, rather than in every task or when the job runs.
    ShuffleCompression.of(config);
    DistributedSettings.schedulerWait(config.options());
    int slots = runtime.totalSlots();
    int maxTasks = DistributedSettings.maxTasks(config);
    int cap = maxTasks == 0 ? slots : Math.min(slots, maxTasks);
    config.set(
        DefaultQueryPlanner.COLLECT_BUILD_THRESHOLD_ROWS,
        Long.toString(broadcastThresholdRows(config, Math.min(runtime.aliveExecutors(), cap))));
    config.withTargetPartitions(cap);
    ExecutionPlan local = inner.createPhysicalPlan(plan, with(context, config));
    long bytes = ScanBytes.of(local);
    if (bytes > 0) {
      long perTask = DistributedSettings.bytesPerTask(config);
      int tasks = (int) Math.max(1, Math.min(cap, (bytes + perTask - 1) / perTask));
      if (tasks != config.targetPartitions()) {
        config.withTargetPartitions(tasks);
        local = inner.createPhysicalPlan(plan, with(context, config));
      }
    }
    long maxShipped = maxShippedBytes(config);
    // Each stage plan is encoded once: to find exchanges computing the same stage, then to ship it.
    Map<ExecutionPlan, Encoded> encoded = new IdentityHashMap<>();
    Function<StagePlan, byte[]> encode =
        stage -> {
          Encoded done = encoded.get(stage.root());
          if (done != null && done.output().equals(stage.output())) {
            return done.bytes();
          }
          byte[] stageBytes = encoder.encode(stage, maxShipped);
          encoded.put(stage.root(), new Encoded(stage.output(), stageBytes));
          return stageBytes;
        };
    if (StagePlanner.isSingleTask(local) && DistributedSettings.localSingleTaskPlans(config)) {
      return local;
    }
    StageGraph graph =
        StagePlanner.plan(local, DistributedSettings.reuseExchanges(config) ? encode : null);
    Optional<QueryScope> scope = QueryScope.current();
    String name = scope.map(QueryScope::text).orElse("query");
    return new DistributedQueryExec(
        graph,
        job(graph, config, name, scope.map(QueryScope::user).orElse(""), encode),
        runtime,
        scope.map(QueryScope::sink).orElse(progress -> {}));
  }

  /**
   * The largest build side broadcast to the probe tasks: the session's {@link
   * DistributedSettings#BROADCAST_THRESHOLD_ROWS}, else the binding's collect threshold divided by
   * the executors that run the probe tasks. In one process a gathered build side is hashed once and
   * shared; broadcast, it is sent to and hashed by every executor, so {@code executors} copies cost
   * what one table of that many times the rows does in one process (TPC-H SF 10 on two executors:
   * q10's and q18's 1.5M customers hashed twice cost more than shuffling both sides). Sides that
   * turn out small at run time are still broadcast by adaptive execution.
   */
  static long broadcastThresholdRows(SessionConfig config, int executors) {
    Long set = config.get(DistributedSettings.BROADCAST_THRESHOLD_ROWS_SETTING);
    if (set != null) {
      return set;
    }
    return config.get(BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS) / Math.max(1, executors);
  }

  /** A stage plan's root encoded for {@code output}. */
  private record Encoded(Partitioning output, byte[] bytes) {}

  /** Longest job name sent: the scheduler keeps and shows it for every recent job. */
  static final int MAX_NAME_CHARS = 8_192;

  private long maxShippedBytes(SessionConfig config) {
    String limit = config.get(maxShippedBytesKey);
    return limit == null ? defaultMaxShippedBytes : SessionConfig.parseBytes(limit);
  }

  private JobSpec job(
      StageGraph graph,
      SessionConfig config,
      String name,
      String user,
      Function<StagePlan, byte[]> encode) {
    JobSpec.Builder job =
        JobSpec.newBuilder()
            .setName(
                name.length() > MAX_NAME_CHARS ? name.substring(0, MAX_NAME_CHARS) + "…" : name)
            .setFinalStageId(graph.finalStage().id())
            // A server's client, else as Trino's CLI does: the OS user of the submitting process.
            // The scheduler believes it only from a trusted front end (the cluster role).
            .setUser(user.isEmpty() ? System.getProperty("user.name", "") : user)
            .putAllSettings(config.options())
            // The scheduler carries no settings registry of the engine's: it learns them here.
            .addAllSecretSettings(
                config.options().keySet().stream().filter(SessionConfig::isSecret).toList());
    boolean stealing = DistributedSettings.splitStealing(config);
    long filterBytes = config.get(DistributedSettings.RUNTIME_FILTER_BYTES_SETTING);
    long filterRows = config.get(DistributedSettings.RUNTIME_FILTER_ROWS_SETTING);
    Map<Integer, RuntimeFilters.Filter> filters =
        (filterBytes > 0 || filterRows > 0) && config.get(DistributedSettings.ADAPTIVE_SETTING)
            ? RuntimeFilters.of(graph)
            : Map.of();
    // The Bloom filters each stage's tasks build for the stages they filter.
    Map<Integer, List<KeyFilterBuild>> builds = new HashMap<>();
    if (filterRows > 0) {
      for (RuntimeFilters.Filter f : filters.values()) {
        if (f.bloomRoot() != null) {
          builds
              .computeIfAbsent(f.keysStageId(), k -> new ArrayList<>())
              .add(
                  KeyFilterBuild.newBuilder()
                      .setFilterId(f.stageId())
                      .addAllKeys(PlanCodec.encodeExprs(f.keys()))
                      .setBits(bloomBits(filterRows))
                      .setTasks(graph.stage(f.keysStageId()).taskCount())
                      .build());
        }
      }
    }
    for (Stage s : graph.stages()) {
      StageSpec.Builder stage =
          StageSpec.newBuilder()
              .setStageId(s.id())
              .setTaskCount(s.taskCount())
              .addAllInputStageIds(s.inputStageIds())
              .setOutputPartitions(s.output().partitionCount())
              .setPartitioning(s.output().toString())
              .setBoundary(s.boundary().toString())
              .setPlanText(StageGraph.planText(s.root()))
              .setPlan(com.google.protobuf.ByteString.copyFrom(encode.apply(s.plan())));
      if (s.outputRowLimit() >= 0) {
        stage.setOutputRowLimit(s.outputRowLimit());
      }
      if (config.get(DistributedSettings.ADAPTIVE_SETTING)) {
        AdaptiveShapes.of(s, graph).ifPresent(shape -> stage.setAdaptive(adaptive(shape, config)));
      }
      if (stealing) {
        stage.addAllScanSplits(SplitStealing.of(s));
      }
      stage.addAllKeyFilterBuilds(builds.getOrDefault(s.id(), List.of()));
      RuntimeFilters.Filter filter = filters.get(s.id());
      if (filter != null) {
        StagePlan filtered = new StagePlan(filter.filteredRoot(), s.output());
        RuntimeFilterSpec.Builder spec =
            RuntimeFilterSpec.newBuilder()
                .setInputStageId(filter.keysStageId())
                .setPlan(com.google.protobuf.ByteString.copyFrom(encode.apply(filtered)))
                .setMaxBytes(filterBytes)
                .setPlanText(StageGraph.planText(filter.filteredRoot()));
        if (filter.bloomRoot() != null && filterRows > 0) {
          StagePlan bloom = new StagePlan(filter.bloomRoot(), s.output());
          spec.setBloomPlan(com.google.protobuf.ByteString.copyFrom(encode.apply(bloom)))
              .setBloomPlanText(StageGraph.planText(filter.bloomRoot()))
              .setBloomMaxRows(filterRows);
        }
        stage.addInputStageIds(filter.keysStageId()).setRuntimeFilter(spec);
      }
      job.addStages(stage);
    }
    return job.build();
  }

  /**
   * Bits of the Bloom filter a task builds for a runtime filter of at most {@code rows} keys: eight
   * a key, which the task folds down to its own rows' share when it finishes.
   */
  static long bloomBits(long rows) {
    return Math.min(1L << 28, Math.max(1L << 16, 8 * rows));
  }

  /** What the scheduler may change in a stage of {@code shape}, with the session's thresholds. */
  private static AdaptiveSpec adaptive(AdaptiveShapes.Shape shape, SessionConfig config) {
    return AdaptiveSpec.newBuilder()
        .addAllAlignedInputs(shape.aligned())
        .addAllSplittableInputs(shape.splittable())
        .setMinPartitionBytes(config.get(DistributedSettings.ADAPTIVE_MIN_PARTITION_BYTES_SETTING))
        .setSkewFactor(config.get(DistributedSettings.ADAPTIVE_SKEW_FACTOR_SETTING))
        .setSkewMinBytes(config.get(DistributedSettings.ADAPTIVE_SKEW_MIN_BYTES_SETTING))
        .setBroadcastBytes(config.get(DistributedSettings.ADAPTIVE_BROADCAST_BYTES_SETTING))
        .build();
  }

  private static PlanningContext with(PlanningContext context, SessionConfig config) {
    List<PhysicalOptimizerRule> rules = context.physicalOptimizerRules();
    return new PlanningContext() {
      @Override
      public SessionConfig config() {
        return config;
      }

      @Override
      public List<PhysicalOptimizerRule> physicalOptimizerRules() {
        return rules;
      }

      @Override
      public ExecutionPlan finish(ExecutionPlan plan) {
        return context.finish(plan);
      }
    };
  }
}
