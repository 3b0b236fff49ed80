package dev.quiver.scheduler;

import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.spi.RunningServer;
import dev.quiver.distributed.spi.SchedulerLauncher;
import dev.quiver.scheduler.config.SchedulerConfig;
import java.time.Duration;

/** Starts a scheduler inside this process for the embedded cluster (found by ServiceLoader). */
public final class EmbeddedSchedulerLauncher implements SchedulerLauncher {

  /** Public no-argument constructor for {@link java.util.ServiceLoader}. */
  public EmbeddedSchedulerLauncher() {}

  @Override
  public RunningServer start(int port, long heartbeatTimeoutMillis, SecurityConfig security)
      throws Exception {
    return start(port, SchedulerConfig.NO_HTTP, heartbeatTimeoutMillis, security);
  }

  @Override
  public RunningServer start(
      int port, int httpPort, long heartbeatTimeoutMillis, SecurityConfig security)
      throws Exception {
    if (heartbeatTimeoutMillis < 2) {
      throw new IllegalArgumentException(
          "heartbeat timeout must be at least 2 ms, got " + heartbeatTimeoutMillis);
    }
    // Executors heartbeat five times per timeout, so one late heartbeat never loses an executor.
    Duration timeout = Duration.ofMillis(heartbeatTimeoutMillis);
    Duration interval = Duration.ofMillis(Math.max(1, heartbeatTimeoutMillis / 5));
    SchedulerServer server =
        SchedulerServer.startEmbedded(
            SchedulerConfig.defaults()
                .withPort(port)
                .withHeartbeat(interval, timeout)
                .withSecurity(security)
                .withHttpPort(httpPort));
    return new RunningServer() {
      @Override
      public String id() {
        return "scheduler";
      }

      @Override
      public String target() {
        return server.host() + ":" + server.port();
      }

      @Override
      public int httpPort() {
        return server.httpPort();
      }

      @Override
      public void stopping() {
        server.expectDepartures();
      }

      @Override
      public void close() {
        server.close();
      }
    };
  }
}
