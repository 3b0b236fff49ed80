/**
 * How the cluster's gRPC servers and channels are made: {@link
 * dev.quiver.distributed.transport.GrpcTransport#NETTY} (TCP, TLS and tokens from the security
 * config) in processes, a different transport in unit tests that need no sockets.
 */
package dev.quiver.distributed.transport;
