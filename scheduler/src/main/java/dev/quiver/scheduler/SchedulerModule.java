package dev.quiver.scheduler;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.scheduler.config.SchedulerConfig;

/**
 * Guice wiring of a scheduler process: its configuration and the {@link SchedulerLifecycle} that
 * starts the server. The module does no I/O; the server starts on {@link SchedulerLifecycle#start}.
 */
public final class SchedulerModule extends AbstractModule {
  private final SchedulerConfig config;
  private final GrpcTransport transport;

  /** Wires a scheduler with {@code config}, serving and calling executors over TCP. */
  public SchedulerModule(SchedulerConfig config) {
    this(config, GrpcTransport.NETTY);
  }

  /** Wires a scheduler with {@code config} on {@code transport} (in-process in unit tests). */
  public SchedulerModule(SchedulerConfig config, GrpcTransport transport) {
    this.config = config;
    this.transport = transport;
  }

  @Provides
  SchedulerConfig config() {
    return config;
  }

  @Provides
  @Singleton
  SchedulerLifecycle lifecycle(SchedulerConfig config) {
    return new SchedulerLifecycle(config, transport);
  }
}
