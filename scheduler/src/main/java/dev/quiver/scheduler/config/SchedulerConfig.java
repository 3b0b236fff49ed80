package dev.quiver.scheduler.config;

import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.wire.Hosts;
import dev.quiver.scheduler.admission.ResourceGroups;
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
 * @param resourceGroups the groups jobs are admitted into and share task slots by (one unlimited
 *     group by default)
 * @param queryLimits caps on each query's limits (memory, run and queued time) that sessions may
 *     only lower ({@code --query-max-*}; none by default)
 * @param history where and how long finished jobs are kept (in memory only by default)
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
    Exclusion exclusion,
    ResourceGroups resourceGroups,
    QueryLimits queryLimits,
    History history) {

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
    Objects.requireNonNull(resourceGroups, "resourceGroups");
    Objects.requireNonNull(queryLimits, "queryLimits");
    Objects.requireNonNull(history, "history");
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

  /** Loopback on the default port, heartbeats every 2 s, lost after 10 s of silence. */
  public static SchedulerConfig defaults() {
    return builder().build();
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder(null);
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** A copy listening on another port. */
  public SchedulerConfig withPort(int newPort) {
    return toBuilder().port(newPort).build();
  }

  /** A copy with another heartbeat interval and timeout. */
  public SchedulerConfig withHeartbeat(Duration interval, Duration timeout) {
    return toBuilder().heartbeatInterval(interval).heartbeatTimeout(timeout).build();
  }

  /** A copy with another number of attempts per task. */
  public SchedulerConfig withMaxTaskAttempts(int attempts) {
    return toBuilder().maxTaskAttempts(attempts).build();
  }

  /** A copy with another wait for executors. */
  public SchedulerConfig withNoExecutorTimeout(Duration timeout) {
    return toBuilder().noExecutorTimeout(timeout).build();
  }

  /** A copy keeping finished jobs for {@code retention}. */
  public SchedulerConfig withFinishedJobRetention(Duration retention) {
    return toBuilder().finishedJobRetention(retention).build();
  }

  /** A copy with other security settings (TLS and token). */
  public SchedulerConfig withSecurity(SecurityConfig newSecurity) {
    return toBuilder().security(newSecurity).build();
  }

  /** A copy serving HTTP on {@code newHttpPort} (0 for any free port, -1 for none). */
  public SchedulerConfig withHttpPort(int newHttpPort) {
    return toBuilder().httpPort(newHttpPort).build();
  }

  /** A copy with another exclusion policy. */
  public SchedulerConfig withExclusion(Exclusion newExclusion) {
    return toBuilder().exclusion(newExclusion).build();
  }

  /**
   * Builds a {@link SchedulerConfig} one setting at a time; {@link #build} validates the whole.
   * Each setter's meaning is the record component's of the same name.
   */
  public static final class Builder {
    private String host;
    private int port;
    private Duration heartbeatInterval;
    private Duration heartbeatTimeout;
    private int maxTaskAttempts;
    private Duration noExecutorTimeout;
    private Duration finishedJobRetention;
    private SecurityConfig security;
    private int httpPort;
    private String advertiseHost;
    private Speculation speculation;
    private Exclusion exclusion;
    private ResourceGroups resourceGroups;
    private QueryLimits queryLimits = QueryLimits.NONE;
    private History history;

    private Builder(SchedulerConfig c) {
      if (c == null) {
        host = DEFAULT_HOST;
        port = DEFAULT_PORT;
        heartbeatInterval = Duration.ofSeconds(2);
        heartbeatTimeout = Duration.ofSeconds(10);
        maxTaskAttempts = DEFAULT_MAX_TASK_ATTEMPTS;
        noExecutorTimeout = DEFAULT_NO_EXECUTOR_TIMEOUT;
        finishedJobRetention = DEFAULT_FINISHED_JOB_RETENTION;
        security = SecurityConfig.none();
        httpPort = NO_HTTP;
        advertiseHost = null;
        speculation = Speculation.DEFAULT;
        exclusion = Exclusion.DEFAULT;
        resourceGroups = ResourceGroups.single();
        history = History.DEFAULT;
      } else {
        host = c.host;
        port = c.port;
        heartbeatInterval = c.heartbeatInterval;
        heartbeatTimeout = c.heartbeatTimeout;
        maxTaskAttempts = c.maxTaskAttempts;
        noExecutorTimeout = c.noExecutorTimeout;
        finishedJobRetention = c.finishedJobRetention;
        security = c.security;
        httpPort = c.httpPort;
        advertiseHost = c.advertiseHost;
        speculation = c.speculation;
        exclusion = c.exclusion;
        resourceGroups = c.resourceGroups;
        queryLimits = c.queryLimits;
        history = c.history;
      }
    }

    /** See {@link SchedulerConfig#host()}. */
    public Builder host(String value) {
      this.host = value;
      return this;
    }

    /** See {@link SchedulerConfig#port()}. */
    public Builder port(int value) {
      this.port = value;
      return this;
    }

    /** See {@link SchedulerConfig#heartbeatInterval()}. */
    public Builder heartbeatInterval(Duration value) {
      this.heartbeatInterval = value;
      return this;
    }

    /** See {@link SchedulerConfig#heartbeatTimeout()}. */
    public Builder heartbeatTimeout(Duration value) {
      this.heartbeatTimeout = value;
      return this;
    }

    /** See {@link SchedulerConfig#maxTaskAttempts()}. */
    public Builder maxTaskAttempts(int value) {
      this.maxTaskAttempts = value;
      return this;
    }

    /** See {@link SchedulerConfig#noExecutorTimeout()}. */
    public Builder noExecutorTimeout(Duration value) {
      this.noExecutorTimeout = value;
      return this;
    }

    /** See {@link SchedulerConfig#finishedJobRetention()}. */
    public Builder finishedJobRetention(Duration value) {
      this.finishedJobRetention = value;
      return this;
    }

    /** See {@link SchedulerConfig#security()}. */
    public Builder security(SecurityConfig value) {
      this.security = value;
      return this;
    }

    /** See {@link SchedulerConfig#httpPort()}. */
    public Builder httpPort(int value) {
      this.httpPort = value;
      return this;
    }

    /** See {@link SchedulerConfig#advertiseHost()}. */
    public Builder advertiseHost(String value) {
      this.advertiseHost = value;
      return this;
    }

    /** See {@link SchedulerConfig#speculation()}. */
    public Builder speculation(Speculation value) {
      this.speculation = value;
      return this;
    }

    /** See {@link SchedulerConfig#exclusion()}. */
    public Builder exclusion(Exclusion value) {
      this.exclusion = value;
      return this;
    }

    /** See {@link SchedulerConfig#queryLimits()}. */
    public Builder queryLimits(QueryLimits value) {
      this.queryLimits = value;
      return this;
    }

    /** See {@link SchedulerConfig#resourceGroups()}. */
    public Builder resourceGroups(ResourceGroups value) {
      this.resourceGroups = value;
      return this;
    }

    /** See {@link SchedulerConfig#history()}. */
    public Builder history(History value) {
      this.history = value;
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     */
    public SchedulerConfig build() {
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
          exclusion,
          resourceGroups,
          queryLimits,
          history);
    }
  }

  /** The address others reach this scheduler at. */
  public String advertisedHost() {
    return advertiseHost != null ? advertiseHost : Hosts.advertised(host);
  }
}
