package dev.quiver.scheduler;

import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.wire.Hosts;
import dev.quiver.scheduler.job.Exclusion;
import dev.quiver.scheduler.job.Speculation;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a scheduler server.
 *
 * @param host address to listen on (loopback by default)
 * @param port port to listen on, 0 for any free port
 * @param heartbeatInterval how often executors are told to heartbeat
 * @param heartbeatTimeout silence after which an executor is marked lost
 * @param maxTaskAttempts attempts a task gets against transient failures before its job fails
 * @param noExecutorTimeout how long a job with runnable tasks waits for an executor to register
 * @param finishedJobRetention how long a finished job stays available for status
 * @param security TLS of the server and of the channels to executors, and the shared token
 * @param httpPort port of the HTTP endpoint (health, metrics, jobs API, web UI) on {@code host}, 0
 *     for any free port, -1 for none
 * @param advertiseHost the address others reach this scheduler at (shown by the web UI and the
 *     logs), or null for {@code host} (or this machine's name when {@code host} is a wildcard)
 * @param speculation when stragglers get a second attempt on another executor
 * @param exclusion when an executor whose tasks keep failing gets no tasks for a while
 */
public record SchedulerConfig(
    String host,
    int port,
    Duration heartbeatInterval,
    Duration heartbeatTimeout,
    int maxTaskAttempts,
    Duration noExecutorTimeout,
    Duration finishedJobRetention,
    SecurityConfig security,
    int httpPort,
    String advertiseHost,
    Speculation speculation,
    Exclusion exclusion) {

  /** No HTTP endpoint. */
  public static final int NO_HTTP = -1;

  /** Default listen address: loopback only, so nothing is exposed unless asked for. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** Default port of the scheduler. */
  public static final int DEFAULT_PORT = 50050;

  /** Default attempts per task against transient failures. */
  public static final int DEFAULT_MAX_TASK_ATTEMPTS = 3;

  /** Default wait for an executor before a job fails. */
  public static final Duration DEFAULT_NO_EXECUTOR_TIMEOUT = Duration.ofSeconds(60);

  /** Default time a finished job is kept for status. */
  public static final Duration DEFAULT_FINISHED_JOB_RETENTION = Duration.ofMinutes(5);

  /** Validates the settings. */
  public SchedulerConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
    Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout");
    Objects.requireNonNull(noExecutorTimeout, "noExecutorTimeout");
    Objects.requireNonNull(finishedJobRetention, "finishedJobRetention");
    Objects.requireNonNull(security, "security");
    Objects.requireNonNull(speculation, "speculation");
    Objects.requireNonNull(exclusion, "exclusion");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("scheduler port " + port + " is not in 0..65535");
    }
    if (httpPort < NO_HTTP || httpPort > 65535) {
      throw new IllegalArgumentException(
          "scheduler HTTP port " + httpPort + " is not in 0..65535 (or -1 for none)");
    }
    if (advertiseHost != null && advertiseHost.isBlank()) {
      throw new IllegalArgumentException("the advertised host must not be blank");
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
    if (maxTaskAttempts < 1) {
      throw new IllegalArgumentException(
          "max task attempts must be at least 1, got " + maxTaskAttempts);
    }
    if (noExecutorTimeout.isNegative() || noExecutorTimeout.isZero()) {
      throw new IllegalArgumentException(
          "the wait for executors must be positive, got " + noExecutorTimeout);
    }
    if (finishedJobRetention.isNegative()) {
      throw new IllegalArgumentException(
          "finished job retention must not be negative, got " + finishedJobRetention);
    }
  }

  /** Settings without an HTTP endpoint, advertising the listen address. */
  public SchedulerConfig(
      String host,
      int port,
      Duration heartbeatInterval,
      Duration heartbeatTimeout,
      int maxTaskAttempts,
      Duration noExecutorTimeout,
      Duration finishedJobRetention,
      SecurityConfig security) {
    this(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        NO_HTTP,
        null,
        Speculation.DEFAULT,
        Exclusion.DEFAULT);
  }

  /** Settings without TLS or token. */
  public SchedulerConfig(
      String host,
      int port,
      Duration heartbeatInterval,
      Duration heartbeatTimeout,
      int maxTaskAttempts,
      Duration noExecutorTimeout,
      Duration finishedJobRetention) {
    this(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        SecurityConfig.none());
  }

  /** Settings with the default task attempts, executor wait and job retention. */
  public SchedulerConfig(
      String host, int port, Duration heartbeatInterval, Duration heartbeatTimeout) {
    this(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        DEFAULT_MAX_TASK_ATTEMPTS,
        DEFAULT_NO_EXECUTOR_TIMEOUT,
        DEFAULT_FINISHED_JOB_RETENTION);
  }

  /** Loopback on the default port, heartbeats every 2 s, lost after 10 s of silence. */
  public static SchedulerConfig defaults() {
    return new SchedulerConfig(
        DEFAULT_HOST, DEFAULT_PORT, Duration.ofSeconds(2), Duration.ofSeconds(10));
  }

  /** A copy listening on another port. */
  public SchedulerConfig withPort(int newPort) {
    return new SchedulerConfig(
        host,
        newPort,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        httpPort,
        advertiseHost,
        speculation,
        exclusion);
  }

  /** A copy with other heartbeat timing. */
  public SchedulerConfig withHeartbeat(Duration interval, Duration timeout) {
    return new SchedulerConfig(
        host,
        port,
        interval,
        timeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        httpPort,
        advertiseHost,
        speculation,
        exclusion);
  }

  /** A copy giving each task another number of attempts against transient failures. */
  public SchedulerConfig withMaxTaskAttempts(int attempts) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        attempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        httpPort,
        advertiseHost,
        speculation,
        exclusion);
  }

  /** A copy waiting another time for executors before failing a job. */
  public SchedulerConfig withNoExecutorTimeout(Duration timeout) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        timeout,
        finishedJobRetention,
        security,
        httpPort,
        advertiseHost,
        speculation,
        exclusion);
  }

  /** A copy keeping finished jobs for status for another time. */
  public SchedulerConfig withFinishedJobRetention(Duration retention) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        retention,
        security,
        httpPort,
        advertiseHost,
        speculation,
        exclusion);
  }

  /** A copy with other security settings (TLS and token). */
  public SchedulerConfig withSecurity(SecurityConfig newSecurity) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        newSecurity,
        httpPort,
        advertiseHost,
        speculation,
        exclusion);
  }

  /** A copy serving HTTP on {@code newHttpPort} (0 for any free port, -1 for none). */
  public SchedulerConfig withHttpPort(int newHttpPort) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        newHttpPort,
        advertiseHost,
        speculation,
        exclusion);
  }

  /** A copy advertising {@code newAdvertiseHost} (null: the listen address). */
  public SchedulerConfig withAdvertiseHost(String newAdvertiseHost) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        httpPort,
        newAdvertiseHost,
        speculation,
        exclusion);
  }

  /** A copy with other speculation settings. */
  public SchedulerConfig withSpeculation(Speculation newSpeculation) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        httpPort,
        advertiseHost,
        newSpeculation,
        exclusion);
  }

  /** A copy with other exclusion settings. */
  public SchedulerConfig withExclusion(Exclusion newExclusion) {
    return new SchedulerConfig(
        host,
        port,
        heartbeatInterval,
        heartbeatTimeout,
        maxTaskAttempts,
        noExecutorTimeout,
        finishedJobRetention,
        security,
        httpPort,
        advertiseHost,
        speculation,
        newExclusion);
  }

  /** The address others reach this scheduler at. */
  public String advertisedHost() {
    return advertiseHost != null ? advertiseHost : Hosts.advertised(host);
  }
}
