package dev.quiver.distributed;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.decorators.Distribution;

/**
 * What both cluster modules bind: one {@link ClusterLifecycle} (which subclasses choose), the
 * {@link Distribution} over it, and a new {@link DistributedSessionContext} per injected {@link
 * SessionContext}.
 */
abstract class ClusterSessionModule extends AbstractModule {
  private final SessionConfig sessionConfig;

  ClusterSessionModule(SessionConfig sessionConfig) {
    this.sessionConfig = sessionConfig.copy();
  }

  /** The lifecycle of the cluster sessions run on; created once per injector, does no I/O. */
  abstract ClusterLifecycle newLifecycle();

  @Provides
  @Singleton
  ClusterLifecycle lifecycle() {
    return newLifecycle();
  }

  @Provides
  @Singleton
  Distribution distribution(ClusterLifecycle lifecycle) {
    return new LazyDistribution(lifecycle);
  }

  @Provides
  SessionContext session(Distribution distribution) {
    return new DistributedSessionContext(sessionConfig.copy(), distribution);
  }
}
