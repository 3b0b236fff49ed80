/**
 * Cluster security: TLS on every gRPC and Flight channel, the tokens every server checks on every
 * call (the clients' token and the cluster credential, which tell a caller's {@link
 * dev.quiver.distributed.security.Role}), and the per-job capabilities that keep clients sharing a
 * token out of each other's jobs. {@link dev.quiver.distributed.security.SecurityConfig} holds the
 * settings; {@link dev.quiver.distributed.security.GrpcSecurity}, {@link
 * dev.quiver.distributed.security.FlightSecurity} and {@link
 * dev.quiver.distributed.security.HttpSecurity} apply them to servers and clients, so the tokens
 * themselves never leave this package.
 */
package dev.quiver.distributed.security;
