package dev.quiver.scheduler;

import com.google.inject.Guice;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.cli.ListenOptions;
import dev.quiver.distributed.cli.SecurityOptions;
import dev.quiver.distributed.cli.WireVersion;
import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.logging.ProcessLogging;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.scheduler.admission.ResourceGroups;
import dev.quiver.scheduler.config.Exclusion;
import dev.quiver.scheduler.config.History;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.config.Speculation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Command line of the scheduler jar: runs a scheduler until the process is stopped. */
@Command(
    name = "quiver-scheduler",
    mixinStandardHelpOptions = true,
    versionProvider = WireVersion.class,
    description =
        "Runs the Quiver scheduler: executors register with it and clients submit jobs over gRPC.")
public final class SchedulerMain implements Callable<Integer> {

  @Mixin ListenOptions listen = new ListenOptions(SchedulerConfig.DEFAULT_HOST);

  @Mixin SecurityOptions securityOptions;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Port to listen on, 0 for any (default: ${DEFAULT-VALUE}).")
  int port = SchedulerConfig.DEFAULT_PORT;

  @Option(
      names = "--heartbeat-interval-ms",
      paramLabel = "MS",
      description = "How often executors heartbeat (default: ${DEFAULT-VALUE}).")
  long heartbeatIntervalMillis = SchedulerConfig.defaults().heartbeatInterval().toMillis();

  @Option(
      names = "--heartbeat-timeout-ms",
      paramLabel = "MS",
      description = "Silence after which an executor is lost (default: ${DEFAULT-VALUE}).")
  long heartbeatTimeoutMillis = SchedulerConfig.defaults().heartbeatTimeout().toMillis();

  @Option(
      names = "--max-task-attempts",
      paramLabel = "N",
      description =
          "Attempts a task gets against transient failures before its job fails"
              + " (default: ${DEFAULT-VALUE}).")
  int maxTaskAttempts = SchedulerConfig.DEFAULT_MAX_TASK_ATTEMPTS;

  @Option(
      names = "--no-executor-timeout-ms",
      paramLabel = "MS",
      description =
          "How long a job waits for an executor to register before it fails"
              + " (default: ${DEFAULT-VALUE}).")
  long noExecutorTimeoutMillis = SchedulerConfig.DEFAULT_NO_EXECUTOR_TIMEOUT.toMillis();

  @Option(
      names = "--job-retention-ms",
      paramLabel = "MS",
      description =
          "How long a finished job stays available for status (default: ${DEFAULT-VALUE}).")
  long jobRetentionMillis = SchedulerConfig.DEFAULT_FINISHED_JOB_RETENTION.toMillis();

  @Option(
      names = "--speculation",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Give a task much slower than its stage's finished tasks a second attempt on another"
              + " executor; the first to finish wins (default: on; --no-speculation turns it"
              + " off).")
  boolean speculation = true;

  @Option(
      names = "--speculation-multiplier",
      paramLabel = "X",
      description =
          "How many times the median of its stage's finished tasks a task must run before it"
              + " gets a speculative copy (default: ${DEFAULT-VALUE}).")
  double speculationMultiplier = Speculation.DEFAULT.multiplier();

  @Option(
      names = "--speculation-quantile",
      paramLabel = "Q",
      description =
          "Share of a stage's tasks (0 to 1) that must have finished before its stragglers get"
              + " speculative copies (default: ${DEFAULT-VALUE}).")
  double speculationQuantile = Speculation.DEFAULT.quantile();

  @Option(
      names = "--speculation-min-runtime-ms",
      paramLabel = "MS",
      description =
          "Running time below which no task gets a speculative copy (default: ${DEFAULT-VALUE}).")
  long speculationMinRuntimeMillis = Speculation.DEFAULT.minRuntime().toMillis();

  @Option(
      names = "--exclude-after-failures",
      paramLabel = "N",
      description =
          "Task attempts failing in a row on one executor (for reasons outside their query) after"
              + " which it gets no tasks for --exclusion-ms (default: ${DEFAULT-VALUE}).")
  int excludeAfterFailures = Exclusion.DEFAULT.failures();

  @Option(
      names = "--exclusion-ms",
      paramLabel = "MS",
      description =
          "How long an executor whose tasks keep failing, or whose disk fails, gets no tasks"
              + " (default: ${DEFAULT-VALUE}).")
  long exclusionMillis = Exclusion.DEFAULT.duration().toMillis();

  @Option(
      names = "--resource-groups",
      paramLabel = "FILE",
      description =
          "JSON file of resource groups (per group maxRunning, maxQueued, weight, memoryShare),"
              + " selectors putting users' jobs in groups, and the default group (default: one"
              + " unlimited group). See the README's 'Users and resource groups'.")
  Path resourceGroupsFile;

  @Option(
      names = "--query-max-memory",
      paramLabel = "SIZE",
      description =
          "Most Arrow memory one query may hold on all executors together, e.g. 4g; caps the"
              + " session's quiver.query.max_memory (default: no limit).")
  String queryMaxMemory;

  @Option(
      names = "--query-max-memory-per-executor",
      paramLabel = "SIZE",
      description =
          "Most Arrow memory one query may hold on one executor, e.g. 1g; caps the session's"
              + " quiver.query.max_memory_per_executor (default: the executor's memory).")
  String queryMaxMemoryPerExecutor;

