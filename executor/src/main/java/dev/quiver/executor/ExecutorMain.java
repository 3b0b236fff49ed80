package dev.quiver.executor;

import com.google.inject.Guice;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.io.LocalFileAccess;
import dev.quiver.distributed.cli.ListenOptions;
import dev.quiver.distributed.cli.SecurityOptions;
import dev.quiver.distributed.cli.WireVersion;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.codec.StageDecoder;
import dev.quiver.distributed.logging.ProcessLogging;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Command line of the executor jar: runs an executor until the process is stopped. */
@Command(
    name = "quiver-executor",
    mixinStandardHelpOptions = true,
    versionProvider = WireVersion.class,
    description =
        "Runs a Quiver executor: runs the scheduler's tasks and serves their shuffle output over"
            + " Arrow Flight.")
public final class ExecutorMain implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin ListenOptions listen = new ListenOptions(ExecutorConfig.DEFAULT_HOST);

  @Mixin SecurityOptions securityOptions;

  @Option(
      names = "--scheduler",
      required = true,
      paramLabel = "HOST:PORT",
      description = "Scheduler to register with, e.g. localhost:50050.")
  String scheduler;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Flight port, 0 for any (default: ${DEFAULT-VALUE}).")
  int port = ExecutorConfig.DEFAULT_PORT;

  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      required = true,
      description = "Directory for spill files.")
  Path workDir;

  @Option(names = "--id", paramLabel = "ID", description = "Executor id (default: a random one).")
  String id;

  @Option(
      names = "--cores",
      paramLabel = "N",
      description = "Task slots (default: the machine's processors).")
  Integer cores;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      converter = ByteSizeConverter.class,
      description = "Memory for task data, e.g. 512m or 2g (default: half the JVM heap).")
  Long memory;

  @Option(
      names = "--shuffle-memory",
      paramLabel = "SIZE",
      converter = ByteSizeConverter.class,
      description = "Shuffle output kept in memory before spilling (default: memory / 4).")
  Long shuffleMemory;

  @Option(
      names = "--disk-limit",
      paramLabel = "SIZE",
      converter = ByteSizeConverter.class,
      description =
          "Shuffle and spill files the executor may keep in --work-dir, e.g. 20g; past it the"
              + " task writing the most fails with ResourcesExhausted (default: a quarter of the"
              + " space free there at start).")
  Long diskLimit;

  @Option(
      names = "--shuffle-ttl",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "Delete a job's shuffle output once nothing wrote or read it for this long, e.g. 90s,"
              + " 30m or 1h: output of clients that never released their job (default: 1h).")
  Duration shuffleTtl = ExecutorConfig.DEFAULT_SHUFFLE_TTL;

  @Option(
      names = "--drain-timeout",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "On SIGTERM (or a drain asked through the scheduler's POST"
              + " /api/executors/{id}/drain) the executor takes no new tasks, finishes its running"
              + " ones and serves its shuffle outputs until their jobs end, waiting at most this"
              + " long before it exits, e.g. 90s or 5m (default: 5m; keep Kubernetes'"
              + " terminationGracePeriodSeconds above it).")
  Duration drainTimeout = Duration.ofMinutes(5);

  @Option(
      names = "--shuffle-compression",
      paramLabel = "CODEC",
      converter = CompressionConverter.class,
      description =
          "How shuffle output is sent to consumers unless a task sets "
              + ShuffleCompression.SETTING
              + ": none, lz4, zstd, or auto: Zstandard once a stream is held back by the link"
              + " (default: auto).")
  ShuffleCompression shuffleCompression = ShuffleCompression.DEFAULT;

  @Option(
      names = "--classpath",
      split = ",",
      paramLabel = "JAR",
      description =
          "Extension jars (comma-separated) providing dev.quiver.binding.Extension services: UDFs"
              + " and table providers the executor's tasks may use.")
  List<Path> classpath = new ArrayList<>();

  @Option(
      names = "--allowed-paths",
      split = ",",
      paramLabel = "PATH",
      description =
          "Local folders and files the tasks' SQL may read and write (Parquet, CSV and Iceberg"
              + " tables, COPY), comma-separated; object storage is always allowed. The work"
              + " directory and the token and key files never are (default: none, local files"
              + " are refused).")
  List<Path> allowedPaths = new ArrayList<>();

  /**
   * The plan codec that decodes launched tasks' plans: the one place where the executor jar chooses
   * it. Custom nodes' {@code NodeCodec}s are found through {@code extensionLoader} (the executor's
   * class path plus the {@code --classpath} jars).
   */
  public static StageDecoder stageDecoder(ClassLoader extensionLoader) {
    return new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES, extensionLoader);
  }

  /** Converts option values such as 512m or 2g to bytes. */
  static final class ByteSizeConverter implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return parseBytes(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Converts option values such as 500ms, 90s, 30m or 1h to durations. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return parseDuration(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Converts none, lz4 or zstd to a shuffle compression. */
  static final class CompressionConverter
      implements CommandLine.ITypeConverter<ShuffleCompression> {
    @Override
    public ShuffleCompression convert(String value) {
      try {
        return ShuffleCompression.parse(value);
      } catch (QuiverException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** Parses a duration such as 500ms, 90s, 30m or 1h (a bare number is seconds). */
  static Duration parseDuration(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    int split = 0;
    while (split < s.length() && Character.isDigit(s.charAt(split))) {
      split++;
    }
    String unit = s.substring(split);
    try {
      long n = Long.parseLong(s.substring(0, split));
      if (n > 0) {
        switch (unit) {
          case "ms":
            return Duration.ofMillis(n);
          case "", "s":
            return Duration.ofSeconds(n);
          case "m":
            return Duration.ofMinutes(n);
          case "h":
            return Duration.ofHours(n);
          default:
            break;
        }
      }
    } catch (NumberFormatException | ArithmeticException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "'" + text + "' is not a duration; use a positive number with ms, s, m or h, e.g. 30m");
  }

  /** Runs the executor until interrupted or killed. */
  public static void main(String[] args) {
    ProcessLogging.install("info");
    CommandLine cli = new CommandLine(new ExecutorMain());
    // A start that fails for a reason Quiver names (a wrong address, a refused registration) is
    // one line, not a stack trace.
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (!(e instanceof QuiverException)) {
            throw e;
          }
          commandLine.getErr().println("error: " + e.getMessage());
          commandLine.getErr().flush();
          return 1;
        });
    System.exit(cli.execute(args));
  }

  @Override
  public Integer call() throws Exception {
    int colon = scheduler.lastIndexOf(':');
    int schedulerPort = -1;
    try {
      schedulerPort = Integer.parseInt(scheduler.substring(colon + 1));
    } catch (NumberFormatException e) {
      // reported below
    }
    if (colon <= 0 || schedulerPort < 1 || schedulerPort > 65535) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--scheduler must be HOST:PORT, got '" + scheduler + "'");
    }
    String schedulerHost = scheduler.substring(0, colon);
    SecurityConfig security = securityOptions.config();
    int httpPort = listen.httpPort(ExecutorConfig.NO_HTTP);
    LocalFileAccess.restrictTo(allowedPaths, securityOptions.secretFiles(workDir));
    ExecutorConfig.Builder builder = ExecutorConfig.builder(schedulerHost, schedulerPort, workDir);
    ExecutorConfig defaults = builder.build();
    builder
        .host(listen.host())
        .port(port)
        .resources(
            cores == null ? defaults.cores() : cores,
            memory == null ? defaults.memoryBytes() : memory)
        .extensionJars(classpath)
        .security(security)
        .shuffleTtl(shuffleTtl)
        .shuffleCompression(shuffleCompression)
        .httpPort(httpPort)
        .advertiseHost(listen.advertiseHost())
        .diskLimitBytes(diskLimit == null ? 0 : diskLimit);
    if (id != null) {
      builder.executorId(id);
    }
    if (shuffleMemory != null) {
      builder.shuffleMemoryBytes(shuffleMemory);
    }
    ExecutorConfig config = builder.build();
    ExecutorLifecycle lifecycle =
        Guice.createInjector(new ExecutorModule(config)).getInstance(ExecutorLifecycle.class);
    ExecutorServer server;
    try {
      server = lifecycle.start();
    } catch (IllegalArgumentException e) {
      lifecycle.close();
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    // SIGTERM drains first: running tasks end and readers get their outputs.
                    server.drain();
                    if (!server.awaitDrained(drainTimeout)) {
                      System.err.println(
                          "executor "
                              + config.executorId()
                              + " still had tasks or shuffle outputs after --drain-timeout "
                              + drainTimeout
                              + "; exiting anyway");
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } finally {
                    try {
                      lifecycle.close();
                    } finally {
                      stopped.countDown();
                    }
                  }
                },
                "quiver-executor-shutdown"));
    // A drain asked through the scheduler: exit once drained (the shutdown hook closes).
    Thread drainWatch =
        new Thread(
            () -> {
              try {
                while (!server.isDraining()) {
                  Thread.sleep(200);
                }
                server.awaitDrained(drainTimeout);
                System.exit(0);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "quiver-executor-drain-watch");
    drainWatch.setDaemon(true);
    drainWatch.start();
    // Not a success banner while no scheduler has taken the executor: say what it waits for.
    System.out.println(
        "Quiver executor "
            + config.executorId()
            + " serving on "
            + listen.host()
            + ":"
            + server.port()
            + (server.httpPort() < 0 ? "" : ", HTTP port " + server.httpPort())
            + ", advertised as "
            + config.advertisedHost()
            + (server.isRegistered()
                ? ", registered with scheduler " + scheduler
                : "; not registered yet: scheduler " + scheduler + " does not answer, retrying"));
    stopped.await();
    return 0;
  }

  /** Parses a byte size such as 1048576, 512k, 512m or 2g (binary units). */
  static long parseBytes(String text) {
    String s = text.trim().toLowerCase(Locale.ROOT);
    if (s.endsWith("b")) {
      s = s.substring(0, s.length() - 1);
    }
    long unit = 1;
    if (!s.isEmpty()) {
      switch (s.charAt(s.length() - 1)) {
        case 'k' -> unit = 1L << 10;
        case 'm' -> unit = 1L << 20;
        case 'g' -> unit = 1L << 30;
        case 't' -> unit = 1L << 40;
        default -> unit = 1;
      }
    }
    String digits = unit == 1 ? s : s.substring(0, s.length() - 1);
    try {
      long value = Long.parseLong(digits.trim());
      if (value <= 0 || value > Long.MAX_VALUE / unit) {
        throw new NumberFormatException();
      }
      return value * unit;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a byte size; use a positive number with k, m, g or t, e.g. 2g");
    }
  }
}
