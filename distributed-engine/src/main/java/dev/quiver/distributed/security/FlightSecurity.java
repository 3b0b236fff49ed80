package dev.quiver.distributed.security;

import dev.quiver.binding.errors.QuiverException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.Location;
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
      builder.middleware(TOKEN_KEY, (info, headers, context) -> check(tokens, info, headers));
    }
    return builder;
  }

  private static TokenMiddleware check(Tokens tokens, CallInfo info, CallHeaders headers) {
    if (!tokens.matches(headers.get(Tokens.HEADER))) {
      LOG.warn("rejected Flight {}: missing or invalid token", info.method());
      throw CallStatus.UNAUTHENTICATED.withDescription(Tokens.REJECTED).toRuntimeException();
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
