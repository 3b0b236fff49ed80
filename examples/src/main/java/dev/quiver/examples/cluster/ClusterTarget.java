package dev.quiver.examples.cluster;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.distributed.ClusterDistribution;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.cluster.EmbeddedCluster;
import dev.quiver.distributed.security.SecurityConfig;

/**
 * Where a command's queries run: in this process (the plain binding), on an embedded cluster of N
 * executors started for the command, or on a running cluster. Closing it stops what it started.
 */
public final class ClusterTarget implements AutoCloseable {
  private final ClusterLifecycle lifecycle;
  private final ClusterRuntime runtime;
  private final ClusterDistribution distribution;
  private final String description;
  private final java.util.function.Supplier<String> more;

  private ClusterTarget(ClusterLifecycle lifecycle, String description) {
    this(lifecycle, description, () -> "");
  }

  private ClusterTarget(
      ClusterLifecycle lifecycle, String description, java.util.function.Supplier<String> more) {
    this.lifecycle = lifecycle;
    this.description = description;
    this.more = more;
    if (lifecycle == null) {
      this.runtime = null;
      this.distribution = null;
    } else {
      try {
        this.runtime = lifecycle.start();
      } catch (RuntimeException e) {
        lifecycle.close();
        throw e;
      }
      this.distribution = new ClusterDistribution(runtime);
    }
  }

  /** Queries run in this process. */
  public static ClusterTarget local() {
    return new ClusterTarget(null, "this process");
  }

  /** Starts an embedded cluster of {@code executors} executors. */
  public static ClusterTarget embedded(int executors) {
    return embedded(executors, -1);
  }

  /**
   * Starts an embedded cluster of {@code executors} executors whose scheduler serves HTTP (web UI,
   * jobs API, metrics) on 127.0.0.1:{@code httpPort} (0: a free port; -1: none).
   */
  public static ClusterTarget embedded(int executors, int httpPort) {
    return embedded(executors, httpPort, SecurityConfig.none());
  }

  /**
   * As {@link #embedded(int, int)}, with every port of the cluster (the scheduler's gRPC and HTTP,
   * the executors') requiring the tokens of {@code security}.
   */
  public static ClusterTarget embedded(int executors, int httpPort, SecurityConfig security) {
    EmbeddedCluster cluster = EmbeddedCluster.sharingCores(executors, security);
    if (httpPort != -1) {
      cluster = cluster.withHttp(httpPort);
    }
    EmbeddedCluster started = cluster;
    return new ClusterTarget(
        ClusterLifecycle.embedded(cluster),
        "an embedded cluster of " + executors + " executors",
        () ->
            httpPort == -1
                ? ""
                : ", web UI on http://127.0.0.1:" + started.schedulerHttpPort() + "/");
  }

  /** Connects to the scheduler at {@code target} ("host:port"). */
  public static ClusterTarget remote(String target) {
    return remote(ClusterConfig.remote(target));
  }

  /** Connects to the cluster of {@code config} (address, TLS and token). */
  public static ClusterTarget remote(ClusterConfig config) {
    return new ClusterTarget(ClusterLifecycle.remote(config), "the cluster at " + config.target());
  }

  /** Whether queries run on a cluster. */
  public boolean distributed() {
    return runtime != null;
  }

  /** The cluster connection (null when local). */
  public ClusterRuntime runtime() {
    return runtime;
  }

  /** A new session on this target. */
  public SessionContext newSession(SessionConfig config) {
    return runtime == null
        ? new SessionContext(config)
        : new DistributedSessionContext(config, distribution);
  }

  /** A short description, e.g. "an embedded cluster of 2 executors". */
  public String describe() {
    return description + more.get();
  }

  @Override
  public void close() {
    if (lifecycle != null) {
      lifecycle.close();
    }
  }
}
