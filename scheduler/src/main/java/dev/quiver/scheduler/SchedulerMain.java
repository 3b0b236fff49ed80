package dev.quiver.scheduler;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Command line of the scheduler jar: runs a scheduler until the process is stopped. */
@Command(
    name = "quiver-scheduler",
    mixinStandardHelpOptions = true,
    description = "Runs the Quiver scheduler: executors register with it over gRPC.")
public final class SchedulerMain implements Callable<Integer> {

  @Option(names = "--host", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String host = SchedulerConfig.DEFAULT_HOST;

  @Option(
      names = "--port",
      description = "Port to listen on, 0 for any (default: ${DEFAULT-VALUE}).")
  int port = SchedulerConfig.DEFAULT_PORT;

  @Option(
      names = "--heartbeat-interval-ms",
      description = "How often executors heartbeat (default: ${DEFAULT-VALUE}).")
  long heartbeatIntervalMillis = SchedulerConfig.defaults().heartbeatInterval().toMillis();

  @Option(
      names = "--heartbeat-timeout-ms",
      description = "Silence after which an executor is lost (default: ${DEFAULT-VALUE}).")
  long heartbeatTimeoutMillis = SchedulerConfig.defaults().heartbeatTimeout().toMillis();

  /** Runs the scheduler until interrupted or killed. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SchedulerMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    SchedulerConfig config =
        new SchedulerConfig(
            host,
            port,
            Duration.ofMillis(heartbeatIntervalMillis),
            Duration.ofMillis(heartbeatTimeoutMillis));
    SchedulerServer server = SchedulerServer.start(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } finally {
                    stopped.countDown();
                  }
                },
                "quiver-scheduler-shutdown"));
    System.out.println("Quiver scheduler listening on " + host + ":" + server.port());
    stopped.await();
    return 0;
  }
}
