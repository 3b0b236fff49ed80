package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.security.GrpcSecurity;
import dev.quiver.distributed.security.SecurityConfig;
import io.grpc.ManagedChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One gRPC channel per executor to its ExecutorControl service (on the Flight port). */
final class ExecutorClients implements AutoCloseable {

  private record Client(String host, int port, ManagedChannel channel) {}

  private final Map<String, Client> clients = new HashMap<>();
  private final long deadlineMillis;
  private final SecurityConfig security;

  ExecutorClients(long deadlineMillis, SecurityConfig security) {
    this.deadlineMillis = deadlineMillis;
    this.security = security;
  }

  /** An async stub with a deadline, on a channel to the executor's current address. */
  synchronized ExecutorControlGrpc.ExecutorControlStub stub(ExecutorInfo info) {
    Client c = clients.get(info.getExecutorId());
    if (c != null && (!c.host().equals(info.getHost()) || c.port() != info.getFlightPort())) {
      c.channel().shutdownNow();
      c = null;
    }
    if (c == null) {
      ManagedChannel channel =
          GrpcSecurity.channelBuilder(info.getHost(), info.getFlightPort(), security).build();
      c = new Client(info.getHost(), info.getFlightPort(), channel);
      clients.put(info.getExecutorId(), c);
    }
    return ExecutorControlGrpc.newStub(c.channel())
        .withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS);
  }

  /** Drops the channel to an executor (lost, or re-registered elsewhere). */
  synchronized void forget(String executorId) {
    Client c = clients.remove(executorId);
    if (c != null) {
      c.channel().shutdownNow();
    }
  }

  @Override
  public synchronized void close() {
    for (Client c : clients.values()) {
      c.channel().shutdownNow();
    }
    for (Client c : clients.values()) {
      try {
        c.channel().awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    clients.clear();
  }
}
