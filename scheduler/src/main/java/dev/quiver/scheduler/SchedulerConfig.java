package dev.quiver.scheduler;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a scheduler server.
 *
 * @param host address to listen on (loopback by default)
 * @param port port to listen on, 0 for any free port
 * @param heartbeatInterval how often executors are told to heartbeat
 * @param heartbeatTimeout silence after which an executor is marked lost
 */
public record SchedulerConfig(
    String host, int port, Duration heartbeatInterval, Duration heartbeatTimeout) {

  /** Default listen address: loopback only, so nothing is exposed unless asked for. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** Default port of the scheduler. */
  public static final int DEFAULT_PORT = 50050;

  /** Validates the settings. */
  public SchedulerConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
    Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("scheduler port " + port + " is not in 0..65535");
    }
    if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
      throw new IllegalArgumentException(
          "heartbeat interval must be positive, got " + heartbeatInterval);
    }
    if (heartbeatTimeout.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException(
          "heartbeat timeout ("
              + heartbeatTimeout
              + ") must be longer than the heartbeat interval ("
              + heartbeatInterval
              + "), or every executor would be marked lost between two heartbeats");
    }
  }

  /** Loopback on the default port, heartbeats every 2 s, lost after 10 s of silence. */
  public static SchedulerConfig defaults() {
    return new SchedulerConfig(
        DEFAULT_HOST, DEFAULT_PORT, Duration.ofSeconds(2), Duration.ofSeconds(10));
  }

  /** A copy listening on another port. */
  public SchedulerConfig withPort(int newPort) {
    return new SchedulerConfig(host, newPort, heartbeatInterval, heartbeatTimeout);
  }

  /** A copy with other heartbeat timing. */
  public SchedulerConfig withHeartbeat(Duration interval, Duration timeout) {
    return new SchedulerConfig(host, port, interval, timeout);
  }
}
