package dev.quiver.executor;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;

/**
 * Guice wiring of an executor process: its configuration and the {@link ExecutorLifecycle} that
 * creates its root allocator and starts the server with the plan codec. The module does no I/O; the
 * server starts on {@link ExecutorLifecycle#start}.
 */
public final class ExecutorModule extends AbstractModule {
  private final ExecutorConfig config;

  /** Wires an executor with {@code config}. */
  public ExecutorModule(ExecutorConfig config) {
    this.config = config;
  }

  @Provides
  ExecutorConfig config() {
    return config;
  }

  @Provides
  @Singleton
  ExecutorLifecycle lifecycle(ExecutorConfig config) {
    return new ExecutorLifecycle(config);
  }
}
