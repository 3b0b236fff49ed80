package dev.quiver.tests.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A Quiver cluster of hosts on one machine, made by {@code deploy/local-hosts/local-hosts.sh}: one
 * network namespace per host (scheduler, executors, client) on a private bridge, links optionally
 * rate-limited and executors optionally held to a CPU quota. Tests drive the same script people
 * run, so both use one mechanism.
 *
 * <p>The test JVM is the client: it stays in the root namespace and reaches the hosts through the
 * bridge's address ({@link #rootAddress()}, {@code .1} of the run's /24), which is unlimited;
 * nothing uses 127.0.0.1. {@link #up} skips the calling test (a JUnit assumption) where namespaces
 * cannot be made (not root, no {@code ip netns}). Every script call is bounded in time; {@link
 * #close()} and a JVM shutdown hook take the hosts down.
 */
public final class LocalHosts implements AutoCloseable {
  /** Bound on one call of the script other than {@code up}. */
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(90);

  /**
   * How to make the hosts.
   *
   * @param executors executor hosts
   * @param link rate of every host's link each way (e.g. {@code 1gbit}) or {@code unlimited}
   * @param executorCpus cgroup CPU quota of each executor (e.g. 0.5), or null for none
   * @param executorCores task slots of each executor, or 0 for the script's default
   * @param executorMemory each executor's {@code --memory}
   * @param startTimeout bound on making the hosts and starting every process
   */
  public record Options(
      int executors,
      String link,
      Double executorCpus,
      int executorCores,
      String executorMemory,
      Duration startTimeout) {
    /** {@code executors} executors, unlimited links, no CPU quota, 1g each, 5 minutes to start. */
    public static Options of(int executors) {
      return new Options(executors, "unlimited", null, 0, "1g", Duration.ofMinutes(5));
    }

    /** Every host's link limited to {@code rate} each way (tc tbf), e.g. {@code 1gbit}. */
    public Options withLink(String rate) {
      return new Options(
          executors, rate, executorCpus, executorCores, executorMemory, startTimeout);
    }

    /** Each executor held to {@code cpus} CPUs (cgroup quota) with {@code cores} task slots. */
    public Options withExecutorCpus(double cpus, int cores) {
      return new Options(executors, link, cpus, cores, executorMemory, startTimeout);
    }

    /** Each executor's Arrow memory ({@code --memory}), e.g. {@code 2g}. */
    public Options withExecutorMemory(String memory) {
      return new Options(executors, link, executorCpus, executorCores, memory, startTimeout);
    }
  }

  /** The script's call failed: its exit status and output say why. */
  public static final class HostsException extends RuntimeException {
    HostsException(String message) {
      super(message);
    }
  }

  private final Path stateDir;
  private final String id;
  private final Map<String, String> env;
  private final Thread shutdownHook;
  private boolean keepLogs;
  private boolean closed;

  private LocalHosts(Path stateDir, String id, Map<String, String> env) {
    this.stateDir = stateDir;
    this.id = id;
    this.env = env;
    this.shutdownHook = new Thread(this::down, "local-hosts-down-" + id);
  }

  /** The script, from the repository root (tests run in the {@code tests} module's folder). */
  static Path script() {
    return Path.of("..", "deploy", "local-hosts", "local-hosts.sh").toAbsolutePath().normalize();
  }

  /**
   * Skips the calling test unless this machine can make hosts: Linux, root, iproute2 and network
   * namespaces (the script's {@code check}).
   */
  public static void assumeAvailable() {
    Assumptions.assumeTrue(
        System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
        "local hosts need Linux network namespaces");
    Result check = call(List.of("bash", script().toString(), "check"), CALL_TIMEOUT);
    Assumptions.assumeTrue(
        check.status() == 0,
        () ->
            "local hosts cannot be made here: "
                + check.output().strip()
                + " (needs root and iproute2)");
  }

  /**
   * Makes the hosts and starts a scheduler and the executors, returning once every executor
   * registered; skips the test where hosts cannot be made. Logs and work folders go under {@code
   * stateDir}.
   */
  public static LocalHosts up(Path stateDir, Options options) {
    assumeAvailable();
    String id = "t" + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "bash",
                script().toString(),
                "up",
                "--id",
                id,
                "--state-dir",
                stateDir.toAbsolutePath().toString(),
                "--executors",
                Integer.toString(options.executors()),
                "--link",
                options.link(),
                "--executor-memory",
                options.executorMemory(),
                "--timeout",
                Long.toString(options.startTimeout().toSeconds())));
    if (options.executorCpus() != null) {
      cmd.addAll(List.of("--executor-cpus", options.executorCpus().toString()));
    }
    if (options.executorCores() > 0) {
      cmd.addAll(List.of("--executor-cores", Integer.toString(options.executorCores())));
    }
    // The script bounds its own waits by --timeout; this bounds the script, with room to clean up.
    Map<String, String> env = new LinkedHashMap<>();
    try {
      Result up = call(cmd, options.startTimeout().plusSeconds(60));
      if (up.status() != 0) {
        throw new HostsException(
            "local-hosts.sh up failed with status " + up.status() + ":\n" + up.output());
      }
      // Its key=value lines (stdout); what it says on stderr starts with "local-hosts:".
      for (String line : up.output().split("\n")) {
        int eq = line.indexOf('=');
        if (eq > 0 && !line.startsWith("local-hosts:")) {
          env.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      if (!env.keySet().containsAll(List.of("scheduler", "root", "state"))) {
        throw new HostsException("local-hosts.sh up printed no scheduler, root or state:\n" + up);
      }
    } catch (HostsException e) {
      // The script's trap took the hosts down unless it was killed; the logs stay for the failure.
      try {
        down(id, stateDir, true);
      } catch (HostsException downFailed) {
        e.addSuppressed(downFailed);
      }
      throw e;
    }
    LocalHosts hosts = new LocalHosts(stateDir, id, env);
    Runtime.getRuntime().addShutdownHook(hosts.shutdownHook);
    return hosts;
  }

  private String require(String key) {
    String value = env.get(key);
    if (value == null) {
      throw new HostsException("local-hosts.sh up printed no " + key + "=: " + env);
    }
    return value;
  }

  /** The run's id (its namespaces are {@code qvh-ID-*}). */
  public String id() {
    return id;
  }

  /** The scheduler's {@code host:port}, an address on the run's bridge. */
  public String scheduler() {
    return require("scheduler");
  }

  /** The root namespace's address on the bridge: where this JVM's calls to the hosts come from. */
  public String rootAddress() {
    return require("root");
  }

  /** The address (no port) executor {@code n} (1-based) listens on and advertises. */
  public String executorAddress(int n) {
    String target = require("executor_" + n);
    return target.substring(0, target.lastIndexOf(':'));
  }

  /** Kills executor {@code n} with SIGKILL and returns once the process has ended. */
  public void killExecutor(int n) {
    checked(List.of("kill-executor", Integer.toString(n), "--signal", "KILL"));
  }

  /**
   * Starts executor {@code n} again (after {@link #killExecutor}) and waits until it registered.
   */
  public void startExecutor(int n) {
    checked(List.of("start-executor", Integer.toString(n)));
  }

  /**
   * Runs {@code command} in the client host (its own namespace, {@code $QUIVER_SCHEDULER} set),
   * from this JVM's working directory; returns its exit status and output.
   */
  public Result runInClient(List<String> command, Duration timeout) {
    List<String> cmd =
        new ArrayList<>(List.of("bash", script().toString(), "run", "--id", id, "--"));
    cmd.addAll(command);
    return call(cmd, timeout);
  }

  /** Keeps the logs and work folders under the state folder when the hosts go down. */
  public void keepLogs() {
    keepLogs = true;
  }

  private void checked(List<String> args) {
    List<String> cmd = new ArrayList<>(List.of("bash", script().toString()));
    cmd.addAll(args);
    cmd.addAll(List.of("--id", id));
    Result r = call(cmd, CALL_TIMEOUT);
    if (r.status() != 0) {
      throw new HostsException(
          "local-hosts.sh "
              + String.join(" ", args)
              + " failed with status "
              + r.status()
              + ":\n"
              + r.output());
    }
  }

  /** Stops every process and deletes the namespaces, links, cgroups and (unless kept) the logs. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down: the hook runs down itself.
    }
    down();
  }

  private synchronized void down() {
    if (!closed) {
      closed = true;
      down(id, stateDir, keepLogs);
    }
  }

  private static void down(String id, Path stateDir, boolean keepLogs) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "bash",
                script().toString(),
                "down",
                "--id",
                id,
                "--state-dir",
                stateDir.toAbsolutePath().toString()));
    if (keepLogs) {
      cmd.add("--keep-logs");
    }
    Result r = call(cmd, CALL_TIMEOUT);
    if (r.status() != 0) {
      throw new HostsException("local-hosts.sh down --id " + id + " failed:\n" + r.output());
    }
  }

  /** A finished call: its exit status and its standard output and error, interleaved. */
  public record Result(int status, String output) {}

  /**
   * Runs {@code cmd}, its output going to a temporary file (so that no pipe can fill up); past
   * {@code timeout} the script gets SIGTERM (its trap cleans up) and then SIGKILL.
   */
  private static Result call(List<String> cmd, Duration timeout) {
    Path out = null;
    try {
      out = Files.createTempFile("local-hosts-", ".out");
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        throw new HostsException(
            String.join(" ", cmd)
                + " did not finish within "
                + timeout.toSeconds()
                + " s:\n"
                + Files.readString(out, StandardCharsets.UTF_8));
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new HostsException("running " + String.join(" ", cmd) + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HostsException("interrupted while running " + String.join(" ", cmd));
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          // A temporary file left behind is harmless.
        }
      }
    }
  }
}
