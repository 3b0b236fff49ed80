package dev.quiver.distributed;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.distributed.client.ClusterConfig;

/**
 * Guice wiring for a running cluster: every injected {@link SessionContext} is a {@link
 * DistributedSessionContext} whose queries run on the scheduler of {@code config}. The module does
 * no I/O; the injected {@link ClusterLifecycle} connects when the first session is created and is
 * closed by the application at the end.
 */
public final class DistributedModule extends ClusterSessionModule {
  private final ClusterConfig config;

  /** Sessions with default settings on the cluster of {@code config}. */
  public DistributedModule(ClusterConfig config) {
    this(config, new SessionConfig());
  }

  /** Sessions with {@code sessionConfig} (copied per session) on the cluster of {@code config}. */
  public DistributedModule(ClusterConfig config, SessionConfig sessionConfig) {
    super(sessionConfig);
    this.config = config;
  }

  @Override
  ClusterLifecycle newLifecycle() {
    return ClusterLifecycle.remote(config);
  }
}
