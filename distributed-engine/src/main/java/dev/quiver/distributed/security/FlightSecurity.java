package dev.quiver.distributed.security;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.wire.StrictRequests;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightConstants;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.ServerHeaderMiddleware;
import org.apache.arrow.flight.auth.ServerAuthHandler;
import org.apache.arrow.flight.auth.ServerAuthInterceptor;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;
import org.apache.arrow.flight.auth2.ServerCallHeaderAuthMiddleware;
import org.apache.arrow.flight.grpc.ServerBackpressureThresholdInterceptor;
import org.apache.arrow.flight.grpc.ServerInterceptorAdapter;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Applies a {@link SecurityConfig} to Arrow Flight servers and clients: TLS and the token. */
public final class FlightSecurity {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSecurity.class);

  private static final FlightServerMiddleware.Key<TokenMiddleware> TOKEN_KEY =
      FlightServerMiddleware.Key.of("quiver-token");

  private FlightSecurity() {}

  /** The location a Flight server of this config listens on ({@code grpc+tls} with TLS). */
  public static Location serverLocation(String host, int port, SecurityConfig security) {
    return security.serverTls()
        ? Location.forGrpcTls(host, port)
        : Location.forGrpcInsecure(host, port);
  }

  /**
   * A Flight server builder serving TLS when the config has a certificate and rejecting calls
   * without the token (UNAUTHENTICATED) when one is set.
   */
  public static FlightServer.Builder secure(FlightServer.Builder builder, SecurityConfig security) {
    if (security.serverTls()) {
      try {
        builder.useTls(
            new ByteArrayInputStream(security.certChain().bytes()),
            new ByteArrayInputStream(security.privateKey().bytes()));
      } catch (IOException e) {
        throw new QuiverException(
            "Cannot serve Flight over TLS with "
                + security.certChain().source()
                + ": "
                + e.getMessage(),
            e);
      }
    }
    if (security.hasToken()) {
      // DoGet (the only Flight call served) is open to clients and the cluster alike; the job
      // capability in its ticket decides which data a caller reads.
      Tokens tokens = security.acceptedTokens();
      builder.middleware(
          TOKEN_KEY, (info, headers, context) -> check(tokens, info, headers, Tokens.REJECTED));
    }
    return builder;
  }

  /** Flight's outbound backpressure threshold, as {@link FlightServer.Builder} sets it. */
  private static final int BACKPRESSURE_THRESHOLD_BYTES = 10 * 1024 * 1024;

  /**
   * Adds the Flight service of {@code producer} to a gRPC server {@code builder} that something
   * other than Flight built (an in-process one in tests), wired as {@link FlightServer.Builder}
   * wires it on Netty: calls run on {@code executor}, Flight's 10 MiB outbound backpressure
   * threshold, no Flight auth handler, and over every service of the server Flight's own server
   * middleware (call headers, header authentication that accepts all) after {@link #secure}'s token
   * check when the config has a token. TLS and message limits are the builder's.
   */
  public static void addFlightService(
      ServerBuilder<?> builder,
      BufferAllocator allocator,
      FlightProducer producer,
      ExecutorService executor,
      SecurityConfig security) {
    addFlightService(builder, allocator, producer, executor, security, List.of());
  }

  /**
   * As above, with the producer's own {@code middleware} after the token check. Requests that are
   * not the method's message are refused with INVALID_ARGUMENT ({@link StrictRequests}), not
   * Flight's UNKNOWN.
   */
  public static void addFlightService(
      ServerBuilder<?> builder,
      BufferAllocator allocator,
      FlightProducer producer,
      ExecutorService executor,
      SecurityConfig security,
      List<ServerInterceptorAdapter.KeyFactory<?>> producerMiddleware) {
    addFlightService(
        builder, allocator, producer, executor, security, producerMiddleware, Tokens.REJECTED);
  }

  /**
   * As above, answering a call without an accepted token with {@code rejection}: what the server's
   * own clients configure (a JDBC user sets {@code token=} in the URL, not cluster flags). It must
   * not quote any token.
   */
  public static void addFlightService(
      ServerBuilder<?> builder,
      BufferAllocator allocator,
      FlightProducer producer,
      ExecutorService executor,
      SecurityConfig security,
      List<ServerInterceptorAdapter.KeyFactory<?>> producerMiddleware,
      String rejection) {
    List<ServerInterceptorAdapter.KeyFactory<?>> middleware = new ArrayList<>();
    if (security.hasToken()) {
      Tokens tokens = security.acceptedTokens();
      middleware.add(
          new ServerInterceptorAdapter.KeyFactory<>(
              TOKEN_KEY, (info, headers, context) -> check(tokens, info, headers, rejection)));
    }
    middleware.addAll(producerMiddleware);
    middleware.add(
        new ServerInterceptorAdapter.KeyFactory<>(
            FlightServerMiddleware.Key.of(Auth2Constants.AUTHORIZATION_HEADER),
            new ServerCallHeaderAuthMiddleware.Factory(CallHeaderAuthenticator.NO_OP)));
    middleware.add(
        new ServerInterceptorAdapter.KeyFactory<>(
            FlightConstants.HEADER_KEY, new ServerHeaderMiddleware.Factory()));
    builder
        .executor(executor)
        .addService(
            ServerInterceptors.intercept(
                StrictRequests.of(
                    FlightGrpcUtils.createFlightService(
                            allocator, producer, ServerAuthHandler.NO_OP, executor)
                        .bindService()),
                new ServerBackpressureThresholdInterceptor(BACKPRESSURE_THRESHOLD_BYTES),
                new ServerAuthInterceptor(ServerAuthHandler.NO_OP)))
        .intercept(new ServerInterceptorAdapter(middleware));
  }

  private static TokenMiddleware check(
      Tokens tokens, CallInfo info, CallHeaders headers, String rejection) {
    if (!tokens.matches(headers.get(Tokens.HEADER))) {
      LOG.warn("rejected Flight {}: missing or invalid token", info.method());
      throw CallStatus.UNAUTHENTICATED.withDescription(rejection).toRuntimeException();
    }
    return TokenMiddleware.INSTANCE;
  }

  /**
   * A Flight client to {@code host:port} with this config's TLS and token. Its connection sends
   * HTTP/2 keepalive pings while a call waits for data, so a read from a server that stopped
   * answering (a hung or SIGSTOPped process, a dead host whose TCP connection never closes) fails
   * with UNAVAILABLE after {@link GrpcSecurity#KEEPALIVE} plus {@link
   * GrpcSecurity#KEEPALIVE_TIMEOUT} instead of waiting forever.
   */
  public static FlightClient connect(
      BufferAllocator allocator, String host, int port, SecurityConfig security) {
    return FlightGrpcUtils.createFlightClient(
        allocator,
        GrpcSecurity.channelBuilder(host, port, security)
            .maxInboundMessageSize(Integer.MAX_VALUE)
            .build());
  }

  /** Nothing to do per call once the token matched. */
  private static final class TokenMiddleware implements FlightServerMiddleware {
    static final TokenMiddleware INSTANCE = new TokenMiddleware();

    @Override
    public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {}

    @Override
    public void onCallCompleted(CallStatus status) {}

    @Override
    public void onCallErrored(Throwable err) {}
  }
}
