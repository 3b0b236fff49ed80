package dev.quiver.scheduler;

import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.scheduler.config.SchedulerConfig;
import java.io.IOException;

/** Starts the scheduler server once and stops it on close. */
public final class SchedulerLifecycle implements AutoCloseable {
  private final SchedulerConfig config;
  private final GrpcTransport transport;
  private SchedulerServer server;
  private boolean closed;

  /** A lifecycle for a scheduler with {@code config}; nothing starts yet. */
  public SchedulerLifecycle(SchedulerConfig config) {
    this(config, GrpcTransport.NETTY);
  }

  /** A lifecycle for a scheduler with {@code config} serving and calling over {@code transport}. */
  public SchedulerLifecycle(SchedulerConfig config, GrpcTransport transport) {
    this.config = config;
    this.transport = transport;
  }

  /** Starts the server (once) and returns it. */
  public synchronized SchedulerServer start() throws IOException {
    if (closed) {
      throw new IllegalStateException("the scheduler lifecycle was closed");
    }
    if (server == null) {
      server = SchedulerServer.start(config, transport);
    }
    return server;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (server != null) {
      server.close();
      server = null;
    }
  }
}
