package dev.quiver.distributed.cluster;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.io.LocalFileAccess;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.SchedulerClient;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.spi.ExecutorLauncher;
import dev.quiver.distributed.spi.RunningServer;
import dev.quiver.distributed.spi.SchedulerLauncher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * A scheduler and {@code n} executors started inside this process on 127.0.0.1, for examples, tests
 * and single-machine use. Nothing starts until {@link #start()}; {@link #close()} stops every
 * server and deletes the executors' work directories.
 */
public final class EmbeddedCluster implements AutoCloseable {
  /** Heartbeat timeout of the embedded scheduler: losses are noticed quickly on loopback. */
  public static final long HEARTBEAT_TIMEOUT_MILLIS = 5_000;

  private static final long REGISTRATION_WAIT_MILLIS = 30_000;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(EmbeddedCluster.class);

  private final int executors;
  private final int coresPerExecutor;
  private final long memoryPerExecutor;
  private final SecurityConfig security;
  private final int schedulerHttpPort;
  private final List<RunningServer> executorServers = new ArrayList<>();
  private RunningServer scheduler;
  private Path workRoot;
  private boolean closed;

  /**
   * Describes a cluster of {@code executors} executors, each with {@code coresPerExecutor} task
   * slots and {@code memoryPerExecutor} bytes for task data.
   */
  public EmbeddedCluster(int executors, int coresPerExecutor, long memoryPerExecutor) {
    this(executors, coresPerExecutor, memoryPerExecutor, SecurityConfig.none());
  }

  /**
   * As {@link #EmbeddedCluster(int, int, long)}, with every server and connection secured by {@code
   * security} (its certificate must be valid for 127.0.0.1).
   */
  public EmbeddedCluster(
      int executors, int coresPerExecutor, long memoryPerExecutor, SecurityConfig security) {
    this(executors, coresPerExecutor, memoryPerExecutor, security, -1);
  }

  private EmbeddedCluster(
      int executors,
      int coresPerExecutor,
      long memoryPerExecutor,
      SecurityConfig security,
      int schedulerHttpPort) {
    if (schedulerHttpPort < -1 || schedulerHttpPort > 65535) {
      throw new QuiverException(
          "The scheduler's HTTP port must be in 0..65535 (or -1 for none), got "
              + schedulerHttpPort);
    }
    this.schedulerHttpPort = schedulerHttpPort;
    if (executors < 1) {
      throw new QuiverException(
          "An embedded cluster needs at least one executor, got " + executors);
    }
    if (coresPerExecutor < 1 || memoryPerExecutor < 1) {
      throw new QuiverException("Executors need at least one core and some memory");
    }
    this.executors = executors;
    this.coresPerExecutor = coresPerExecutor;
    this.memoryPerExecutor = memoryPerExecutor;
    this.security = java.util.Objects.requireNonNull(security, "security");
  }

  /**
   * A cluster of {@code executors} executors sharing this machine's cores (at least one each), with
   * 2 GiB of task memory each.
   */
  public static EmbeddedCluster sharingCores(int executors) {
    return sharingCores(executors, SecurityConfig.none());
  }

  /** As {@link #sharingCores(int)}, secured by {@code security}. */
  public static EmbeddedCluster sharingCores(int executors, SecurityConfig security) {
    int cores = Math.max(1, Runtime.getRuntime().availableProcessors() / Math.max(1, executors));
    return new EmbeddedCluster(executors, cores, 2L << 30, security);
  }

  /**
   * A copy (not started) whose scheduler serves HTTP (health, metrics, jobs API, web UI) on
   * 127.0.0.1:{@code port}, 0 for a free port, and whose executors serve health and metrics on free
   * ports.
   */
  public EmbeddedCluster withHttp(int port) {
    return new EmbeddedCluster(executors, coresPerExecutor, memoryPerExecutor, security, port);
  }

  /** The scheduler's HTTP port, or -1 when it serves none; the cluster must be started. */
  public synchronized int schedulerHttpPort() {
    if (scheduler == null) {
      throw new QuiverException("The embedded cluster is not started");
    }
    return scheduler.httpPort();
  }

  /** Starts the servers (once) and waits until every executor has registered. */
  public synchronized EmbeddedCluster start() {
    if (closed) {
      throw new QuiverException("The embedded cluster was closed");
    }
    if (scheduler != null) {
      return this;
    }
    SchedulerLauncher schedulers = load(SchedulerLauncher.class, "quiver-scheduler");
    ExecutorLauncher executorLauncher = load(ExecutorLauncher.class, "quiver-executor");
    try {
      workRoot = Files.createTempDirectory("quiver-embedded-");
      LocalFileAccess.deny(workRoot);
      scheduler = schedulers.start(0, schedulerHttpPort, HEARTBEAT_TIMEOUT_MILLIS, security);
      for (int i = 0; i < executors; i++) {
        Path dir = Files.createDirectories(workRoot.resolve("executor-" + i));
        executorServers.add(
            executorLauncher.start(
                scheduler.target(),
                dir,
                coresPerExecutor,
                memoryPerExecutor,
                security,
                schedulerHttpPort != -1));
      }
      awaitRegistration();
      LOG.info(
          "embedded cluster started: scheduler {}, {} executors of {} cores",
          scheduler.target(),
          executors,
          coresPerExecutor);
      return this;
    } catch (Exception e) {
      close();
      throw e instanceof QuiverException q
          ? q
          : new QuiverException("Starting the embedded cluster failed: " + e.getMessage(), e);
    }
  }

  private void awaitRegistration() throws InterruptedException {
    long deadline = System.currentTimeMillis() + REGISTRATION_WAIT_MILLIS;
    try (SchedulerClient client = new SchedulerClient(config())) {
      while (true) {
        long alive =
            client.executors().stream()
                .filter(e -> e.getState() == ExecutorState.EXECUTOR_STATE_ALIVE)
                .count();
        if (alive >= executors) {
          return;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new QuiverException(
              "Only "
                  + alive
                  + " of "
                  + executors
                  + " embedded executors registered in "
                  + REGISTRATION_WAIT_MILLIS
                  + " ms");
        }
        Thread.sleep(20);
      }
    }
  }

  private static <T> T load(Class<T> type, String artifact) {
    return ServiceLoader.load(type, EmbeddedCluster.class.getClassLoader())
        .findFirst()
        .orElseThrow(
            () ->
                new QuiverException(
                    "An embedded cluster needs "
                        + artifact
                        + " on the classpath (no "
                        + type.getSimpleName()
                        + " found); add the dev.quiver:"
                        + artifact
                        + " dependency"));
  }

  /** The address and security settings clients use; the cluster must be started. */
  public synchronized ClusterConfig config() {
    if (scheduler == null) {
      throw new QuiverException("The embedded cluster is not started");
    }
    return ClusterConfig.remote(scheduler.target()).withSecurity(security);
  }

  /** The running executors (for tests that stop one). */
  public synchronized List<RunningServer> executors() {
    return List.copyOf(executorServers);
  }

  /** Number of executors. */
  public int size() {
    return executors;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (scheduler != null) {
      scheduler.stopping();
    }
    for (RunningServer e : executorServers) {
      closeQuietly(e);
    }
    executorServers.clear();
    if (scheduler != null) {
      closeQuietly(scheduler);
    }
    if (workRoot != null) {
      deleteTree(workRoot);
    }
    if (scheduler != null) {
      LOG.info("embedded cluster stopped");
    }
  }

  private static void closeQuietly(RunningServer server) {
    try {
      server.close();
    } catch (RuntimeException e) {
      LOG.warn("stopping {} failed: {}", server.id(), e.toString());
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", root, e.toString());
    }
  }
}
