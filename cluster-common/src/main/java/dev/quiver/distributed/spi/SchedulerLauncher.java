package dev.quiver.distributed.spi;

import dev.quiver.distributed.security.SecurityConfig;

/** Starts a scheduler inside this process (provided by the scheduler module). */
public interface SchedulerLauncher {
  /**
   * Starts a scheduler listening on 127.0.0.1:{@code port} (0 picks a free port).
   *
   * @param heartbeatTimeoutMillis silence after which an executor is declared lost
   * @param security TLS for its server and its channels to executors, and the shared token
   */
  RunningServer start(int port, long heartbeatTimeoutMillis, SecurityConfig security)
      throws Exception;

  /**
   * As {@link #start(int, long, SecurityConfig)}, also serving HTTP (health, metrics, jobs API, web
   * UI) on 127.0.0.1:{@code httpPort} (0 picks a free port, -1 serves none).
   */
  default RunningServer start(
      int port, int httpPort, long heartbeatTimeoutMillis, SecurityConfig security)
      throws Exception {
    if (httpPort != -1) {
      throw new UnsupportedOperationException(getClass().getName() + " cannot serve HTTP");
    }
    return start(port, heartbeatTimeoutMillis, security);
  }

  /** Starts an unsecured scheduler (plaintext, no token). */
  default RunningServer start(int port, long heartbeatTimeoutMillis) throws Exception {
    return start(port, heartbeatTimeoutMillis, SecurityConfig.none());
  }
}