  @Option(
      names = "--query-max-run-time",
      paramLabel = "DURATION",
      description =
          "Longest one query may take from submission to its end, e.g. 30m; caps the session's"
              + " quiver.query.max_run_time (default: no limit).")
  String queryMaxRunTime;

  @Option(
      names = "--query-max-queued-time",
      paramLabel = "DURATION",
      description =
          "Longest one query may wait in its resource group's queue, e.g. 5m; caps the session's"
              + " quiver.query.max_queued_time (default: no limit).")
  String queryMaxQueuedTime;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      description =
          "The scheduler's state folder: finished jobs are kept in a database there (history.mv.db)"
              + " so the jobs API and web UI show them across restarts (default: none; the last"
              + " 100 finished jobs are kept in memory only).")
  Path stateDir;

  @Option(
      names = "--history-max-jobs",
      paramLabel = "N",
      description =
          "Finished jobs the history in --state-dir keeps at most; the oldest go first"
              + " (default: ${DEFAULT-VALUE}).")
  int historyMaxJobs = History.DEFAULT.maxJobs();

  @Option(
      names = "--history-max-age",
      paramLabel = "AGE",
      converter = AgeConverter.class,
      description =
          "Finished jobs older than this leave the history in --state-dir: a number with d, h or"
              + " m, e.g. 30d or 12h (default: 30d).")
  Duration historyMaxAge = History.DEFAULT.maxAge();

  @Spec CommandSpec spec;

  /** A history age: a positive number of days (d), hours (h) or minutes (m). */
  static final class AgeConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim();
      if (v.matches("[0-9]{1,6}[dhm]")) {
        long n = Long.parseLong(v.substring(0, v.length() - 1));
        Duration age =
            switch (v.charAt(v.length() - 1)) {
              case 'd' -> Duration.ofDays(n);
              case 'h' -> Duration.ofHours(n);
              default -> Duration.ofMinutes(n);
            };
        if (!age.isZero()) {
          return age;
        }
      }
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not an age; use a positive number with d, h or m, e.g. 30d");
    }
  }

  /** Runs the scheduler until interrupted or killed. */
  public static void main(String[] args) {
    ProcessLogging.install("info");
    System.exit(new CommandLine(new SchedulerMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    SecurityConfig security = securityOptions.config();
    ResourceGroups groups;
    QueryLimits queryLimits;
    try {
      groups =
          resourceGroupsFile == null
              ? ResourceGroups.single()
              : ResourceGroups.load(resourceGroupsFile);
      queryLimits =
          new QueryLimits(
              queryMaxMemory == null ? 0 : QueryLimits.MAX_MEMORY.parse(queryMaxMemory),
              queryMaxMemoryPerExecutor == null
                  ? 0
                  : QueryLimits.MAX_MEMORY_PER_EXECUTOR.parse(queryMaxMemoryPerExecutor),
              queryMaxRunTime == null
                  ? Duration.ZERO
                  : QueryLimits.MAX_RUN_TIME.parse(queryMaxRunTime),
              queryMaxQueuedTime == null
                  ? Duration.ZERO
                  : QueryLimits.MAX_QUEUED_TIME.parse(queryMaxQueuedTime));
    } catch (QuiverException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    int httpPort = listen.httpPort(SchedulerConfig.NO_HTTP);
    SchedulerConfig config;
    try {
      config =
          SchedulerConfig.builder()
              .host(listen.host())
              .port(port)
              .heartbeatInterval(Duration.ofMillis(heartbeatIntervalMillis))
              .heartbeatTimeout(Duration.ofMillis(heartbeatTimeoutMillis))
              .maxTaskAttempts(maxTaskAttempts)
              .noExecutorTimeout(Duration.ofMillis(noExecutorTimeoutMillis))
              .finishedJobRetention(Duration.ofMillis(jobRetentionMillis))
              .security(security)
              .httpPort(httpPort)
              .advertiseHost(listen.advertiseHost())
              .speculation(
                  (speculation ? Speculation.DEFAULT : Speculation.off())
                      .withMultiplier(speculationMultiplier)
                      .withQuantile(speculationQuantile)
                      .withMinRuntime(Duration.ofMillis(speculationMinRuntimeMillis)))
              .exclusion(new Exclusion(excludeAfterFailures, Duration.ofMillis(exclusionMillis)))
              .resourceGroups(groups)
              .queryLimits(queryLimits)
              .history(new History(stateDir, historyMaxJobs, historyMaxAge))
              .build();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    SchedulerLifecycle lifecycle =
        Guice.createInjector(new SchedulerModule(config)).getInstance(SchedulerLifecycle.class);
    SchedulerServer server = lifecycle.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    lifecycle.close();
                  } finally {
                    stopped.countDown();
                  }
                },
                "quiver-scheduler-shutdown"));
    System.out.println(
        "Quiver scheduler listening on "
            + listen.host()
            + ":"
            + server.port()
            + (server.httpPort() < 0 ? "" : ", HTTP port " + server.httpPort())
            + ", advertised as "
            + server.advertisedTarget());
    stopped.await();
    return 0;
  }
}
