package dev.quiver.executor;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.io.LocalFileAccess;
import dev.quiver.binding.physical.MemoryBudget;
import dev.quiver.distributed.codec.StageDecoder;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.HeartbeatResponse;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.RegisterResponse;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.security.AccessDeniedException;
import dev.quiver.distributed.security.FlightSecurity;
import dev.quiver.distributed.security.GrpcSecurity;
import dev.quiver.distributed.security.TlsDiagnosis;
import dev.quiver.distributed.shuffle.FlightShuffleClient;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.transport.SameProcessServers;
import dev.quiver.distributed.wire.StrictRequests;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.executor.memory.QueryMemory;
import dev.quiver.executor.shuffle.LocalFirstShuffleClient;
import dev.quiver.executor.shuffle.SameProcessStores;
import dev.quiver.executor.shuffle.ShuffleFlightProducer;
import dev.quiver.executor.shuffle.ShuffleStore;
import dev.quiver.executor.task.StatusReporter;
import dev.quiver.executor.task.TaskManager;
import dev.quiver.server.http.HttpEndpoint;
import dev.quiver.server.http.ServerMetrics;
import io.grpc.ManagedChannel;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * An executor process's servers: Arrow Flight for shuffle data plus the control service on the same
 * port (which runs tasks), registered with the scheduler and heartbeating to it.
 */
