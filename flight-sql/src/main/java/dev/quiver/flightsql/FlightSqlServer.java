package dev.quiver.flightsql;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.sql.SessionState;
import dev.quiver.distributed.security.ClientUsers;
import dev.quiver.distributed.security.FlightSecurity;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.wire.WireProtocol;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.grpc.ServerInterceptorAdapter;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Arrow Flight SQL server over one Quiver catalog: every client connection gets its own session
 * ({@code SET} is per client) over the catalog's tables, which every client sees (tables given at
 * start and those created by DDL). Queries run wherever the catalog session runs them: in process,
 * or on a cluster when it is a distributed session. The Arrow Flight SQL JDBC driver connects with
 * {@code jdbc:arrow-flight-sql://HOST:PORT/?useEncryption=false} (with TLS: {@code
 * useEncryption=true}, and the cluster token as {@code token=...}).
 */
public final class FlightSqlServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlServer.class);

  /**
   * How the server listens and whom it serves.
   *
   * @param host address to bind (127.0.0.1 keeps it to this machine)
   * @param port port to bind, 0 for any free one
   * @param security TLS certificate and key, and the token every call must carry
   * @param sessionIdle how long a client session lives without calls
   * @param executorEndpoints whether distributed results are read from the executors by default (a
   *     session may say otherwise with {@code SET quiver.flight_sql.executor_endpoints})
   * @param clientUsers whom a client's queries run as: its token's user, or under a trusted front
   *     end the user name it sends
   */
  public record Options(
      String host,
      int port,
      SecurityConfig security,
      Duration sessionIdle,
      boolean executorEndpoints,
      ClientUsers clientUsers) {
    /** As the canonical constructor, each client running as its token's user. */
    public Options(
        String host,
        int port,
        SecurityConfig security,
        Duration sessionIdle,
        boolean executorEndpoints) {
      this(host, port, security, sessionIdle, executorEndpoints, ClientUsers.FROM_TOKEN);
    }

    /** Loopback, the given port, no TLS or token, sessions kept for an hour without calls. */
    public static Options loopback(int port) {
      return new Options("127.0.0.1", port, SecurityConfig.none(), Duration.ofHours(1), false);
    }

    /** A copy with {@code security}. */
    public Options withSecurity(SecurityConfig security) {
      return new Options(host, port, security, sessionIdle, executorEndpoints, clientUsers);
    }

    /** A copy whose clients run as {@code users} says. */
    public Options withClientUsers(ClientUsers users) {
      return new Options(host, port, security, sessionIdle, executorEndpoints, users);
    }
  }

  private final BufferAllocator allocator;
  private final ClientSessions sessions;
  private final QuiverSqlProducer producer;
  private final Server server;
  private final ExecutorService calls =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "quiver-flight-sql-call");
            t.setDaemon(true);
            return t;
          });
  private final ScheduledExecutorService janitor;
  private final Options options;
  private boolean closed;

  /** What a client without the server's token is told: what it sets, never a token. */
  static final String REJECTED =
      "unauthenticated: missing or invalid token: this Quiver server needs a token it knows on"
          + " every call (quiver serve --token-file, or your user's of --users-file); JDBC: add token=<the token> to the URL"
          + " (jdbc:arrow-flight-sql://HOST:PORT/?token=...) or set the driver's token property;"
          + " ADBC and Flight SQL clients: send the header authorization: Bearer <the token>";

  private FlightSqlServer(SessionContext catalog, Options options, String version) {
    this.options = options;
    this.allocator =
        SessionState.rootAllocator().newChildAllocator("flight-sql-server", 0, Long.MAX_VALUE);
    this.sessions = new ClientSessions(catalog, options.sessionIdle());
    this.producer =
        new QuiverSqlProducer(
            allocator,
            version,
            options.executorEndpoints(),
            catalog.config().get(BindingSettings.MAX_STATEMENT_BYTES));
    // Built as Flight builds its servers, with requests parsed where a malformed one can be
    // answered with INVALID_ARGUMENT (Flight's own server answers UNKNOWN and logs a stack trace).
    // Tokens are checked by the Flight middleware below, which also takes Basic logins (a user
    // name with a token), so the gRPC builder brings TLS only.
    ServerBuilder<?> builder =
        GrpcTransport.NETTY
            .serverBuilder(options.host(), options.port(), options.security().tlsOnly())
            // Flight's default (2 GiB) would let one call hold that much memory.
            .maxInboundMessageSize(WireProtocol.MAX_MESSAGE_BYTES)
            .maxInboundMetadataSize(WireProtocol.MAX_HEADER_LIST_BYTES);
    FlightSecurity.addFlightService(
        builder,
        allocator,
        producer,
        calls,
        options.security(),
        List.of(new ServerInterceptorAdapter.KeyFactory<>(ClientSessions.KEY, sessions)),
        REJECTED,
        options.clientUsers());
    this.server = builder.build();
    this.janitor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "quiver-flight-sql-sessions");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts a server over {@code catalog}'s tables; the caller keeps owning {@code catalog} and
   * closes it after this server.
   *
   * @param version the server version clients are told (GetSqlInfo)
   */
  public static FlightSqlServer start(SessionContext catalog, Options options, String version) {
    FlightSqlServer s = new FlightSqlServer(catalog, options, version);
    try {
      s.server.start();
    } catch (IOException e) {
      s.close();
      throw new QuiverException(
          "Cannot listen on " + options.host() + ":" + options.port() + ": " + e.getMessage(), e);
    }
    long every = Math.max(1, Math.min(60, options.sessionIdle().toSeconds() / 4));
    s.janitor.scheduleWithFixedDelay(s::expire, every, every, TimeUnit.SECONDS);
    return s;
  }

  private void expire() {
    try {
      int closed = sessions.expireIdle();
      if (closed > 0) {
        LOG.info("closed {} idle client sessions", closed);
      }
      Set<String> open = new HashSet<>(sessions.ids());
      producer.forgetSessions(open, options.sessionIdle().toNanos());
    } catch (RuntimeException e) {
      LOG.warn("expiring client sessions failed", e);
    }
  }

  /** The port the server listens on. */
  public int port() {
    return server.getPort();
  }

  /** The address the server listens on. */
  public String host() {
    return options.host();
  }

  /** Blocks until the server stops. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /** Stops accepting calls, cancels running queries and closes every client session. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    janitor.shutdownNow();
    producer.close();
    try {
      server.shutdown();
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("stopping the Flight SQL server failed: {}", e.getMessage());
    }
    calls.shutdownNow();
    sessions.close();
    allocator.close();
  }
}
