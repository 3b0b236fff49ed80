package dev.quiver.scheduler;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.quiver.scheduler.config.SchedulerConfig;

/**
 * Guice wiring of a scheduler process: its configuration and the {@link SchedulerLifecycle} that
 * starts the server. The module does no I/O; the server starts on {@link SchedulerLifecycle#start}.
 */
public final class SchedulerModule extends AbstractModule {
  private final SchedulerConfig config;

  /** Wires a scheduler with {@code config}. */
  public SchedulerModule(SchedulerConfig config) {
    this.config = config;
  }

  @Provides
  SchedulerConfig config() {
    return config;
  }

  @Provides
  @Singleton
  SchedulerLifecycle lifecycle(SchedulerConfig config) {
    return new SchedulerLifecycle(config);
  }
}
