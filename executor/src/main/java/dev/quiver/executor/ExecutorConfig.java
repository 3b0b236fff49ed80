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
 * @param httpPort port of the HTTP endpoint (health, metrics) on {@code host}, 0 for any free
 *     port, -1 for none
 * @param advertiseHost the address the scheduler, other executors and clients dial to reach this
 *     executor, or null for {@code host} (this machine's name when {@code host} is a wildcard)
 * @param diskLimitBytes bytes of shuffle and spill files the executor may keep in its work
 *     directory before failing the task that writes the most with ResourcesExhausted; 0 for
 *     {@link #DEFAULT_DISK_FRACTION} of the space free there at start
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

  /** Settings without an HTTP endpoint, advertising the listen address. */
  public ExecutorConfig(
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
      ShuffleCompression shuffleCompression) {
    this(
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
        NO_HTTP,
        null,
        0);
  }

  /** Settings without TLS or token, with the default shuffle TTL. */
  public ExecutorConfig(
      String executorId,
      String host,
      int port,
      String schedulerHost,
      int schedulerPort,
      Path workDir,
      int cores,
      long memoryBytes,
      long shuffleMemoryBytes,
      List<Path> extensionJars) {
    this(
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
        SecurityConfig.none(),
        DEFAULT_SHUFFLE_TTL,
        ShuffleCompression.DEFAULT);
  }

  /** Settings without extension jars. */
  public ExecutorConfig(
      String executorId,
      String host,
      int port,
      String schedulerHost,
      int schedulerPort,
      Path workDir,
      int cores,
      long memoryBytes,
      long shuffleMemoryBytes) {
    this(
        executorId,
        host,
        port,
        schedulerHost,
        schedulerPort,
        workDir,
        cores,
        memoryBytes,
        shuffleMemoryBytes,
        List.of());
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
    long memory = Runtime.getRuntime().maxMemory() / 2;
    return new ExecutorConfig(
        "executor-" + UUID.randomUUID().toString().substring(0, 8),
        DEFAULT_HOST,
        DEFAULT_PORT,
        schedulerHost,
        schedulerPort,
        workDir,
        Runtime.getRuntime().availableProcessors(),
        memory,
        memory / 4);
  }

  /** A copy with another id. */
  public ExecutorConfig withExecutorId(String id) {
    return new ExecutorConfig(
        id,
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

  /** A copy listening on another port. */
  public ExecutorConfig withPort(int newPort) {
    return new ExecutorConfig(
        executorId,
        host,
        newPort,
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

  /** A copy with other resources; shuffle memory becomes a quarter of {@code memory}. */
  public ExecutorConfig withResources(int newCores, long memory) {
    return new ExecutorConfig(
        executorId,
        host,
        port,
        schedulerHost,
        schedulerPort,
        workDir,
        newCores,
        memory,
        memory / 4,
        extensionJars,
        security,
        shuffleTtl,
        shuffleCompression,
        httpPort,
        advertiseHost,
        diskLimitBytes);
  }

  /** A copy with another shuffle memory budget. */
  public ExecutorConfig withShuffleMemory(long bytes) {
    return new ExecutorConfig(
        executorId,
        host,
        port,
        schedulerHost,
        schedulerPort,
        workDir,
        cores,
        memoryBytes,
        bytes,
        extensionJars,
        security,
        shuffleTtl,
        shuffleCompression,
        httpPort,
        advertiseHost,
        diskLimitBytes);
  }

  /** A copy that deletes unreleased shuffle output after {@code ttl} without access. */
  public ExecutorConfig withShuffleTtl(Duration ttl) {
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
        ttl,
        shuffleCompression,
        httpPort,
        advertiseHost,
        diskLimitBytes);
  }

  /** A copy that loads extensions from {@code jars}. */
  public ExecutorConfig withExtensionJars(List<Path> jars) {
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
        jars,
        security,
        shuffleTtl,
        shuffleCompression,
        httpPort,
        advertiseHost,
        diskLimitBytes);
  }

  /** A copy with other security settings (TLS and token). */
  public ExecutorConfig withSecurity(SecurityConfig newSecurity) {
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
        newSecurity,
        shuffleTtl,
        shuffleCompression,
        httpPort,
        advertiseHost,
        diskLimitBytes);
  }

  /** A copy that serves shuffle output with {@code compression} unless a task chooses. */
  public ExecutorConfig withShuffleCompression(ShuffleCompression compression) {
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
        compression,
        httpPort,
        advertiseHost,
        diskLimitBytes);
  }

  /** A copy serving HTTP on {@code newHttpPort} (0 for any free port, -1 for none). */
  public ExecutorConfig withHttpPort(int newHttpPort) {
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
        newHttpPort,
        advertiseHost,
        diskLimitBytes);
  }

  /** A copy listening on {@code newHost} and advertising {@code newAdvertiseHost} (may be null). */
  public ExecutorConfig withHosts(String newHost, String newAdvertiseHost) {
    return new ExecutorConfig(
        executorId,
        newHost,
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
        newAdvertiseHost,
        diskLimitBytes);
  }

  /** A copy that may keep {@code bytes} of shuffle and spill files (0: the default share). */
  public ExecutorConfig withDiskLimit(long bytes) {
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
        bytes);
  }

  /** The address others dial to reach this executor. */
  public String advertisedHost() {
    return advertiseHost != null ? advertiseHost : Hosts.advertised(host);
  }
}
