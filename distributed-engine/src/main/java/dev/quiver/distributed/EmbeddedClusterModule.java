package dev.quiver.distributed;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.cluster.EmbeddedCluster;
import dev.quiver.distributed.security.SecurityConfig;

/**
 * Guice wiring for a cluster inside this process: a scheduler and {@code n} executors on loopback
 * (the scheduler and executor modules must be on the classpath). The module does no I/O: the
 * injected {@link ClusterLifecycle} starts the servers when the first session is created (or on
 * {@link ClusterLifecycle#start()}) and stops them on close.
 */
public final class EmbeddedClusterModule extends ClusterSessionModule {
  private final int executors;
  private final SecurityConfig security;

  /** An embedded cluster of {@code executors} executors; sessions with default settings. */
  public EmbeddedClusterModule(int executors) {
    this(executors, new SessionConfig());
  }

  /** An embedded cluster of {@code executors} executors; sessions with {@code sessionConfig}. */
  public EmbeddedClusterModule(int executors, SessionConfig sessionConfig) {
    this(executors, sessionConfig, SecurityConfig.none());
  }

  /**
   * An embedded cluster whose servers and connections use {@code security} (TLS and token);
   * sessions with {@code sessionConfig}.
   */
  public EmbeddedClusterModule(
      int executors, SessionConfig sessionConfig, SecurityConfig security) {
    super(sessionConfig);
    this.executors = executors;
    this.security = security;
  }

  @Override
  ClusterLifecycle newLifecycle() {
    return ClusterLifecycle.embedded(EmbeddedCluster.sharingCores(executors, security));
  }
}
