package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.transport.GrpcTransport;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One gRPC channel per executor to its ExecutorControl service (on the Flight port). Channels
 * opened with {@link #connect} are watched: a connection that was up and breaks is reported at
 * once, so a killed executor is lost in milliseconds rather than after a heartbeat timeout.
 */
final class ExecutorClients implements AutoCloseable {

  /** One channel to one executor process; {@code generation} tells replaced channels apart. */
  private static final class Client {
    final String host;
    final int port;
    final ManagedChannel channel;
    final long generation;
    volatile boolean wasReady;

    Client(String host, int port, ManagedChannel channel, long generation) {
      this.host = host;
      this.port = port;
      this.channel = channel;
      this.generation = generation;
    }
  }

  private final Map<String, Client> clients = new HashMap<>();
  private final long deadlineMillis;
  private final SecurityConfig security;
  private final GrpcTransport transport;
  private long generations;

  ExecutorClients(long deadlineMillis, SecurityConfig security, GrpcTransport transport) {
    this.deadlineMillis = deadlineMillis;
    this.security = security;
    this.transport = transport;
  }

  /** An async stub with a deadline, on a channel to the executor's current address. */
  synchronized ExecutorControlGrpc.ExecutorControlStub stub(ExecutorInfo info) {
    return ExecutorControlGrpc.newStub(clientFor(info).channel)
        .withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS);
  }

  private Client clientFor(ExecutorInfo info) {
    Client c = clients.get(info.getExecutorId());
    if (c != null && (!c.host.equals(info.getHost()) || c.port != info.getFlightPort())) {
      c.channel.shutdownNow();
      c = null;
    }
    if (c == null) {
      ManagedChannel channel =
          transport.channelBuilder(info.getHost(), info.getFlightPort(), security).build();
      c = new Client(info.getHost(), info.getFlightPort(), channel, ++generations);
      clients.put(info.getExecutorId(), c);
    }
    return c;
  }

  /**
   * Connects to an executor now and watches the connection: once it has been up, a break that a
   * reconnect cannot repair calls {@code broken} with the executor id and the channel generation
   * (pass it to {@link #isCurrent}; the callback runs on a gRPC thread).
   */
  synchronized void connect(ExecutorInfo info, BiConsumer<String, Long> broken) {
    Client c = clientFor(info);
    ConnectivityState state = c.channel.getState(true);
    watch(info.getExecutorId(), c, state, broken);
  }

  private static void watch(
      String executorId, Client c, ConnectivityState seen, BiConsumer<String, Long> broken) {
    c.channel.notifyWhenStateChanged(
        seen,
        () -> {
          ConnectivityState now = c.channel.getState(false);
          switch (now) {
            case SHUTDOWN -> {
              return; // forgotten or closed: nothing to watch
            }
            case READY -> c.wasReady = true;
            case IDLE -> {
              // The connection went away (or idled): reconnect at once to learn which.
              now = c.channel.getState(true);
            }
            case TRANSIENT_FAILURE -> {
              if (c.wasReady) {
                broken.accept(executorId, c.generation);
                return;
              }
            }
            default -> {}
          }
          watch(executorId, c, now, broken);
        });
  }

  /** Whether {@code generation} is the channel the executor is reached on now. */
  synchronized boolean isCurrent(String executorId, long generation) {
    Client c = clients.get(executorId);
    return c != null && c.generation == generation;
  }

  /** The generation of the channel the executor is reached on now, or -1 without one. */
  synchronized long generation(String executorId) {
    Client c = clients.get(executorId);
    return c == null ? -1 : c.generation;
  }

  /** Drops the channel to an executor (lost, or re-registered elsewhere). */
  synchronized void forget(String executorId) {
    Client c = clients.remove(executorId);
    if (c != null) {
      c.channel.shutdownNow();
    }
  }

  @Override
  public synchronized void close() {
    for (Client c : clients.values()) {
      c.channel.shutdownNow();
    }
    for (Client c : clients.values()) {
      try {
        c.channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    clients.clear();
  }
}
