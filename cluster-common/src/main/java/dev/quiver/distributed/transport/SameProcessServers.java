package dev.quiver.distributed.transport;

import dev.quiver.distributed.security.SecurityConfig;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The scheduler's and executors' control services as reached from the same process (an embedded
 * cluster): besides its TCP port, a server registers an in-process copy of its control services
 * under its {@code host:port}, and a channel to that address made in this process takes the copy. A
 * call then runs its handler on the caller's thread instead of crossing two Netty event loops and a
 * gRPC worker thread each way: on two cores those thread wake-ups cost milliseconds per task launch
 * and per task report, on every stage's critical path. Only plaintext servers without a token are
 * mirrored (no TLS or token check is bypassed). Shuffle data between such executors skips Arrow
 * Flight altogether (the executor's {@code SameProcessStores}).
 */
public final class SameProcessServers {
  private static final Map<String, String> NAMES = new ConcurrentHashMap<>();

  private SameProcessServers() {}

  /** A started in-process copy of a server's control services; {@link #close} withdraws it. */
  public static final class Mirror implements AutoCloseable {
    private final List<String> keys;
    private final String name;
    private final Server server;

    private Mirror(List<String> keys, String name, Server server) {
      this.keys = keys;
      this.name = name;
      this.server = server;
    }

    @Override
    public void close() {
      keys.forEach(k -> NAMES.remove(k, name));
      server.shutdownNow();
      try {
        server.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Serves {@code services} in this process for channels to {@code port} on any of {@code hosts}
   * (the names the server listens and is advertised on); null (nothing started) when {@code
   * security} asks for TLS or a token. A call whose full method name {@code inline} accepts runs on
   * the caller's thread (its handler must not block on what that caller may hold); the others run
   * on {@code others}.
   */
  public static Mirror mirror(
      List<String> hosts,
      int port,
      SecurityConfig security,
      List<ServerServiceDefinition> services,
      Predicate<String> inline,
      Executor others)
      throws IOException {
    if (!mirrors(security)) {
      return null;
    }
    List<String> keys = hosts.stream().distinct().map(h -> h + ":" + port).toList();
    // Named after the address, not uniquely: a channel made to a server that then restarted at the
    // same address finds the new one when it reconnects, as a TCP channel would (only one server
    // can hold an address at a time).
    String name = "quiver-same-process/" + keys.get(0);
    // The server's own executor runs every call's start (gRPC looks the method up there before
    // asking the supplier), so it is the caller's thread; the supplier moves the others off it.
    InProcessServerBuilder b = InProcessServerBuilder.forName(name).directExecutor();
    b.callExecutor(
        new ServerCallExecutorSupplier() {
          @Override
          public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata m) {
            return inline.test(call.getMethodDescriptor().getFullMethodName()) ? null : others;
          }
        });
    services.forEach(b::addService);
    Server server = b.build().start();
    keys.forEach(k -> NAMES.put(k, name));
    return new Mirror(keys, name, server);
  }

  /**
   * A channel builder to the in-process copy of the server at {@code host:port}, or null when this
   * process serves none there (or {@code security} asks for TLS or a token).
   */
  public static ManagedChannelBuilder<?> channelBuilder(
      String host, int port, SecurityConfig security) {
    String name = mirrors(security) ? NAMES.get(host + ":" + port) : null;
    // Answers are handled on gRPC's threads, as over TCP: a caller's callback never runs inside the
    // call that triggers it.
    return name == null ? null : InProcessChannelBuilder.forName(name);
  }

  /** Whether a server with {@code security} is reached in-process: plaintext without a token. */
  public static boolean mirrors(SecurityConfig security) {
    return !security.serverTls() && !security.clientTls() && !security.hasToken();
  }
}
