package dev.quiver.distributed;

import dev.quiver.binding.Extension;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.codec.PlanCodec;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes a plain session's queries run on a cluster, without Guice: {@code new
 * SessionContext().withExtensions(DistributedExtension.connect(config))}. It installs a planner
 * that wraps the session's own and cuts plans into stages.
 */
public final class DistributedExtension implements Extension, AutoCloseable {
  private final ClusterRuntime runtime;
  private final boolean ownsRuntime;
  // Building a codec scans the class path for NodeCodec plug-ins: do it once per shipping limit,
  // not for every stage of every query.
  private final Map<Long, PlanCodec> codecs = new ConcurrentHashMap<>();

  private DistributedExtension(ClusterRuntime runtime, boolean ownsRuntime) {
    this.runtime = runtime;
    this.ownsRuntime = ownsRuntime;
  }

  /** An extension with its own connection to the cluster of {@code config} (closed with it). */
  public static DistributedExtension connect(ClusterConfig config) {
    return new DistributedExtension(new ClusterRuntime(config), true);
  }

  /** An extension over a shared connection (the caller closes {@code runtime}). */
  public static DistributedExtension over(ClusterRuntime runtime) {
    return new DistributedExtension(runtime, false);
  }

  /** The cluster connection. */
  public ClusterRuntime runtime() {
    return runtime;
  }

  @Override
  public QueryPlanner queryPlanner(QueryPlanner current) {
    return new DistributedQueryPlanner(
        current,
        runtime,
        (stage, maxShipped) ->
            codecs.computeIfAbsent(maxShipped, PlanCodec::new).encodeStage(stage),
        PlanCodec.MAX_SHIPPED_BYTES,
        PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
  }

  @Override
  public void close() {
    if (ownsRuntime) {
      runtime.close();
    }
  }
}
