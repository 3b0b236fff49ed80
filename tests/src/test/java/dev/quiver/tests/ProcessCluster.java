package dev.quiver.tests;

import dev.quiver.distributed.ClusterConfig;
import dev.quiver.distributed.client.SchedulerClient;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.security.SecurityConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cluster of separate processes started from the runnable jars: one scheduler and N executors
 * on 127.0.0.1. Each process's output goes to a log file in the given directory; closing kills
 * every process and waits for it.
 */
final class ProcessCluster implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on ([\\w.]+):(\\d+)");

  private final Path dir;
  private final List<String> serverArgs;
  private final SecurityConfig clientSecurity;
  private final List<Process> executors = new ArrayList<>();
  private Process scheduler;
  private String target;

  private ProcessCluster(Path dir, List<String> serverArgs, SecurityConfig clientSecurity) {
    this.dir = dir;
    this.serverArgs = List.copyOf(serverArgs);
    this.clientSecurity = clientSecurity;
  }

  /** The runnable jar built by module {@code module} (the reactor packages it before tests). */
  static Path jar(String module, String name) {
    Path jar = Path.of("..", module, "target", name).toAbsolutePath().normalize();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build it with mvn -DskipTests package first");
    }
    return jar;
  }

  /**
   * Starts a scheduler and {@code executors} executors with {@code cores} slots each; {@code
   * extraClasspath} (may be null) goes to the executors' --classpath.
   */
  static ProcessCluster start(Path dir, int executors, int cores, Path extraClasspath)
      throws Exception {
    return start(dir, executors, cores, extraClasspath, List.of(), SecurityConfig.none());
  }

  /**
   * As {@link #start(Path, int, int, Path)}, passing {@code serverArgs} (e.g. --tls-cert,
   * --token-file) to the scheduler and every executor; the cluster is checked with a client using
   * {@code clientSecurity}.
   */
  static ProcessCluster start(
      Path dir,
      int executors,
      int cores,
      Path extraClasspath,
      List<String> serverArgs,
      SecurityConfig clientSecurity)
      throws Exception {
    ProcessCluster c = new ProcessCluster(dir, serverArgs, clientSecurity);
    try {
      c.startScheduler();
      for (int i = 0; i < executors; i++) {
        c.startExecutor(i, cores, extraClasspath);
      }
      c.awaitExecutors(executors);
      return c;
    } catch (Exception | Error e) {
      c.close();
      throw e;
    }
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private void startScheduler() throws Exception {
    Path log = dir.resolve("scheduler.log");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java(),
                "-Xmx512m",
                "-jar",
                jar("scheduler", "quiver-scheduler.jar").toString(),
                "--port",
                "0"));
    cmd.addAll(serverArgs);
    scheduler =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .start();
    CompletableFuture<String> address = new CompletableFuture<>();
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                      new BufferedReader(
                          new InputStreamReader(scheduler.getInputStream(), StandardCharsets.UTF_8));
                  var out = Files.newBufferedWriter(log)) {
                String line;
                while ((line = r.readLine()) != null) {
                  out.write(line);
                  out.newLine();
                  out.flush();
                  Matcher m = LISTENING.matcher(line);
                  if (m.find()) {
                    address.complete(m.group(1) + ":" + m.group(2));
                  }
                }
              } catch (IOException e) {
                address.completeExceptionally(e);
              }
              address.completeExceptionally(new IllegalStateException("scheduler exited"));
            },
            "scheduler-log");
    pump.setDaemon(true);
    pump.start();
    target = address.get(60, TimeUnit.SECONDS);
  }

  private void startExecutor(int i, int cores, Path extraClasspath) throws IOException {
    Path work = Files.createDirectories(dir.resolve("executor-" + i));
    List<String> cmd = new ArrayList<>(List.of(
        java(),
        "-Xmx1g",
        "-jar",
        jar("executor", "quiver-executor.jar").toString(),
        "--scheduler",
        target,
        "--port",
        "0",
        "--id",
        "exec-" + i,
        "--work-dir",
        work.toString(),
        "--cores",
        Integer.toString(cores),
        "--memory",
        "1g"));
    if (extraClasspath != null) {
      cmd.add("--classpath");
      cmd.add(extraClasspath.toString());
    }
    cmd.addAll(serverArgs);
    executors.add(
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("executor-" + i + ".log").toFile())
            .start());
  }

  private void awaitExecutors(int n) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    ClusterConfig config = ClusterConfig.remote(target).withSecurity(clientSecurity);
    try (SchedulerClient client = new SchedulerClient(config)) {
      while (true) {
        long alive =
            client.executors().stream()
                .filter(e -> e.getState() == ExecutorState.EXECUTOR_STATE_ALIVE)
                .count();
        if (alive >= n) {
          return;
        }
        for (Process p : executors) {
          if (!p.isAlive()) {
            throw new IllegalStateException(
                "an executor exited with " + p.exitValue() + "; see the logs in " + dir);
          }
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(alive + " of " + n + " executors registered; logs in " + dir);
        }
        Thread.sleep(50);
      }
    }
  }

  /** The scheduler's {@code host:port}. */
  String target() {
    return target;
  }

  /** The directory holding the processes' logs ({@code scheduler.log}, {@code executor-N.log}). */
  Path dir() {
    return dir;
  }

  /** The executor processes, in start order. */
  List<Process> executors() {
    return executors;
  }

  @Override
  public void close() {
    List<Process> all = new ArrayList<>(executors);
    if (scheduler != null) {
      all.add(scheduler);
    }
    for (Process p : all) {
      p.destroy();
    }
    for (Process p : all) {
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
