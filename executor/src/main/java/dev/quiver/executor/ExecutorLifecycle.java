package dev.quiver.executor;

import dev.quiver.distributed.transport.GrpcTransport;
import java.io.IOException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Starts an executor once — a root allocator for its data and the server decoding tasks with the
 * plan codec ({@link ExecutorMain#stageDecoder}) — and stops both on close.
 */
public final class ExecutorLifecycle implements AutoCloseable {
  private final ExecutorConfig config;
  private final GrpcTransport transport;
  private BufferAllocator allocator;
  private ExecutorServer server;
  private boolean closed;

  /** A lifecycle for an executor with {@code config}; nothing starts yet. */
  public ExecutorLifecycle(ExecutorConfig config) {
    this(config, GrpcTransport.NETTY);
  }

  /**
   * A lifecycle for an executor with {@code config} serving and calling over {@code transport} (see
   * {@link ExecutorServer#start(ExecutorConfig, BufferAllocator,
   * ExecutorServer.StageDecoderFactory, GrpcTransport)}); nothing starts yet.
   */
  public ExecutorLifecycle(ExecutorConfig config, GrpcTransport transport) {
    this.config = config;
    this.transport = transport;
  }

  /** Starts the executor (once) and returns its server. */
  public synchronized ExecutorServer start() throws IOException {
    if (closed) {
      throw new IllegalStateException("the executor lifecycle was closed");
    }
    if (server == null) {
      allocator = new RootAllocator();
      try {
        server = ExecutorServer.start(config, allocator, ExecutorMain::stageDecoder, transport);
      } catch (IOException | RuntimeException e) {
        allocator.close();
        allocator = null;
        throw e;
      }
    }
    return server;
  }

  @Override
  public synchronized void close() {
    closed = true;
    try {
      if (server != null) {
        server.close();
      }
    } finally {
      server = null;
      if (allocator != null) {
        allocator.close();
        allocator = null;
      }
    }
  }
}
