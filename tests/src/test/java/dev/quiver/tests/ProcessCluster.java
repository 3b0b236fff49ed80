package dev.quiver.tests;

import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.SchedulerClient;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.security.SecurityConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A cluster of separate processes started from the runnable jars: one scheduler and N executors on
 * 127.0.0.1. Each process's output goes to a log file in the given directory; closing kills every
 * process and waits for it. Fault tests kill executors (SIGKILL), start replacements and restart
 * the scheduler on its port.
 */
final class ProcessCluster implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on ([\\w.]+):(\\d+)");
  private static final Pattern HTTP_PORT = Pattern.compile("HTTP port (\\d+)");

  /**
   * Extra command-line options of the scheduler and of every executor, and the security the test's
   * own clients use to reach the cluster.
   */
  record Options(
      int cores,
      Path extraClasspath,
      List<String> schedulerArgs,
      List<String> executorArgs,
      SecurityConfig clientSecurity,
      boolean http,
      List<String> executorHosts,
      Map<String, String> executorEnvironment) {
    /** Without HTTP endpoints, every executor on 127.0.0.1, no extra environment. */
    Options(
        int cores,
        Path extraClasspath,
        List<String> schedulerArgs,
        List<String> executorArgs,
        SecurityConfig clientSecurity) {
      this(
          cores,
          extraClasspath,
          schedulerArgs,
          executorArgs,
          clientSecurity,
          false,
          List.of(),
          Map.of());
    }

    /** {@code cores} slots per executor, no extra options. */
    static Options of(int cores) {
      return new Options(cores, null, List.of(), List.of(), SecurityConfig.none());
    }

    Options withSchedulerArgs(String... args) {
      return new Options(
          cores,
          extraClasspath,
          List.of(args),
          executorArgs,
          clientSecurity,
          http,
          executorHosts,
          executorEnvironment);
    }

    Options withExecutorArgs(String... args) {
      return new Options(
          cores,
          extraClasspath,
          schedulerArgs,
          List.of(args),
          clientSecurity,
          http,
          executorHosts,
          executorEnvironment);
    }

    /**
     * Every server also serves HTTP (health, metrics; the scheduler's API and UI), on free ports.
     */
    Options withHttp() {
      return new Options(
          cores,
          extraClasspath,
          schedulerArgs,
          executorArgs,
          clientSecurity,
          true,
          executorHosts,
          executorEnvironment);
    }

    /**
     * Executors listen on (and advertise) these addresses in turn (e.g. 127.0.0.2, 127.0.0.3),
     * while the scheduler and the test's clients stay on 127.0.0.1.
     */
    Options withExecutorHosts(String... hosts) {
      return new Options(
          cores,
          extraClasspath,
          schedulerArgs,
          executorArgs,
          clientSecurity,
          http,
          List.of(hosts),
          executorEnvironment);
    }

    /** Extra environment variables of every executor process (e.g. AWS credentials). */
    Options withExecutorEnvironment(Map<String, String> env) {
      return new Options(
          cores,
          extraClasspath,
          schedulerArgs,
          executorArgs,
          clientSecurity,
          http,
          executorHosts,
          Map.copyOf(env));
    }
  }

  private final Path dir;
  private final Options options;
  private final Map<String, Process> executors = new LinkedHashMap<>();
  private final List<Process> dead = new ArrayList<>();
  private Process scheduler;
  private String target;
  private volatile int schedulerHttpPort = -1;
  private int schedulerStarts;
  private int executorSeq;

  private ProcessCluster(Path dir, Options options) {
    this.dir = dir;
    this.options = options;
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
    return start(
        dir,
        executors,
        new Options(cores, extraClasspath, List.of(), List.of(), SecurityConfig.none()));
  }

  /**
   * As {@link #start(Path, int, int, Path)}, passing {@code serverArgs} (e.g. --tls-cert,
   * --token-file) to the scheduler and every executor; the test's clients use {@code
   * clientSecurity}.
   */
  static ProcessCluster start(
      Path dir,
      int executors,
      int cores,
      Path extraClasspath,
      List<String> serverArgs,
      SecurityConfig clientSecurity)
      throws Exception {
    return start(
        dir, executors, new Options(cores, extraClasspath, serverArgs, serverArgs, clientSecurity));
  }

  /** Starts a scheduler and {@code executors} executors as {@code options} say. */
  static ProcessCluster start(Path dir, int executors, Options options) throws Exception {
    ProcessCluster c = new ProcessCluster(dir, options);
    try {
      c.startScheduler(0);
      for (int i = 0; i < executors; i++) {
        c.launchExecutor();
      }
      c.awaitExecutors(executors);
      return c;
    } catch (Exception | Error e) {
      c.close();
      throw e;
    }
  }

  /**
   * Points a child JVM's temporary directory into the cluster's directory: native libraries that
   * Arrow, Snappy and zstd unpack there are deleted at exit, which a SIGKILLed process never
   * reaches, and the cluster's directory is removed with the test.
   */
  private String tmpDirOption(String process) throws IOException {
    return "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp-" + process));
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private void startScheduler(int port) throws Exception {
    Path log = dir.resolve("scheduler-" + schedulerStarts++ + ".log");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java(),
                "-Xmx512m",
                tmpDirOption("scheduler"),
                "-jar",
                jar("scheduler", "quiver-scheduler.jar").toString(),
                "--port",
                Integer.toString(port)));
    if (options.http()) {
      cmd.addAll(List.of("--http-port", "0"));
    }
    cmd.addAll(options.schedulerArgs());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    scheduler = p;
    CompletableFuture<String> address = new CompletableFuture<>();
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                      new BufferedReader(
                          new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                  var out = Files.newBufferedWriter(log)) {
                String line;
                while ((line = r.readLine()) != null) {
                  out.write(line);
                  out.newLine();
                  out.flush();
                  Matcher http = HTTP_PORT.matcher(line);
                  if (http.find()) {
                    schedulerHttpPort = Integer.parseInt(http.group(1));
                  }
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

  /** Starts one more executor process (id {@code exec-N}); returns its id at once. */
  private String launchExecutor() throws IOException {
    return launchExecutor(List.of());
  }

  /**
   * Starts one more executor with {@code extraArgs} after the cluster's (e.g. a disk limit of its
   * own) and waits until every running executor is registered.
   */
  String startExecutor(List<String> extraArgs) throws Exception {
    String id = launchExecutor(extraArgs);
    awaitExecutors(executors.size());
    return id;
  }

  private String launchExecutor(List<String> extraArgs) throws IOException {
    int seq = executorSeq++;
    String id = "exec-" + seq;
    Path work = Files.createDirectories(workDir(id));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java(),
                "-Xmx1g",
                tmpDirOption(id),
                "-jar",
                jar("executor", "quiver-executor.jar").toString(),
                "--scheduler",
                target,
                "--port",
                "0",
                "--id",
                id,
                "--work-dir",
                work.toString(),
                "--cores",
                Integer.toString(options.cores())));
    if (!options.executorArgs().contains("--memory")) {
      cmd.addAll(List.of("--memory", "1g"));
    }
    if (options.extraClasspath() != null) {
      cmd.add("--classpath");
      cmd.add(options.extraClasspath().toString());
    }
    if (options.http()) {
      cmd.addAll(List.of("--http-port", "0"));
    }
    if (!options.executorHosts().isEmpty()) {
      cmd.addAll(
          List.of("--host", options.executorHosts().get(seq % options.executorHosts().size())));
    }
    if (!options.executorArgs().contains("--allowed-paths")) {
      cmd.addAll(List.of("--allowed-paths", testDataRoots()));
    }
    cmd.addAll(options.executorArgs());
    cmd.addAll(extraArgs);
    ProcessBuilder builder =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(id + ".log").toFile());
    builder.environment().putAll(options.executorEnvironment());
    executors.put(id, builder.start());
    return id;
  }

  /**
   * What the tests' executors and servers may read through SQL: the test data (TPC-H under target/,
   * files in temporary folders). Tests of the restriction itself pass their own.
   */
  static String testDataRoots() {
    return Path.of("target").toAbsolutePath() + "," + Path.of(System.getProperty("java.io.tmpdir"));
  }

  /** Starts a replacement executor and waits until every running executor is registered. */
  String startExecutor() throws Exception {
    String id = launchExecutor();
    awaitExecutors(executors.size());
    return id;
  }

  /** Kills an executor with SIGKILL (no shutdown hook runs) and waits for the process to end. */
  void killExecutor(String id) {
    Process p = executors.remove(id);
    if (p == null) {
      throw new IllegalArgumentException("no running executor " + id + " in " + executors.keySet());
    }
    p.destroyForcibly();
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("executor " + id + " survived SIGKILL for 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    dead.add(p);
  }

  /** Stops executor {@code id} with SIGSTOP: it keeps its connections but answers nothing. */
  void stopExecutor(String id) {
    signal(id, "STOP");
  }

  /** Lets an executor stopped with {@link #stopExecutor} run again (SIGCONT). */
  void continueExecutor(String id) {
    signal(id, "CONT");
  }

  private void signal(String id, String signal) {
    Process p = executors.get(id);
    if (p == null) {
      throw new IllegalArgumentException("no running executor " + id + " in " + executors.keySet());
    }
    signal(p.pid(), signal);
  }

  /** Sends {@code signal} (e.g. STOP, CONT) to process {@code pid} with kill(1). */
  static void signal(long pid, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("kill -" + signal + " " + pid + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + pid, e);
    }
  }

  /**
   * Kills the scheduler with SIGKILL and starts a new one on the same port; executors keep running
   * and must register with the new one on their own.
   */
  void restartScheduler() throws Exception {
    int port = Integer.parseInt(target.substring(target.lastIndexOf(':') + 1));
    scheduler.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    dead.add(scheduler);
    startScheduler(port);
  }

  /** Waits until at least {@code n} executors are registered and alive. */
  void awaitExecutors(int n) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (true) {
      long alive =
          statuses().stream()
              .filter(e -> e.getState() == ExecutorState.EXECUTOR_STATE_ALIVE)
              .count();
      if (alive >= n) {
        return;
      }
      for (Map.Entry<String, Process> e : executors.entrySet()) {
        if (!e.getValue().isAlive()) {
          throw new IllegalStateException(
              e.getKey() + " exited with " + e.getValue().exitValue() + "; see the logs in " + dir);
        }
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(
            alive + " of " + n + " executors registered; logs in " + dir);
      }
      Thread.sleep(50);
    }
  }

  /** The process id of executor {@code id} (e.g. to limit its CPU). */
  long executorPid(String id) {
    Process p = executors.get(id);
    if (p == null) {
      throw new IllegalArgumentException("no running executor " + id);
    }
    return p.pid();
  }

  /** How the test's own clients reach the scheduler. */
  ClusterConfig clientConfig() {
    return ClusterConfig.remote(target).withSecurity(options.clientSecurity());
  }

  /** The directory holding the processes' logs. */
  Path dir() {
    return dir;
  }

  /** Every executor the scheduler knows, lost ones included, as of their last heartbeat. */
  List<ExecutorStatus> statuses() {
    try (SchedulerClient client = new SchedulerClient(clientConfig())) {
      return client.executorsIncludingLost();
    }
  }

  /**
   * Waits until every alive executor's last heartbeat satisfies {@code condition}; returns those
   * statuses. Fails after {@code timeoutMillis}.
   */
  List<ExecutorStatus> awaitAllExecutors(
      String what, Predicate<ExecutorStatus> condition, long timeoutMillis)
      throws InterruptedException {
    long start = System.currentTimeMillis();
    long deadline = start + timeoutMillis;
    List<ExecutorStatus> alive;
    while (true) {
      alive =
          statuses().stream()
              .filter(e -> e.getState() == ExecutorState.EXECUTOR_STATE_ALIVE)
              .toList();
      // Only heartbeats sent after the call count: an older one may predate the work awaited.
      if (!alive.isEmpty()
          && alive.stream().allMatch(e -> e.getLastSeenUnixMillis() > start && condition.test(e))) {
        return alive;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError(
            "executors did not reach: " + what + " within " + timeoutMillis + " ms: " + alive);
      }
      Thread.sleep(100);
    }
  }

  /** The work directory of executor {@code id}. */
  Path workDir(String id) {
    return dir.resolve("work-" + id);
  }

  /** Regular files under executor {@code id}'s work directory (spill and shuffle files). */
  List<Path> filesIn(String id) throws IOException {
    try (Stream<Path> files = Files.walk(workDir(id))) {
      // The lock file in each of the executor's folders marks them as a live executor's.
      return files
          .filter(Files::isRegularFile)
          .filter(f -> !f.getFileName().toString().equals(".executor.lock"))
          .toList();
    }
  }

  /** The log of executor {@code id}. */
  String executorLog(String id) throws IOException {
    return Files.readString(dir.resolve(id + ".log"));
  }

  /** The scheduler's HTTP base URL ({@link Options#withHttp()} only). */
  String schedulerHttp() {
    if (schedulerHttpPort < 0) {
      throw new IllegalStateException(
          "the scheduler serves no HTTP; start it with Options.withHttp");
    }
    return "http://127.0.0.1:" + schedulerHttpPort;
  }

  /** The scheduler's {@code host:port}. */
  String target() {
    return target;
  }

  /** The ids of the executor processes running now, in start order. */
  List<String> executorIds() {
    return List.copyOf(executors.keySet());
  }

  /** The scheduler process running now. */
  Process schedulerProcess() {
    return scheduler;
  }

  /** The executor process {@code id}, or null when it is not running. */
  Process executorProcess(String id) {
    return executors.get(id);
  }

  /** The executor processes running now, in start order. */
  List<Process> executors() {
    return List.copyOf(executors.values());
  }

  @Override
  public void close() {
    List<Process> all = new ArrayList<>(executors.values());
    if (scheduler != null) {
      all.add(scheduler);
    }
    for (Process p : all) {
      // A process stopped with SIGSTOP would not run its shutdown hook until continued.
      if (p.isAlive()) {
        try {
          signal(p.pid(), "CONT");
        } catch (IllegalStateException e) {
          // It ended meanwhile.
        }
      }
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
    executors.clear();
  }

  /** Deletes {@code dir} and everything in it, best effort (logs and work directories). */
  static void deleteTree(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException e) {
      // Diagnostics only: a leftover log must not fail the test that wrote it.
    }
  }
}
