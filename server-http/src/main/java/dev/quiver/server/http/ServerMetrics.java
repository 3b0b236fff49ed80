package dev.quiver.server.http;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** Metric registries of Quiver servers. */
public final class ServerMetrics {
  private ServerMetrics() {}

  /**
   * A registry of its own for one server (an embedded cluster runs several servers in one process,
   * each scraped on its own port), holding the JVM's metrics ({@code jvm_*}, {@code process_*}).
   */
  public static PrometheusRegistry newRegistry() {
    PrometheusRegistry registry = new PrometheusRegistry();
    JvmMetrics.builder().register(registry);
    return registry;
  }
}
