package dev.quiver.distributed.security;

import dev.quiver.binding.errors.QuiverException;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingClientCall;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Applies a {@link SecurityConfig} to gRPC servers and channels: TLS and the shared token. */
public final class GrpcSecurity {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcSecurity.class);

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of(Tokens.HEADER, Metadata.ASCII_STRING_MARSHALLER);

  /**
   * Silence on a connection with a call in progress after which a client pings the server: a peer
   * that stopped answering (a hung or SIGSTOPped process, a host gone without closing its TCP
   * connections) is noticed after this plus {@link #KEEPALIVE_TIMEOUT}.
   */
  public static final Duration KEEPALIVE = Duration.ofSeconds(10);

  /** How long a client waits for the answer to a keepalive ping before closing the connection. */
  public static final Duration KEEPALIVE_TIMEOUT = Duration.ofSeconds(10);

  private GrpcSecurity() {}

  /**
   * A channel builder to {@code host:port}: TLS verified with the configured CA when the config
   * asks for it (plaintext otherwise), the token on every call when one is set, and keepalive pings
   * while calls are in progress.
   */
  public static NettyChannelBuilder channelBuilder(String host, int port, SecurityConfig security) {
    NettyChannelBuilder b =
        NettyChannelBuilder.forAddress(host, port)
            .keepAliveTime(KEEPALIVE.toMillis(), TimeUnit.MILLISECONDS)
            .keepAliveTimeout(KEEPALIVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .keepAliveWithoutCalls(false);
    if (security.clientTls()) {
      b.sslContext(clientSslContext(security));
    } else {
      b.usePlaintext();
    }
    if (security.hasToken()) {
      b.intercept(new TokenClientInterceptor(Tokens.headerValue(security.token())));
    }
    return b;
  }

  /**
   * Makes {@code builder} serve TLS when the config has a certificate and reject every call without
   * the token (UNAUTHENTICATED) when one is set.
   */
  public static NettyServerBuilder secure(NettyServerBuilder builder, SecurityConfig security) {
    if (security.serverTls()) {
      builder.sslContext(serverSslContext(security));
    }
    if (security.hasToken()) {
      builder.intercept(tokenInterceptor(security));
    }
    return builder;
  }

  /**
   * Lets clients ping as often as {@link #channelBuilder} channels do; gRPC's servers otherwise
   * close connections that ping more often than every 5 minutes.
   */
  public static NettyServerBuilder permitKeepalive(NettyServerBuilder builder) {
    return builder.permitKeepAliveTime(KEEPALIVE.toMillis() / 2, TimeUnit.MILLISECONDS);
  }

  /**
   * An interceptor that rejects calls without an accepted token (UNAUTHENTICATED) and serves the
   * others with the caller's {@link Role} in {@link Callers#role()}; needs a token.
   */
  public static ServerInterceptor tokenInterceptor(SecurityConfig security) {
    if (!security.hasToken()) {
      throw new IllegalArgumentException("no token configured to check");
    }
    return new TokenServerInterceptor(security.acceptedTokens(), null);
  }

  /**
   * Like {@link #tokenInterceptor}, also refusing callers without the cluster role
   * (PERMISSION_DENIED naming {@code what}) before any handler sees the call: for services only the
   * cluster calls, such as an executor's control service.
   */
  public static ServerInterceptor clusterOnlyInterceptor(SecurityConfig security, String what) {
    if (!security.hasToken()) {
      throw new IllegalArgumentException("no token configured to check");
    }
    return new TokenServerInterceptor(security.acceptedTokens(), what);
  }

  static SslContext clientSslContext(SecurityConfig security) {
    SslContextBuilder b = GrpcSslContexts.forClient();
    if (security.ca() != null) {
      try {
        b.trustManager(new ByteArrayInputStream(security.ca().bytes()));
      } catch (IllegalArgumentException e) {
        throw new QuiverException(
            "The TLS CA certificates in "
                + security.ca().source()
                + " are not valid PEM: "
                + e.getMessage(),
            e);
      }
    }
    try {
      return b.build();
    } catch (SSLException e) {
      throw new QuiverException("Cannot set up TLS for client connections: " + e.getMessage(), e);
    }
  }

  private static SslContext serverSslContext(SecurityConfig security) {
    try {
      return GrpcSslContexts.forServer(
              new ByteArrayInputStream(security.certChain().bytes()),
              new ByteArrayInputStream(security.privateKey().bytes()))
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new QuiverException(
          "Cannot serve TLS with the certificate chain in "
              + security.certChain().source()
              + " and the private key in "
              + security.privateKey().source()
              + " (both must be PEM; the key unencrypted PKCS#8): "
              + e.getMessage(),
          e);
    }
  }

  /** Adds the token header to every call. */
  private static final class TokenClientInterceptor implements ClientInterceptor {
    private final String headerValue;

    TokenClientInterceptor(String headerValue) {
      this.headerValue = headerValue;
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
        MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<RespT> listener, Metadata headers) {
          headers.put(AUTHORIZATION, headerValue);
          super.start(listener, headers);
        }
      };
    }

    @Override
    public String toString() {
      return "TokenClientInterceptor[token=<redacted>]";
    }
  }

  /**
   * Closes calls without an accepted token (or, when {@code clusterOnly} names what the service
   * does, without the cluster role) before any handler sees them.
   */
  private static final class TokenServerInterceptor implements ServerInterceptor {
    private final Tokens tokens;
    private final String clusterOnly;

    TokenServerInterceptor(Tokens tokens, String clusterOnly) {
      this.tokens = tokens;
      this.clusterOnly = clusterOnly;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      Role role = tokens.authenticate(headers.get(AUTHORIZATION));
      if (role == null) {
        LOG.warn(
            "rejected {} from {}: missing or invalid token",
            call.getMethodDescriptor().getFullMethodName(),
            call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        call.close(Status.UNAUTHENTICATED.withDescription(Tokens.REJECTED), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      if (clusterOnly != null && role != Role.CLUSTER) {
        LOG.warn(
            "refused {} from {}: a client token cannot make this call",
            call.getMethodDescriptor().getFullMethodName(),
            call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        call.close(Callers.notCluster(clusterOnly).getStatus(), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      String user = tokens.user(headers.get(AUTHORIZATION));
      Context context = Context.current().withValue(Callers.ROLE, role);
      return Contexts.interceptCall(
          user == null ? context : context.withValue(Callers.USER, user), call, headers, next);
    }
  }
}
