package dev.quiver.scheduler;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.transport.SameProcessServers;
import dev.quiver.distributed.wire.StrictRequests;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.history.JobHistory;
import dev.quiver.scheduler.http.ClusterView;
import dev.quiver.scheduler.http.JobsApi;
import dev.quiver.scheduler.http.WebUi;
import dev.quiver.scheduler.job.JobManager;
import dev.quiver.scheduler.job.JobMetrics;
import dev.quiver.scheduler.job.JobViews;
import dev.quiver.server.http.HttpEndpoint;
import dev.quiver.server.http.ServerMetrics;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** The scheduler process's gRPC server, its executor liveness checker and its job manager. */
public final class SchedulerServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);

  private final SchedulerConfig config;
  private final ExecutorRegistry registry;
  private final JobManager jobs;
  private final Server server;

  /**
   * Runs the server's calls. gRPC's default, its shared executor, is taken again by every TLS
   * connection the server accepts (grpc-netty 1.71's ServerTlsHandler) and never given back: it
   * stayed referenced for the life of the process, so its idle threads (and a JVM waiting for them,
   * as {@code mvn exec:java} does) lingered after the scheduler closed.
   */
  private final ExecutorService calls =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "quiver-scheduler-calls");
            t.setDaemon(true);
            return t;
          });

  private final ScheduledExecutorService liveness;
  private final PrometheusRegistry metrics;
  private HttpEndpoint http;
  private volatile boolean closing;
  private final ServerServiceDefinition service;

  /** Runs inside an application (the embedded cluster) rather than as a server process. */
  private final boolean embedded;

  private SameProcessServers.Mirror mirror;

  private SchedulerServer(
      SchedulerConfig config,
      GrpcTransport transport,
      ExecutorRegistry registry,
      boolean embedded) {
    this.config = config;
    this.embedded = embedded;
    this.registry = registry;
    // JVM metrics only when something can scrape them.
    this.metrics =
        config.httpPort() == SchedulerConfig.NO_HTTP
            ? new PrometheusRegistry()
            : ServerMetrics.newRegistry();
    this.jobs =
        new JobManager(
            registry,
            config,
            new JobMetrics(metrics),
            transport,
            JobHistory.open(config.history()));
    this.service =
        StrictRequests.of(new SchedulerService(registry, config, jobs, embedded).bindService());
    this.server =
        transport
            .serverBuilder(config.host(), config.port(), config.security())
            .maxInboundMessageSize(WireProtocol.MAX_MESSAGE_BYTES)
            .maxInboundMetadataSize(WireProtocol.MAX_HEADER_LIST_BYTES)
            .addService(service)
            .executor(calls)
            .build();
    this.liveness =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "quiver-scheduler-liveness");
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts a scheduler listening as configured. */
  public static SchedulerServer start(SchedulerConfig config) throws IOException {
    return start(config, GrpcTransport.NETTY);
  }

  /**
   * Starts a scheduler listening as configured on {@code transport}, which also carries its calls
   * to executors ({@link GrpcTransport#NETTY} in processes, an in-process one in unit tests).
   */
  public static SchedulerServer start(SchedulerConfig config, GrpcTransport transport)
      throws IOException {
    return start(config, transport, new ExecutorRegistry(config.heartbeatTimeout()));
  }

  /**
   * As {@link #start(SchedulerConfig, GrpcTransport)}, tracking executors in {@code registry}
   * (whose clock decides heartbeat timeouts; tests pass one they advance).
   */
  public static SchedulerServer start(
      SchedulerConfig config, GrpcTransport transport, ExecutorRegistry registry)
      throws IOException {
    return start(config, transport, registry, false);
  }

  /**
   * Starts a scheduler inside an application (the embedded cluster): its start and the executors
   * joining are logged at DEBUG, leaving the application's log to the application.
   */
  public static SchedulerServer startEmbedded(SchedulerConfig config) throws IOException {
    return start(
        config, GrpcTransport.NETTY, new ExecutorRegistry(config.heartbeatTimeout()), true);
  }

  private static SchedulerServer start(
      SchedulerConfig config, GrpcTransport transport, ExecutorRegistry registry, boolean embedded)
      throws IOException {
    SchedulerServer s = new SchedulerServer(config, transport, registry, embedded);
    try {
      s.server.start();
    } catch (IOException e) {
      s.liveness.shutdownNow();
      s.calls.shutdownNow();
      s.jobs.close();
      throw new IOException(
          "scheduler could not listen on "
              + config.host()
              + ":"
              + config.port()
              + ": "
              + e.getMessage()
              + "; choose another --port or stop the process using it",
          e);
    }
    if (transport == GrpcTransport.NETTY) {
      try {
        s.mirror =
            SameProcessServers.mirror(
                List.of(config.host(), config.advertisedHost()),
                s.port(),
                config.security(),
                List.of(s.service),
                method -> true,
                Runnable::run);
      } catch (IOException | RuntimeException e) {
        s.close();
        throw e;
      }
    }
    if (config.httpPort() != SchedulerConfig.NO_HTTP) {
      try {
        s.http = s.startHttp();
      } catch (IOException | RuntimeException e) {
        s.close();
        throw e;
      }
    }
    // Check often enough that a lost executor is noticed within ~1.25 timeouts.
    long periodMillis = Math.max(10, config.heartbeatTimeout().toMillis() / 4);
    s.liveness.scheduleWithFixedDelay(
        s::checkLiveness, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    s.jobs.start();
    LOG.atLevel(embedded ? Level.DEBUG : Level.INFO)
        .log(
            "scheduler listening on {}:{}, advertised as {} ({}){}",
            config.host(),
            s.port(),
            s.advertisedTarget(),
            config.security(),
            s.http == null ? "" : ", HTTP port " + s.http.port());
    if (config.security().hasToken() && !config.security().hasClusterToken()) {
      LOG.warn(
          "clients and executors share one token: anyone holding it can register as an executor"
              + " and receive other clients' tasks; give executors and the scheduler a cluster"
              + " credential of their own with --cluster-token-file");
    }
    return s;
  }

  private HttpEndpoint startHttp() throws IOException {
    GaugeWithCallback.builder()
        .name("quiver_tasks_queued")
        .help("Tasks of unfinished jobs waiting to run (their inputs may not be ready yet)")
        .callback(cb -> cb.call(taskCounts().queued()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("quiver_scheduler_tasks_waiting")
        .help(
            "Tasks whose inputs are ready, waiting for a free executor slot (an autoscaler adds"
                + " executors while this stays above zero)")
        .callback(cb -> cb.call(taskCounts().ready()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("quiver_executors_draining")
        .help("Executors draining: no new tasks, exiting once their shuffle outputs are unneeded")
        .callback(cb -> cb.call(registry.list(false).stream().filter(s -> s.getDraining()).count()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("quiver_tasks_running")
        .help("Task attempts launched on executors and not yet reported")
        .callback(cb -> cb.call(taskCounts().running()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("quiver_jobs_running")
        .help("Jobs submitted and not yet finished")
        .callback(cb -> cb.call(taskCounts().jobsRunning()))
        .register(metrics);
    GaugeWithCallback.builder()
        .name("quiver_executors_alive")
        .help("Executors registered and heartbeating")
        .callback(cb -> cb.call(registry.list(false).size()))
        .register(metrics);
    ClusterView view =
        new ClusterView(jobs, registry, config.advertisedHost() + ":" + server.getPort());
    return HttpEndpoint.builder("scheduler", config.host(), config.httpPort(), config.security())
        .metrics(metrics)
        .readiness(
            () ->
                closing || !jobs.accepting()
                    ? Optional.of("the scheduler is shutting down")
                    : Optional.empty())
        .route("/api/", new JobsApi(view))
        .route("/", new WebUi(view))
        .start();
  }

  /** Task counts for the gauges; zeros once the job loop has stopped. */
  private JobViews.TaskCounts taskCounts() {
    try {
      return jobs.taskCounts();
    } catch (RuntimeException e) {
      return new JobViews.TaskCounts(0, 0, 0, 0);
    }
  }

  /**
   * Marks executors silent past the heartbeat timeout lost and tells the job manager; runs every
   * quarter timeout, and tests with their own registry clock call it after advancing the clock.
   */
  void checkLiveness() {
    try {
      List<ExecutorInfo> expired = jobs.expireSilentExecutors();
      for (ExecutorInfo lost : expired) {
        LOG.warn(
            "executor '{}' ({}:{}) sent no heartbeat for {}: marked lost",
            lost.getExecutorId(),
            lost.getHost(),
            lost.getFlightPort(),
            config.heartbeatTimeout());
      }
    } catch (RuntimeException e) {
      // Keep the periodic check alive: a thrown exception would cancel it for good.
      if (!closing) {
        LOG.error("executor liveness check failed", e);
      }
    }
  }

  /**
   * The port the server listens on (the real one when configured with port 0; -1 on a transport
   * without ports).
   */
  public int port() {
    return server.getPort();
  }

  /** The host the server listens on. */
  public String host() {
    return config.host();
  }

  /** The executor registry. */
  public ExecutorRegistry registry() {
    return registry;
  }

  /** The job manager. */
  public JobManager jobs() {
    return jobs;
  }

  /** The HTTP endpoint's port, or -1 when it serves none. */
  public int httpPort() {
    return http == null ? -1 : http.port();
  }

  /** The address others reach the scheduler at, {@code host:port}. */
  public String advertisedTarget() {
    return config.advertisedHost() + ":" + port();
  }

  /**
   * The application is closing the cluster: executors that leave from now on were asked to, and
   * their going is logged at DEBUG only.
   */
  public void expectDepartures() {
    jobs.expectDepartures();
  }

  /** Stops accepting calls, ends status streams, waits briefly for running calls, then stops. */
  @Override
  public void close() {
    closing = true;
    if (http != null) {
      http.close();
    }
    liveness.shutdownNow();
    if (mirror != null) {
      mirror.close();
    }
    server.shutdown();
    jobs.close();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
      }
      liveness.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      calls.shutdownNow();
    }
  }
}
