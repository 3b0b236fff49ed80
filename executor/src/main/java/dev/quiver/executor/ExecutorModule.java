package dev.quiver.executor;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.quiver.distributed.transport.GrpcTransport;

/**
 * Guice wiring of an executor process: its configuration and the {@link ExecutorLifecycle} that
 * creates its root allocator and starts the server with the plan codec. The module does no I/O; the
 * server starts on {@link ExecutorLifecycle#start}.
 */
public final class ExecutorModule extends AbstractModule {
  private final ExecutorConfig config;
  private final GrpcTransport transport;

  /** Wires an executor with {@code config}, serving and calling over TCP. */
  public ExecutorModule(ExecutorConfig config) {
    this(config, GrpcTransport.NETTY);
  }

  /** Wires an executor with {@code config} on {@code transport} (in-process in unit tests). */
  public ExecutorModule(ExecutorConfig config, GrpcTransport transport) {
    this.config = config;
    this.transport = transport;
  }

  @Provides
  ExecutorConfig config() {
    return config;
  }

  @Provides
  @Singleton
  ExecutorLifecycle lifecycle(ExecutorConfig config) {
    return new ExecutorLifecycle(config, transport);
  }
}
