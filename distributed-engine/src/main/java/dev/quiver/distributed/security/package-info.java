/**
 * Cluster security: TLS on every gRPC and Flight channel and a shared token every server checks on
 * every call. {@link dev.quiver.distributed.security.SecurityConfig} holds the settings; {@link
 * dev.quiver.distributed.security.GrpcSecurity} and {@link
 * dev.quiver.distributed.security.FlightSecurity} apply them to servers and clients, so the token
 * itself never leaves this package.
 */
package dev.quiver.distributed.security;
