package dev.quiver.distributed.transport;

import dev.quiver.distributed.security.GrpcSecurity;
import dev.quiver.distributed.security.SecurityConfig;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;

/**
 * Makes the builders of the scheduler's and executors' gRPC servers and of the channels between
 * them. Processes use {@link #NETTY}; unit tests pass an in-process transport so that the real
 * services talk without sockets. The callers add services, limits and interceptors themselves.
 */
public interface GrpcTransport {

  /** TCP through Netty, secured as the config says (TLS, tokens, keepalive): what processes use. */
  GrpcTransport NETTY =
      new GrpcTransport() {
        @Override
        public ServerBuilder<?> serverBuilder(String host, int port, SecurityConfig security) {
          return GrpcSecurity.secure(
              GrpcSecurity.permitKeepalive(
                  NettyServerBuilder.forAddress(new InetSocketAddress(host, port))),
              security);
        }

        @Override
        public ManagedChannelBuilder<?> channelBuilder(
            String host, int port, SecurityConfig security) {
          ManagedChannelBuilder<?> local = SameProcessServers.channelBuilder(host, port, security);
          return local != null ? local : GrpcSecurity.channelBuilder(host, port, security);
        }

        @Override
        public String toString() {
          return "netty";
        }
      };

  /** A builder of a server listening on {@code host:port} (0: any free port). */
  ServerBuilder<?> serverBuilder(String host, int port, SecurityConfig security);

  /** A builder of a channel to the server at {@code host:port}. */
  ManagedChannelBuilder<?> channelBuilder(String host, int port, SecurityConfig security);
}
