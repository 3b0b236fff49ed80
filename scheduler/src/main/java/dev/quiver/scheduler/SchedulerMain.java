package dev.quiver.scheduler;

import com.google.inject.Guice;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.logging.ProcessLogging;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.wire.WireProtocol;
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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Command line of the scheduler jar: runs a scheduler until the process is stopped. */
@Command(
    name = "quiver-scheduler",
    mixinStandardHelpOptions = true,
    versionProvider = SchedulerMain.Version.class,
    description =
        "Runs the Quiver scheduler: executors register with it and clients submit jobs over gRPC.")
public final class SchedulerMain implements Callable<Integer> {

  @Option(
      names = "--host",
      paramLabel = "HOST",
      description =
          "Address to listen on, gRPC and HTTP; 0.0.0.0 for every interface"
              + " (default: ${DEFAULT-VALUE}).")
  String host = SchedulerConfig.DEFAULT_HOST;

  @Option(
      names = "--advertise-host",
      paramLabel = "HOST",
      description =
          "Address executors and clients reach this scheduler at, as shown in logs and the web"
              + " UI (default: --host, or this machine's name when --host is a wildcard).")
  String advertiseHost;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      description =
          "Serve /healthz, /readyz, /metrics, the /api/ JSON API and the web UI on this port of"
              + " --host, with the same TLS and token; 0 for any free port (default: none).")
  Integer httpPort;

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
      names = "--tls-cert",
      paramLabel = "PEM",
      description = "Certificate chain to serve TLS with (needs --tls-key).")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "Private key of --tls-cert (unencrypted PKCS#8 PEM).")
  Path tlsKey;

  @Option(
      names = "--tls-ca",
      paramLabel = "PEM",
      description =
          "CA certificates that verify executors' certificates (default with --tls-cert: the"
              + " JDK's trusted roots).")
  Path tlsCa;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "File holding the clients' token: every call must carry it (or the cluster"
              + " credential). Without --cluster-token-file it is the single token of every role:"
              + " anyone holding it can also register as an executor.")
  Path tokenFile;

  @Option(
      names = "--cluster-token-file",
      paramLabel = "FILE",
      description =
          "File holding the cluster credential, which executors and the scheduler present to"
              + " each other and clients do not have: only its holders may register as"
              + " executors, heartbeat and report tasks, and the scheduler sends it to executors."
              + " Needs --token-file; recommended whenever clients have a token.")
  Path clusterTokenFile;

  @Option(
      names = "--users-file",
      paramLabel = "FILE",
      description =
          "File of the cluster's users, one 'user:token-file' line each (a relative token file is"
              + " read from this file's folder): a call carrying a user's token runs as that user,"
              + " with the clients' role; the user selects the job's resource group.")
  Path usersFile;

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

  /** -V: the release and the wire protocol it speaks. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {
        "quiver-scheduler "
            + WireProtocol.softwareVersion()
            + " (wire protocol "
            + WireProtocol.VERSION
            + ")"
      };
    }
  }

  /** Runs the scheduler until interrupted or killed. */
  public static void main(String[] args) {
    ProcessLogging.install("info");
    System.exit(new CommandLine(new SchedulerMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    SecurityConfig security;
    ResourceGroups groups;
    QueryLimits queryLimits;
    try {
      security = SecurityConfig.fromFiles(tlsCert, tlsKey, tlsCa, tokenFile);
      if (clusterTokenFile != null) {
        security = security.withClusterTokenFile(clusterTokenFile);
      }
      if (usersFile != null) {
        security = security.withUsersFile(usersFile);
      }
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
    if (httpPort != null && (httpPort < 0 || httpPort > 65535)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--http-port must be in 0..65535, got " + httpPort);
    }
    SchedulerConfig config;
    try {
      config =
          SchedulerConfig.builder()
              .host(host)
              .port(port)
              .heartbeatInterval(Duration.ofMillis(heartbeatIntervalMillis))
              .heartbeatTimeout(Duration.ofMillis(heartbeatTimeoutMillis))
              .maxTaskAttempts(maxTaskAttempts)
              .noExecutorTimeout(Duration.ofMillis(noExecutorTimeoutMillis))
              .finishedJobRetention(Duration.ofMillis(jobRetentionMillis))
              .security(security)
              .httpPort(httpPort == null ? SchedulerConfig.NO_HTTP : httpPort)
              .advertiseHost(advertiseHost)
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
            + host
            + ":"
            + server.port()
            + (server.httpPort() < 0 ? "" : ", HTTP port " + server.httpPort())
            + ", advertised as "
            + server.advertisedTarget());
    stopped.await();
    return 0;
  }
}
