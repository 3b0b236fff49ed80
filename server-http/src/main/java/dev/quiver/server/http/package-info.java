/**
 * The HTTP endpoint every Quiver server runs beside its gRPC port: health probes, Prometheus
 * metrics and the routes a server adds (the scheduler's jobs API and web UI), served with the
 * server's TLS certificate and guarded by its shared token.
 */
package dev.quiver.server.http;
