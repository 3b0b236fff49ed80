package dev.quiver.executor;

import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.wire.Hosts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Settings of an executor process.
 *
 * @param executorId unique id the executor registers with
 * @param host address the Flight server listens on (loopback by default)
 * @param port Flight (and control) port, 0 for any free port
 * @param schedulerHost scheduler to register with
 * @param schedulerPort its port
 * @param workDir directory for spill files
 * @param cores task slots
 * @param memoryBytes memory the executor may use for task data
 * @param shuffleMemoryBytes part of it that holds shuffle output before spilling to disk
 * @param extensionJars jars with {@code dev.quiver.binding.Extension}s (UDFs, table providers)
 * @param security TLS of the Flight server and of the channels it opens, and the shared token
 * @param shuffleTtl how long a job's shuffle output may sit unwritten and unread before the
 *     executor deletes it (its client never released it)
 * @param shuffleCompression how shuffle output is served when a task does not choose
 * @param httpPort port of the HTTP endpoint (health, metrics) on {@code host}, 0 for any free port,
 *     -1 for none
 * @param advertiseHost the address the scheduler, other executors and clients dial to reach this
 *     executor, or null for {@code host} (this machine's name when {@code host} is a wildcard)
 * @param diskLimitBytes bytes of shuffle and spill files the executor may keep in its work
 *     directory before failing the task that writes the most with ResourcesExhausted; 0 for {@link
 *     #DEFAULT_DISK_FRACTION} of the space free there at start
 */
public record ExecutorConfig(
    String executorId,
    String host,
    int port,
    String schedulerHost,
    int schedulerPort,
    Path workDir,
    int cores,
    long memoryBytes,
    long shuffleMemoryBytes,
    List<Path> extensionJars,
    SecurityConfig security,
    Duration shuffleTtl,
    ShuffleCompression shuffleCompression,
    int httpPort,
    String advertiseHost,
    long diskLimitBytes) {

  /** No HTTP endpoint. */
  public static final int NO_HTTP = -1;

  /** Share of the work directory's free space the executor may fill by default. */
  public static final double DEFAULT_DISK_FRACTION = 0.25;

  /** Default time unread shuffle output is kept: well past the scheduler's job retention. */
  public static final Duration DEFAULT_SHUFFLE_TTL = Duration.ofHours(1);

  /** Default listen address: loopback only, so nothing is exposed unless asked for. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** Default Flight port of an executor. */
  public static final int DEFAULT_PORT = 50061;

  /** Validates the settings. */
  public ExecutorConfig {
    Objects.requireNonNull(executorId, "executorId");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(schedulerHost, "schedulerHost");
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(security, "security");
    Objects.requireNonNull(shuffleTtl, "shuffleTtl");
    Objects.requireNonNull(shuffleCompression, "shuffleCompression");
    extensionJars = List.copyOf(extensionJars);
    if (diskLimitBytes < 0) {
      throw new IllegalArgumentException(
          "disk limit must be positive (or 0 for the default), got " + diskLimitBytes);
    }
    if (shuffleTtl.isNegative() || shuffleTtl.isZero()) {
      throw new IllegalArgumentException("shuffle TTL must be positive, got " + shuffleTtl);
    }
    if (executorId.isBlank()) {
      throw new IllegalArgumentException("executor id must not be blank");
    }
    checkPort("executor", port, true);
    if (httpPort < NO_HTTP || httpPort > 65535) {
      throw new IllegalArgumentException(
          "executor HTTP port " + httpPort + " is not in 0..65535 (or -1 for none)");
    }
    if (advertiseHost != null && advertiseHost.isBlank()) {
      throw new IllegalArgumentException("the advertised host must not be blank");
    }
    checkPort("scheduler", schedulerPort, false);
    if (cores < 1) {
      throw new IllegalArgumentException("executor cores must be >= 1, got " + cores);
    }
    if (memoryBytes < 1) {
      throw new IllegalArgumentException("executor memory must be > 0 bytes, got " + memoryBytes);
    }
    if (shuffleMemoryBytes < 0 || shuffleMemoryBytes > memoryBytes) {
      throw new IllegalArgumentException(
          "shuffle memory ("
              + shuffleMemoryBytes
              + " bytes) must be between 0 and the executor memory ("
              + memoryBytes
              + " bytes)");
    }
  }

  private static void checkPort(String what, int port, boolean zeroAllowed) {
    if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
      throw new IllegalArgumentException(what + " port " + port + " is not a valid port");
    }
  }

  /**
   * Defaults for an executor of the given scheduler: a random id, loopback on the default port, all
   * cores, half the JVM heap as memory and a quarter of that for shuffle output.
   */
  public static ExecutorConfig defaults(String schedulerHost, int schedulerPort, Path workDir) {
    return builder(schedulerHost, schedulerPort, workDir).build();
  }

  /** A builder starting from {@link #defaults} for the given scheduler and work directory. */
  public static Builder builder(String schedulerHost, int schedulerPort, Path workDir) {
    return new Builder(schedulerHost, schedulerPort, workDir);
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** A copy with another id. */
  public ExecutorConfig withExecutorId(String id) {
    return toBuilder().executorId(id).build();
  }

  /** A copy listening on another port. */
  public ExecutorConfig withPort(int newPort) {
    return toBuilder().port(newPort).build();
  }

  /** A copy with other resources; shuffle memory becomes a quarter of {@code memory}. */
  public ExecutorConfig withResources(int newCores, long memory) {
    return toBuilder().resources(newCores, memory).build();
  }

  /** A copy that loads extensions from {@code jars}. */
  public ExecutorConfig withExtensionJars(List<Path> jars) {
    return toBuilder().extensionJars(jars).build();
  }

  /** A copy with other security settings (TLS and token). */
  public ExecutorConfig withSecurity(SecurityConfig newSecurity) {
    return toBuilder().security(newSecurity).build();
  }

  /** A copy serving HTTP on {@code newHttpPort} (0 for any free port, -1 for none). */
  public ExecutorConfig withHttpPort(int newHttpPort) {
    return toBuilder().httpPort(newHttpPort).build();
  }

  /** A copy listening on {@code newHost} and advertising {@code newAdvertiseHost} (may be null). */
  public ExecutorConfig withHosts(String newHost, String newAdvertiseHost) {
    return toBuilder().host(newHost).advertiseHost(newAdvertiseHost).build();
  }

  /**
   * Builds an {@link ExecutorConfig} one setting at a time; {@link #build} validates the whole.
   * Each setter's meaning is the record component's of the same name.
   */
  public static final class Builder {
    private String executorId;
    private String host;
    private int port;
    private String schedulerHost;
    private int schedulerPort;
    private Path workDir;
    private int cores;
    private long memoryBytes;
    private long shuffleMemoryBytes;
    private List<Path> extensionJars;
    private SecurityConfig security;
    private Duration shuffleTtl;
    private ShuffleCompression shuffleCompression;
    private int httpPort;
    private String advertiseHost;
    private long diskLimitBytes;

    private Builder(String schedulerHost, int schedulerPort, Path workDir) {
      this.executorId = "executor-" + UUID.randomUUID().toString().substring(0, 8);
      this.host = DEFAULT_HOST;
      this.port = DEFAULT_PORT;
      this.schedulerHost = schedulerHost;
      this.schedulerPort = schedulerPort;
      this.workDir = workDir;
      resources(Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() / 2);
      this.extensionJars = List.of();
      this.security = SecurityConfig.none();
      this.shuffleTtl = DEFAULT_SHUFFLE_TTL;
      this.shuffleCompression = ShuffleCompression.DEFAULT;
      this.httpPort = NO_HTTP;
      this.advertiseHost = null;
      this.diskLimitBytes = 0;
    }

    private Builder(ExecutorConfig c) {
      this.executorId = c.executorId;
      this.host = c.host;
      this.port = c.port;
      this.schedulerHost = c.schedulerHost;
      this.schedulerPort = c.schedulerPort;
      this.workDir = c.workDir;
      this.cores = c.cores;
      this.memoryBytes = c.memoryBytes;
      this.shuffleMemoryBytes = c.shuffleMemoryBytes;
      this.extensionJars = c.extensionJars;
      this.security = c.security;
      this.shuffleTtl = c.shuffleTtl;
      this.shuffleCompression = c.shuffleCompression;
      this.httpPort = c.httpPort;
      this.advertiseHost = c.advertiseHost;
      this.diskLimitBytes = c.diskLimitBytes;
    }

    /** See {@link ExecutorConfig#executorId()}. */
    public Builder executorId(String value) {
      this.executorId = value;
      return this;
    }

    /** See {@link ExecutorConfig#host()}. */
    public Builder host(String value) {
      this.host = value;
      return this;
    }

    /** See {@link ExecutorConfig#port()}. */
    public Builder port(int value) {
      this.port = value;
      return this;
    }

    /** See {@link ExecutorConfig#schedulerHost()} and {@link ExecutorConfig#schedulerPort()}. */
    public Builder scheduler(String schedulerHostValue, int schedulerPortValue) {
      this.schedulerHost = schedulerHostValue;
      this.schedulerPort = schedulerPortValue;
      return this;
    }

    /** See {@link ExecutorConfig#workDir()}. */
    public Builder workDir(Path value) {
      this.workDir = value;
      return this;
    }

    /** Task slots and memory; shuffle memory becomes a quarter of {@code memory}. */
    public Builder resources(int coresValue, long memory) {
      this.cores = coresValue;
      this.memoryBytes = memory;
      this.shuffleMemoryBytes = memory / 4;
      return this;
    }

    /** See {@link ExecutorConfig#shuffleMemoryBytes()} (after {@link #resources}). */
    public Builder shuffleMemoryBytes(long value) {
      this.shuffleMemoryBytes = value;
      return this;
    }

    /** See {@link ExecutorConfig#extensionJars()}. */
    public Builder extensionJars(List<Path> value) {
      this.extensionJars = value;
      return this;
    }

    /** See {@link ExecutorConfig#security()}. */
    public Builder security(SecurityConfig value) {
      this.security = value;
      return this;
    }

    /** See {@link ExecutorConfig#shuffleTtl()}. */
    public Builder shuffleTtl(Duration value) {
      this.shuffleTtl = value;
      return this;
    }

    /** See {@link ExecutorConfig#shuffleCompression()}. */
    public Builder shuffleCompression(ShuffleCompression value) {
      this.shuffleCompression = value;
      return this;
    }

    /** See {@link ExecutorConfig#httpPort()}. */
    public Builder httpPort(int value) {
      this.httpPort = value;
      return this;
    }

    /** See {@link ExecutorConfig#advertiseHost()}. */
    public Builder advertiseHost(String value) {
      this.advertiseHost = value;
      return this;
    }

    /** See {@link ExecutorConfig#diskLimitBytes()}. */
    public Builder diskLimitBytes(long value) {
      this.diskLimitBytes = value;
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     */
    public ExecutorConfig build() {
      return new ExecutorConfig(
          executorId,
          host,
          port,
          schedulerHost,
          schedulerPort,
          workDir,
          cores,
          memoryBytes,
          shuffleMemoryBytes,
          extensionJars,
          security,
          shuffleTtl,
          shuffleCompression,
          httpPort,
          advertiseHost,
          diskLimitBytes);
    }
  }

  /** The address others dial to reach this executor. */
  public String advertisedHost() {
    return advertiseHost != null ? advertiseHost : Hosts.advertised(host);
  }
}