public final class ExecutorServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutorServer.class);

  /**
   * Longest a task waits for memory when the executor's is full before it fails: the scheduler's
   * low-memory killer frees memory within a heartbeat or two, a kill's cool-down included.
   */
  static final long MEMORY_WAIT_MILLIS = 30_000;

  /** Heartbeat interval used until the scheduler has told us its own. */
  private static final long INITIAL_INTERVAL_MILLIS = 1_000;

  private static final long CALL_DEADLINE_MILLIS = 10_000;

  /** Calls made per task status report while the scheduler is unreachable (about 6 s in all). */
  private static final int REPORT_ATTEMPTS = 6;

  private static final long REPORT_BACKOFF_MILLIS = 200;

  /** How often spill and shuffle files are measured against the disk limit. */
  private static final long DISK_CHECK_MILLIS = 500;

  /** Builds the stage decoder once the extensions are loaded (the plan codec needs them). */
  @FunctionalInterface
  public interface StageDecoderFactory {
    /** Creates the decoder; {@code extensionLoader} loads classes from the extension jars. */
    StageDecoder create(ClassLoader extensionLoader);
  }

  private final ExecutorConfig config;
  private final BufferAllocator allocator;
  private final QueryMemory queryMemory;
  private final Extensions extensions;
  private final ShuffleStore store;
  private final FlightShuffleClient shuffleClient;
  private final StatusReporter reporter;
  private final TaskManager tasks;
  private final Serving flight;
  // The control service, also served in-process for this process's scheduler (SameProcessServers).
  private ServerServiceDefinition controlService;
  private SameProcessServers.Mirror mirror;
  // This executor's shuffle store, as read by the other executors of this process.
  private SameProcessStores.Registration storeForPeers = () -> {};

  /**
   * Runs the Flight server's calls on daemon threads: Flight's own default pool is not daemon, and
   * its idle threads kept an application's JVM alive for a minute after main returned.
   */
  private final ExecutorService flightCalls = Executors.newCachedThreadPool(daemonThreads());

  private final ManagedChannel schedulerChannel;
  private final SchedulerGrpc.SchedulerBlockingStub scheduler;
  private final ScheduledExecutorService heartbeats;
  private final PrometheusRegistry metricsRegistry;
  private HttpEndpoint http;
  private final WorkDirProbe probe;
  private final WorkDirLocks workDirLocks = new WorkDirLocks();
  private final long diskLimit;
  private final AtomicLong taskSpillBytes = new AtomicLong();

  /** Task attempts ended since start, for the heartbeat (the web UI's executors page). */
  private final AtomicLong tasksEnded = new AtomicLong();

  private volatile String notReady;

  /**
   * Set when a task failed for lack of disk here, or the files pass {@link #LOW_DISK_FRACTION} of
   * the limit; cleared once they are under {@link #ROOM_AGAIN_FRACTION}. While set the executor
   * reports itself not ready, so the scheduler places no task here.
   */
  private volatile boolean lowOnDisk;

  /** Share of the disk limit in use from which the executor takes no new tasks. */
  static final double LOW_DISK_FRACTION = 0.9;

  /** Share of the disk limit under which an executor low on disk takes tasks again. */
  static final double ROOM_AGAIN_FRACTION = 0.5;

  private volatile ExecutorInfo info;
  private volatile boolean registered;
  private volatile long intervalMillis = INITIAL_INTERVAL_MILLIS;

  /**
   * Longest wait between registration attempts while the scheduler does not answer: attempts start
   * one heartbeat interval apart and double up to this, so a wrong address costs a few log lines,
   * not one a second, and a scheduler started late is still found within seconds.
   */
  static final long MAX_REGISTER_BACKOFF_MILLIS = 10_000;

  /** Registration attempts that found no scheduler since the last success (heartbeat thread). */
  private int registerFailures;

  private volatile boolean closed;

  /** Runs inside an application (the embedded cluster); set before the first heartbeat. */
  private volatile boolean embedded;

  /**
   * True once the executor drains (SIGTERM, or the scheduler says an operator asked): it tells the
   * scheduler in every heartbeat, gets no new tasks, and {@link #awaitDrained} returns once its
   * tasks ended and its shuffle outputs were removed with their jobs.
   */
  private volatile boolean draining;

  /** When the scheduler last answered a heartbeat (System.nanoTime). */
  private volatile long lastBeatAnsweredNanos = System.nanoTime();

  /** The server of the Flight and control services, on Flight's Netty or a transport's. */
  private interface Serving {
    void start() throws IOException;

    /** The port it listens on, or -1 on a transport without ports. */
    int port();

    void close() throws InterruptedException;
  }

  /** Flight's own server (Netty): what processes run. */
  private static Serving serving(FlightServer server) {
    return new Serving() {
      @Override
      public void start() throws IOException {
        server.start();
      }

      @Override
      public int port() {
        return server.getPort();
      }

      @Override
      public void close() throws InterruptedException {
        server.close();
      }
    };
  }

  /** A server a transport built (in-process in tests), with the Flight service added. */
  private static Serving serving(io.grpc.Server server) {
    return new Serving() {
      @Override
      public void start() throws IOException {
        server.start();
      }

      @Override
      public int port() {
        return server.getPort();
      }

      @Override
      public void close() throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
          server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
      }
    };
  }

  private ExecutorServer(
      ExecutorConfig config,
      BufferAllocator parent,
      StageDecoderFactory decoders,
      GrpcTransport transport)
      throws IOException {
    this.config = config;
    Files.createDirectories(config.workDir());
    // Folders of executors killed before they could delete them (SIGKILL, OOM killer).
    WorkDirLocks.removeStale(config.workDir());
    // Another job's shuffle and spill files are never SQL's to read, even under an allowed path.
    LocalFileAccess.deny(config.workDir());
    this.diskLimit =
        config.diskLimitBytes() > 0 ? config.diskLimitBytes() : defaultDiskLimit(config);
    this.allocator =
        parent.newChildAllocator("executor " + config.executorId(), 0, config.memoryBytes());
    this.queryMemory =
        new QueryMemory(config.executorId(), allocator, MEMORY_WAIT_MILLIS, this::beatSoon);
    // JVM metrics only when something can scrape them.
    this.metricsRegistry =
        config.httpPort() == ExecutorConfig.NO_HTTP
            ? new PrometheusRegistry()
            : ServerMetrics.newRegistry();
    ExecutorMetrics metrics = new ExecutorMetrics(metricsRegistry);
    Extensions x = null;
    ShuffleStore s = null;
    FlightShuffleClient sc = null;
    ManagedChannel c = null;
    StatusReporter r = null;
    TaskManager t = null;
    Serving f = null;
    WorkDirProbe p = null;
    try {
      x = Extensions.load(config.extensionJars(), ExecutorServer.class.getClassLoader());
      StageDecoder decoder = decoders.create(x.classLoader());
      s =
          new ShuffleStore(
              allocator,
              config.workDir(),
              config.shuffleMemoryBytes(),
              diskLimit,
              taskSpillBytes::get);
      sc = FlightShuffleClient.create(allocator, config.security(), transport);
      c =
          transport
              .channelBuilder(config.schedulerHost(), config.schedulerPort(), config.security())
              .build();
      r = new StatusReporter(SchedulerGrpc.newStub(c), REPORT_ATTEMPTS, REPORT_BACKOFF_MILLIS);
      Files.createDirectories(config.workDir());
      workDirLocks.own(s.spillDirectory());
      Path spillRoot = Files.createTempDirectory(config.workDir(), "tasks-");
      workDirLocks.own(spillRoot);
      p = new WorkDirProbe(List.of(spillRoot, s.spillDirectory()));
      t =
          new TaskManager(
              new TaskManager.Resources(
                  config.executorId(),
                  allocator,
                  queryMemory,
                  MemoryBudget.executorTask(
                      config.memoryBytes(), config.shuffleMemoryBytes(), config.cores()),
                  s,
                  new MeteredShuffleClient(
                      config.executorId(),
                      new LocalFirstShuffleClient(
                          config.executorId(),
                          s,
                          SameProcessServers.mirrors(config.security())
                              ? SameProcessStores::find
                              : id -> null,
                          sc),
                      metrics),
                  decoder,
                  x::udf,
                  spillRoot,
                  reportTo(r, metrics),
                  p::problem,
                  nextSplits(SchedulerGrpc.newStub(c))),
              config.cores());
      metrics.watch(metricsRegistry, t, s, allocator::getAllocatedMemory, config.memoryBytes());
      ExecutorControlService control = new ExecutorControlService(s, t, config.executorId());
      // TLS and the token check of DoGet come from Flight; the control service, which shares the
      // Flight server's port and transport, gets its own token interceptor, which also refuses
      // client tokens: only the cluster launches tasks and removes data.
      // Requests are parsed inside the call so unparsable ones get INVALID_ARGUMENT naming it.
      ServerServiceDefinition strict = StrictRequests.of(control.bindService());
      controlService =
          config.security().hasToken()
              ? ServerInterceptors.intercept(
                  strict,
                  GrpcSecurity.clusterOnlyInterceptor(
                      config.security(), "ExecutorControl (launching tasks, removing job data)"))
              : strict;
      ShuffleFlightProducer producer =
          new ShuffleFlightProducer(s, allocator, config.executorId(), config.shuffleCompression());
      if (transport == GrpcTransport.NETTY) {
        f =
            serving(
                FlightSecurity.secure(
                        FlightServer.builder(
                            allocator,
                            FlightSecurity.serverLocation(
                                config.host(), config.port(), config.security()),
                            producer),
                        config.security())
                    .executor(flightCalls)
                    // Flight's default (2 GiB) would let one call hold that much memory.
                    .maxInboundMessageSize(WireProtocol.MAX_MESSAGE_BYTES)
                    .setMaxHeaderListSize(WireProtocol.MAX_HEADER_LIST_BYTES)
                    .transportHint(
                        "grpc.builderConsumer",
                        (Consumer<NettyServerBuilder>)
                            builder ->
                                GrpcSecurity.permitKeepalive(builder).addService(controlService))
                    .build());
      } else {
        ServerBuilder<?> builder =
            transport
                .serverBuilder(config.host(), config.port(), config.security())
                .maxInboundMessageSize(WireProtocol.MAX_MESSAGE_BYTES)
                .maxInboundMetadataSize(WireProtocol.MAX_HEADER_LIST_BYTES)
                .addService(controlService);
        FlightSecurity.addFlightService(
            builder, allocator, producer, flightCalls, config.security());
        f = serving(builder.build());
      }
    } catch (IOException | RuntimeException e) {
      if (t != null) {
        t.close();
      }
      if (r != null) {
        r.close();
      }
      if (c != null) {
        c.shutdownNow();
      }
      if (sc != null) {
        sc.close();
      }
      if (s != null) {
        s.close();
      }
      if (x != null) {
        x.close();
      }
      workDirLocks.close();
      flightCalls.shutdownNow();
      allocator.close();
      throw e;
    }
    this.extensions = x;
    this.store = s;
    this.shuffleClient = sc;
    this.reporter = r;
    this.tasks = t;
    this.flight = f;
    this.probe = p;
    this.schedulerChannel = c;
    this.scheduler = SchedulerGrpc.newBlockingStub(c);
    this.heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "quiver-executor-heartbeat");
              thread.setDaemon(true);
              return thread;
            });
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "quiver-executor-flight-" + n.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  private java.util.function.Consumer<dev.quiver.distributed.proto.TaskStatusReport> reportTo(
      StatusReporter reporter, ExecutorMetrics metrics) {
    return report -> {
      if (report.getError().getExecutorDiskFull()) {
        lowOnDisk = true;
      }
      metrics.taskEnded(report);
      tasksEnded.incrementAndGet();
      reporter.report(report);
    };
  }

  /** Deadline of one NextSplits call: the scheduler answers from its job loop at once. */
  private static final long SPLITS_DEADLINE_MILLIS = 30_000;

  /** Asks the scheduler for a task's next scan splits, as a future (see SchedulerSplits). */
  private static Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> nextSplits(
      SchedulerGrpc.SchedulerStub scheduler) {
    return request -> {
      CompletableFuture<NextSplitsResponse> answer = new CompletableFuture<>();
      scheduler
          .withDeadlineAfter(SPLITS_DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
          .nextSplits(
              request,
              new StreamObserver<>() {
                @Override
                public void onNext(NextSplitsResponse value) {
                  answer.complete(value);
                }

                @Override
                public void onError(Throwable t) {
                  answer.completeExceptionally(t);
                }

                @Override
                public void onCompleted() {}
              });
      return answer;
    };
  }

  /**
   * Starts the Flight server, registers with the scheduler and starts heartbeating. If the
   * scheduler is not reachable yet, registration is retried with every heartbeat.
   *
   * @param parent allocator the executor's memory comes from (limited to its configured memory)
   * @param decoders builds the decoder of launched tasks' plans (the plan codec)
   * @throws IOException if the port cannot be bound
   * @throws QuiverException if the scheduler refuses the executor (e.g. another protocol version)
   */
  public static ExecutorServer start(
      ExecutorConfig config, BufferAllocator parent, StageDecoderFactory decoders)
      throws IOException {
    return start(config, parent, decoders, GrpcTransport.NETTY);
  }

  /**
   * As {@link #start(ExecutorConfig, BufferAllocator, StageDecoderFactory)}, serving and calling
   * the scheduler and other executors over {@code transport} ({@link GrpcTransport#NETTY} in
   * processes, an in-process one in unit tests, where the executor is named by its host and
   * advertises the configured port, which must then be set).
   */
  public static ExecutorServer start(
      ExecutorConfig config,
      BufferAllocator parent,
      StageDecoderFactory decoders,
      GrpcTransport transport)
      throws IOException {
    return start(config, parent, decoders, transport, false);
  }

  /**
   * As {@link #start(ExecutorConfig, BufferAllocator, StageDecoderFactory, GrpcTransport)}; {@code
   * embedded}: inside an application (the embedded cluster), whose log gets its start and
   * registration at DEBUG only.
   */
  public static ExecutorServer start(
      ExecutorConfig config,
      BufferAllocator parent,
      StageDecoderFactory decoders,
      GrpcTransport transport,
      boolean embedded)
      throws IOException {
    ExecutorServer server = new ExecutorServer(config, parent, decoders, transport);
    server.embedded = embedded;
    try {
      server.flight.start();
      if (server.port() <= 0) {
        throw new IllegalArgumentException(
            "executor "
                + config.executorId()
                + " on "
                + transport
                + ", which has no ports, needs a port to advertise: configure one (1-65535)");
      }
      server.storeForPeers =
          SameProcessStores.register(config.executorId(), server.store, config.security());
      if (transport == GrpcTransport.NETTY) {
        // Launching and cancelling only queue work: the scheduler's thread runs them. Removing a
        // job's data deletes files, so it keeps to the executor's own threads.
        server.mirror =
            SameProcessServers.mirror(
                List.of(config.host(), config.advertisedHost()),
                server.port(),
                config.security(),
                List.of(server.controlService),
                method -> !method.endsWith("/RemoveJobData"),
                server.flightCalls);
      }
    } catch (IllegalArgumentException e) {
      server.close();
      throw e;
    } catch (IOException e) {
      server.close();
      throw new IOException(
          "executor "
              + config.executorId()
              + " could not listen on "
              + config.host()
              + ":"
              + config.port()
              + " ("
              + e.getMessage()
              + "); choose another --port or stop the process using it",
          e);
    }
    if (config.httpPort() != ExecutorConfig.NO_HTTP) {
      try {
        server.http =
            HttpEndpoint.builder(
                    "executor " + config.executorId(),
                    config.host(),
                    config.httpPort(),
                    config.security())
                .metrics(server.metricsRegistry)
                .readiness(server::notReadyBecause)
                .start();
      } catch (IOException | RuntimeException e) {
        server.close();
        throw e;
      }
    }
    server.info = server.describe();
    try {
      server.tryRegister();
    } catch (QuiverException e) {
      server.close();
      throw e;
    }
    server.scheduleHeartbeat();
    server.heartbeats.scheduleWithFixedDelay(
        server::enforceDiskLimit, DISK_CHECK_MILLIS, DISK_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    long sweepMillis = Math.max(100, Math.min(15_000, config.shuffleTtl().toMillis() / 4));
    server.heartbeats.scheduleWithFixedDelay(
        server::expireShuffles, sweepMillis, sweepMillis, TimeUnit.MILLISECONDS);
    LOG.atLevel(server.embedded ? Level.DEBUG : Level.INFO)
        .log(
            "executor {} serving Flight on {}:{} (advertised as {}){}, scheduler {}:{}, disk limit {}"
                + " bytes ({})",
            config.executorId(),
            config.host(),
            server.port(),
            config.advertisedHost(),
            server.http == null ? "" : ", HTTP on port " + server.http.port(),
            config.schedulerHost(),
            config.schedulerPort(),
            server.diskLimit,
            config.security());
    return server;
  }

  /** Starts an executor whose tasks' plans are decoded by {@code decoder}. */
  public static ExecutorServer start(
      ExecutorConfig config, BufferAllocator parent, StageDecoder decoder) throws IOException {
    return start(config, parent, extensionLoader -> decoder);
  }

  private ExecutorInfo describe() {
    return ExecutorInfo.newBuilder()
        .setExecutorId(config.executorId())
        .setHost(config.advertisedHost())
        .setFlightPort(port())
        .setHttpPort(http == null ? 0 : http.port())
        .setCores(config.cores())
        .setMemoryBytes(config.memoryBytes())
        .setVersion(WireProtocol.softwareVersion())
        .build();
  }

  /**
   * Ready once registered with the scheduler and until it stops, while its work directory can be
   * written.
   */
  private java.util.Optional<String> notReadyBecause() {
    if (closed || tasks.isStopping()) {
      return java.util.Optional.of("the executor is stopping");
    }
    String problem = notReady;
    if (problem != null) {
      return java.util.Optional.of(problem);
    }
    if (!registered) {
      return java.util.Optional.of(
          "not registered with the scheduler at "
              + config.schedulerHost()
              + ":"
              + config.schedulerPort());
    }
    return java.util.Optional.empty();
  }

  /**
   * Registers; returns normally if the scheduler is unreachable (retried later).
   *
   * @throws QuiverException if the scheduler refuses the registration
   */
  private void tryRegister() {
    try {
      RegisterResponse response =
          scheduler
              .withDeadlineAfter(CALL_DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
              .register(
                  RegisterRequest.newBuilder()
                      .setProtocolVersion(WireProtocol.VERSION)
                      .setExecutor(info)
                      .build());
      if (response.getHeartbeatIntervalMillis() > 0) {
        intervalMillis = response.getHeartbeatIntervalMillis();
      }
      registered = true;
      registerFailures = 0;
      LOG.atLevel(embedded ? Level.DEBUG : Level.INFO)
          .log(
              "executor {} registered with scheduler {}:{}, heartbeat every {} ms",
              config.executorId(),
              config.schedulerHost(),
              config.schedulerPort(),
              intervalMillis);
    } catch (StatusRuntimeException e) {
      if (speaksHttp1(e.getStatus())) {
        throw new QuiverException(
            config.schedulerHost()
                + ":"
                + config.schedulerPort()
                + " answers HTTP/1.x, not gRPC: it is an HTTP port (a scheduler's web UI and"
                + " metrics?); give --scheduler the scheduler's gRPC port (its --port, default"
                + " 50050)");
      }
      if (isTransient(e.getStatus())) {
        schedulerChannel.resetConnectBackoff();
        registerFailures++;
        // Every failure up to the cap, then ever more rarely: 1, 2, 4, 8, ... failures.
        if (Integer.bitCount(registerFailures) == 1) {
          LOG.warn(
              "executor {} not registered yet: scheduler {}:{} not reachable ({}); retrying every"
                  + " {} s at most",
              config.executorId(),
              config.schedulerHost(),
              config.schedulerPort(),
              describe(e.getStatus()),
              MAX_REGISTER_BACKOFF_MILLIS / 1000);
        }
        return;
      }
      String message =
          "scheduler "
              + config.schedulerHost()
              + ":"
              + config.schedulerPort()
              + " refused executor "
              + config.executorId()
              + ": "
              + e.getStatus().getCode()
              + ": "
              + e.getStatus().getDescription();
      Status.Code code = e.getStatus().getCode();
      if (code == Status.Code.PERMISSION_DENIED || code == Status.Code.UNAUTHENTICATED) {
        throw new AccessDeniedException(message, e);
      }
      throw new QuiverException(message, e);
    }
  }

  private String describe(Status status) {
    return status.getCode()
        + (status.getDescription() == null ? "" : ": " + status.getDescription())
        + (status.getCause() == null ? "" : " (" + status.getCause() + ")")
        + TlsDiagnosis.explain(status, config.security().clientTls());
  }

  /**
   * Whether the peer answered in HTTP/1.x: Netty's HTTP/2 client then fails on the first bytes
   * ("HTTP/", hex 485454502f) where it expected a SETTINGS frame, or, when the server answered and
   * closed at once, with INTERNAL "http2 exception".
   */
  static boolean speaksHttp1(Status status) {
    StringBuilder text = new StringBuilder(String.valueOf(status.getDescription()));
    for (Throwable t = status.getCause(); t != null; t = t.getCause()) {
      text.append(' ').append(t.getMessage());
    }
    String all = text.toString();
    return all.contains("485454502f")
        || all.contains("HTTP/1.")
        || (status.getCode() == Status.Code.INTERNAL
            && "http2 exception".equals(status.getDescription()));
  }

  private static boolean isTransient(Status status) {
    return switch (status.getCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED -> true;
      default -> false;
    };
  }

  private void scheduleHeartbeat() {
    if (!closed) {
      heartbeats.schedule(this::beat, nextBeatMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** One heartbeat interval, or while no scheduler answers the registration, a growing wait. */
  long nextBeatMillis() {
    if (registered || registerFailures == 0) {
      return intervalMillis;
    }
    int doublings = Math.min(registerFailures - 1, 20);
    return Math.min(MAX_REGISTER_BACKOFF_MILLIS, intervalMillis << doublings);
  }

  private void beat() {
    try {
      beatOnce();
    } finally {
      scheduleHeartbeat();
    }
  }

  /** One registration or heartbeat, now; failures are logged and retried at the next beat. */
  private void beatOnce() {
    try {
      if (!registered) {
        tryRegister();
      } else {
        checkReady();
        String problem = notReady;
        HeartbeatResponse answer =
            scheduler
                .withDeadlineAfter(CALL_DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
                .heartbeat(
                    HeartbeatRequest.newBuilder()
                        .setExecutorId(config.executorId())
                        .setRunningTasks(tasks.runningTasks())
                        .setShuffleBytes(store.memoryBytes() + store.diskBytes())
                        .setAllocatedBytes(allocator.getAllocatedMemory())
                        .setActiveTasks(tasks.activeTasks())
                        .setNotReady(problem != null)
                        .setNotReadyReason(problem == null ? "" : problem)
                        .setTasksFinished(tasksEnded.get())
                        .setGcMillis(gcMillis())
                        .setDiskBytes(store.diskBytes() + taskSpillBytes.get())
                        .setDraining(draining)
                        .addAllJobMemory(queryMemory.report())
                        .setMemoryBlocked(queryMemory.blocked())
                        .build());
        lastBeatAnsweredNanos = System.nanoTime();
        boolean reregister = answer.getReregister();
        if (answer.getDraining() && !draining) {
          LOG.info(
              "executor {} is draining (asked through the scheduler): no new tasks; it exits once"
                  + " its tasks end and its shuffle outputs are no longer needed",
              config.executorId());
          draining = true;
        }
        if (reregister) {
          LOG.info("scheduler asked executor {} to register again", config.executorId());
          registered = false;
          dropWork("the scheduler restarted or declared this executor lost");
          tryRegister();
        }
      }
    } catch (StatusRuntimeException e) {
      LOG.warn("heartbeat of executor {} failed: {}", config.executorId(), describe(e.getStatus()));
      // Try again at the next beat, not after gRPC's growing reconnect backoff: a restarted
      // scheduler then learns about this executor within one heartbeat interval.
      schedulerChannel.resetConnectBackoff();
    } catch (RuntimeException e) {
      // Keep heartbeating: a refused registration is logged and retried, not fatal later on.
      LOG.error("heartbeat of executor {} failed", config.executorId(), e);
    }
  }

  /** Milliseconds this JVM has spent collecting garbage since it started. */
  private static long gcMillis() {
    long millis = 0;
    for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      millis += Math.max(0, gc.getCollectionTime()); // -1: the collector does not say
    }
    return millis;
  }

  /** A quarter of the space free in the work directory's file system now. */
  private static long defaultDiskLimit(ExecutorConfig config) throws IOException {
    long free = Files.getFileStore(config.workDir()).getUsableSpace();
    return Math.max(1, (long) (free * ExecutorConfig.DEFAULT_DISK_FRACTION));
  }

  /** Fails the task writing the most when spill and shuffle files pass the disk limit. */
  private void enforceDiskLimit() {
    try {
      taskSpillBytes.set(tasks.enforceDiskLimit(diskLimit, store.diskBytes()));
    } catch (RuntimeException e) {
      // Keep the periodic check alive; a store closing underneath is the only expected cause.
      LOG.debug("disk limit check of executor {} failed", config.executorId(), e);
    }
  }

  /** Why the executor takes no new tasks for lack of disk, or null when it has room. */
  private String diskShortage() {
    long used = store.diskBytes() + taskSpillBytes.get();
    // A task that just failed for lack of room here keeps the executor out for one heartbeat,
    // however little the failed attempt left behind.
    boolean low = lowOnDisk;
    if (used >= diskLimit * LOW_DISK_FRACTION) {
      lowOnDisk = true;
    } else if (used < diskLimit * ROOM_AGAIN_FRACTION) {
      lowOnDisk = false;
    }
    return low || lowOnDisk
        ? "low on disk: shuffle and spill files hold "
            + used
            + " of its "
            + diskLimit
            + " bytes (--disk-limit); it takes tasks again under "
            + (long) (diskLimit * ROOM_AGAIN_FRACTION)
        : null;
  }

  /** Bytes of spill and shuffle files this executor may keep (--disk-limit or its default). */
  public long diskLimit() {
    return diskLimit;
  }

  /** Probes the work directory; logs when the executor stops or starts being ready. */
  private void checkReady() {
    String problem = probe.problem().orElseGet(this::diskShortage);
    String before = notReady;
    notReady = problem;
    if (problem != null && before == null) {
      LOG.warn(
          "executor {} is not ready and takes no tasks until this is fixed: {}",
          config.executorId(),
          problem);
    } else if (problem == null && before != null) {
      LOG.info(
          "executor {} is ready again: its work directory can be written and has room",
          config.executorId());
    }
  }

  /**
   * Stops every task and orphans every shuffle output: a scheduler that asks for a new registration
   * has forgotten this executor's work (it restarted, or re-runs the work elsewhere), so no task
   * will read it. A client may still be reading a finished job's result, so that output is deleted
   * only once nobody opened it for {@link #orphanGrace}.
   */
  private void dropWork(String why) {
    int cancelled = tasks.cancelAll(why);
    int orphaned = store.orphanAll(orphanGrace());
    if (cancelled > 0 || orphaned > 0) {
      LOG.info(
          "executor {} dropped its work ({}): cancelled {} tasks; the shuffle output of {} jobs"
              + " is deleted once unread for {}",
          config.executorId(),
          why,
          cancelled,
          orphaned,
          orphanGrace());
    }
  }

  /** How long output of jobs the scheduler forgot is kept for a client still reading it. */
  private Duration orphanGrace() {
    Duration max = Duration.ofSeconds(60);
    return config.shuffleTtl().compareTo(max) < 0 ? config.shuffleTtl() : max;
  }

  /** Deletes the shuffle output of jobs nobody touched for the configured TTL. */
  private void expireShuffles() {
    try {
      for (ShuffleStore.Expired e : store.expire(config.shuffleTtl(), tasks::hasTasksOf)) {
        LOG.info(
            "executor {} expired the shuffle output of job {}: {} partitions ({} bytes) unread"
                + " for {} (the client never released it)",
            config.executorId(),
            e.jobId(),
            e.removed().partitions(),
            e.removed().bytes(),
            config.shuffleTtl());
      }
    } catch (RuntimeException e) {
      // Keep the periodic sweep alive; a store closing underneath is the only expected cause.
      LOG.debug("shuffle expiry sweep of executor {} failed", config.executorId(), e);
    }
  }

  /** Arrow memory the executor holds right now (tasks, shuffle output, transfers). */
  public long allocatedBytes() {
    return allocator.getAllocatedMemory();
  }

  /** The executor's id. */
  public String executorId() {
    return config.executorId();
  }

  /** The HTTP endpoint's port, or -1 when it serves none. */
  public int httpPort() {
    return http == null ? -1 : http.port();
  }

  /**
   * The Flight (and control) port (the real one when configured with port 0; the configured one on
   * a transport without ports).
   */
  public int port() {
    int port = flight.port();
    return port < 0 ? config.port() : port;
  }

  /** The shuffle output this executor holds. */
  public ShuffleStore shuffleStore() {
    return store;
  }

  /** The tasks this executor runs. */
  public TaskManager tasks() {
    return tasks;
  }

  /** The extensions loaded from the configured jars. */
  public Extensions extensions() {
    return extensions;
  }

  /**
   * Starts draining: the next heartbeat (sent now) tells the scheduler to place no new task here;
   * running tasks finish and shuffle outputs stay served until their jobs end.
   */
  public void drain() {
    if (draining || closed) {
      return;
    }
    draining = true;
    LOG.info("executor {} is draining", config.executorId());
    try {
      heartbeats.execute(this::beatOnce);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closing meanwhile: nothing to tell.
    }
  }

  /** Heartbeats now, off the calling thread: a task waits for memory (see {@link QueryMemory}). */
  private void beatSoon() {
    if (registered && !closed) {
      try {
        heartbeats.execute(this::beatOnce);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // Closing meanwhile: nothing to tell.
      }
    }
  }

  /** Whether the executor is draining (see {@link #drain}). */
  public boolean isDraining() {
    return draining;
  }

  /**
   * Waits until a draining executor has no task left and holds no shuffle output (the scheduler
   * removed each job's output when the job ended), or {@code grace} passed. Outputs count only
   * while a scheduler answers: with none (it stopped too), no job can read them any more.
   *
   * @return true when drained, false when {@code grace} ran out first (or not draining)
   */
  public boolean awaitDrained(java.time.Duration grace) throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    while (draining && !closed) {
      boolean schedulerGone =
          !registered
              || System.nanoTime() - lastBeatAnsweredNanos
                  > TimeUnit.MILLISECONDS.toNanos(3 * intervalMillis);
      if (tasks.activeTasks() == 0 && (store.partitionCount() == 0 || schedulerGone)) {
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(100);
    }
    return closed;
  }

  /** Whether the scheduler has accepted the executor's latest registration. */
  public boolean isRegistered() {
    return registered;
  }

  /** Stops heartbeating and serving, then frees all shuffle data and memory. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (http != null) {
      http.close();
    }
    heartbeats.shutdownNow();
    storeForPeers.close();
    try {
      heartbeats.awaitTermination(5, TimeUnit.SECONDS);
      // Tasks stop first: they report their end and release their memory and output.
      tasks.close();
      reporter.close();
      if (mirror != null) {
        mirror.close();
      }
      flight.close();
      // A call the server counts as done may still be closing its allocator (a DoGet closes its
      // after completing the stream): wait for them before the executor's allocator closes.
      flightCalls.shutdown();
      if (!flightCalls.awaitTermination(5, TimeUnit.SECONDS)) {
        flightCalls.shutdownNow();
      }
      schedulerChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      shuffleClient.close();
      store.close();
      workDirLocks.close();
      extensions.close();
      allocator.close();
    }
  }
}
