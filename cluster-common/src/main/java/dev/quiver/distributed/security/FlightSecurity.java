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
import org.apache.arrow.flight.RequestContext;
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
          TOKEN_KEY,
          (info, headers, context) ->
              check(tokens, info, headers, context, Tokens.REJECTED, ClientUsers.FROM_TOKEN));
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
    addFlightService(
        builder,
        allocator,
        producer,
        executor,
        security,
        producerMiddleware,
        rejection,
        ClientUsers.FROM_TOKEN);
  }

  /**
   * As above, taking the user a call runs as ({@link #user(RequestContext)}) as {@code users} says.
   */
  public static void addFlightService(
      ServerBuilder<?> builder,
      BufferAllocator allocator,
      FlightProducer producer,
      ExecutorService executor,
      SecurityConfig security,
      List<ServerInterceptorAdapter.KeyFactory<?>> producerMiddleware,
      String rejection,
      ClientUsers users) {
    List<ServerInterceptorAdapter.KeyFactory<?>> middleware = new ArrayList<>();
    if (security.hasToken()) {
      Tokens tokens = security.acceptedTokens();
      middleware.add(
          new ServerInterceptorAdapter.KeyFactory<>(
              TOKEN_KEY,
              (info, headers, context) -> check(tokens, info, headers, context, rejection, users)));
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

  /**
   * The user the current call runs as, as the token check left it in the call's {@code context}:
   * its token's user (of {@code --users-file}), the user name a trusted front end sent, or "".
   */
  public static String user(RequestContext context) {
    String u = context == null ? null : context.get(USER_KEY);
    return u == null ? "" : u;
  }

  private static final String USER_KEY = "quiver.caller-user";

  private static TokenMiddleware check(
      Tokens tokens,
      CallInfo info,
      CallHeaders headers,
      RequestContext context,
      String rejection,
      ClientUsers users) {
    String header = headers.get(Tokens.HEADER);
    // A plain token first: a token that happens to look like a login stays a token.
    ClientLogin login = tokens.matches(header) ? null : ClientLogin.parse(header);
    String tokenHeader = login == null ? header : Tokens.headerValue(login.token());
    if (!tokens.matches(tokenHeader)) {
      LOG.warn("rejected Flight {}: missing or invalid token", info.method());
      throw CallStatus.UNAUTHENTICATED.withDescription(rejection).toRuntimeException();
    }
    String tokenUser = tokens.user(tokenHeader);
    String user = tokenUser == null ? "" : tokenUser;
    if (login != null && !login.user().isEmpty() && !login.user().equals(user)) {
      if (users != ClientUsers.TRUSTED) {
        throw CallStatus.UNAUTHORIZED
            .withDescription(
                "permission denied: the user name '"
                    + login.user()
                    + "' sent is not "
                    + (user.isEmpty()
                        ? "a user of this token"
                        : "this token's user ('" + user + "')")
                    + ": this server takes each client's user from its token (one token per user"
                    + " of --users-file); a trusted front end naming its own users needs the"
                    + " server started with --trust-client-user")
            .toRuntimeException();
      }
      if (!SecurityConfig.isUserName(login.user())) {
        throw CallStatus.UNAUTHENTICATED
            .withDescription(
                "unauthenticated: a user name is letters, digits, '.', '_' or '-' (1 to 64)")
            .toRuntimeException();
      }
      user = login.user();
    }
    context.put(USER_KEY, user);
    return login != null && login.basic()
        ? new TokenMiddleware(ClientLogin.bearer(user, login.token()))
        : TokenMiddleware.INSTANCE;
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

  /**
   * Nothing to do per call once the token matched, but answering a Basic login with the bearer
   * value the client sends from then on (what Flight SQL clients such as the JDBC driver expect).
   */
  private static final class TokenMiddleware implements FlightServerMiddleware {
    static final TokenMiddleware INSTANCE = new TokenMiddleware(null);

    private final String bearer;

    TokenMiddleware(String bearer) {
      this.bearer = bearer;
    }

    @Override
    public void onBeforeSendingHeaders(CallHeaders outgoingHeaders) {
      if (bearer != null) {
        outgoingHeaders.insert(Tokens.HEADER, Tokens.headerValue(bearer));
      }
    }

    @Override
    public void onCallCompleted(CallStatus status) {}

    @Override
    public void onCallErrored(Throwable err) {}
  }
}
