package dev.quiver.distributed.transport;

import dev.quiver.distributed.security.SecurityConfig;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;

/**
 * gRPC's in-process transport for unit tests: servers and channels meet by name inside the JVM, no
 * sockets. A server is named by its host alone (the port is ignored, so give each server its own
 * host name); each instance has its own namespace, so tests cannot reach each other's servers. It
 * carries no TLS or tokens: tests of those stay on {@link GrpcTransport#NETTY}.
 */
public final class InProcessTransport implements GrpcTransport {

  private final String namespace = InProcessServerBuilder.generateName();

  @Override
  public ServerBuilder<?> serverBuilder(String host, int port, SecurityConfig security) {
    requirePlain(security);
    return InProcessServerBuilder.forName(name(host));
  }

  @Override
  public ManagedChannelBuilder<?> channelBuilder(String host, int port, SecurityConfig security) {
    requirePlain(security);
    return InProcessChannelBuilder.forName(name(host));
  }

  private String name(String host) {
    return namespace + "/" + host;
  }

  private static void requirePlain(SecurityConfig security) {
    if (security.serverTls() || security.clientTls() || security.hasToken()) {
      throw new IllegalArgumentException(
          "the in-process transport carries no TLS or tokens; test them over GrpcTransport.NETTY");
    }
  }

  @Override
  public String toString() {
    return "in-process " + namespace;
  }
}
