package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.CancelTasksRequest;
import dev.quiver.distributed.proto.CancelTasksResponse;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.LaunchTaskResponse;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.RegisterResponse;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.RemoveJobDataResponse;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.wire.WireProtocol;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A stand-in executor: a real ExecutorControl gRPC server that registers and heartbeats with the
 * scheduler and "runs" each launched task by reporting the outcome its script chooses. It serves
 * and calls over the scheduler's transport: in-process (a host name of its own, a made-up port) or
 * TCP (127.0.0.1, a free port).
 */
final class FakeExecutor implements AutoCloseable {

  /** What a launched task does: report success, report a failure, or wait to be completed. */
  record Outcome(TaskState state, ErrorInfo error, boolean hold) {
    static Outcome succeed() {
      return new Outcome(TaskState.TASK_STATE_SUCCEEDED, null, false);
    }

    static Outcome fail(ErrorInfo error) {
      return new Outcome(TaskState.TASK_STATE_FAILED, error, false);
    }

    static Outcome held() {
      return new Outcome(null, null, true);
    }
  }

  /** One launch as the executor saw it, with the order among all fake executors of a test. */
  record Launch(String executorId, LaunchTaskRequest request) {
    TaskId task() {
      return request.getTask();
    }
  }

  /** Numbers the in-process fakes' host names and ports, so a restarted fake has a new address. */
  private static final AtomicInteger ADDRESSES = new AtomicInteger();

  final String id;
  final int cores;
  final List<Launch> launches = new CopyOnWriteArrayList<>();
  final List<CancelTasksRequest> cancels = new CopyOnWriteArrayList<>();
  final List<String> removedJobs = new CopyOnWriteArrayList<>();
  final Map<TaskId, LaunchTaskRequest> held = new ConcurrentHashMap<>();
  volatile Function<LaunchTaskRequest, Outcome> script = r -> Outcome.succeed();

  private final List<Launch> globalLog;
  private final String host;
  private final int port;
  private final Server server;
  private final ManagedChannel schedulerChannel;
  private final SchedulerGrpc.SchedulerBlockingStub scheduler;
  private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();
  private final ExecutorService reporter = Executors.newSingleThreadExecutor();

  /** Starts a fake executor on {@code transport} and registers it with the scheduler there. */
  FakeExecutor(
      String id,
      int cores,
      GrpcTransport transport,
      String schedulerHost,
      int schedulerPort,
      List<Launch> globalLog)
      throws IOException {
    this(id, cores, transport, schedulerHost, schedulerPort, globalLog, true);
  }

  /**
   * Starts a fake executor on {@code transport}; with {@code register} false it neither registers
   * nor heartbeats (the test registers it through the job manager itself).
   */
  FakeExecutor(
      String id,
      int cores,
      GrpcTransport transport,
      String schedulerHost,
      int schedulerPort,
      List<Launch> globalLog,
      boolean register)
      throws IOException {
    this.id = id;
    this.cores = cores;
    this.globalLog = globalLog;
    SecurityConfig plain = SecurityConfig.none();
    boolean tcp = transport == GrpcTransport.NETTY;
    int n = ADDRESSES.incrementAndGet();
    this.host = tcp ? "127.0.0.1" : id + "-" + n;
    this.server = transport.serverBuilder(host, 0, plain).addService(new Control()).build().start();
    this.port = tcp ? server.getPort() : n;
    this.schedulerChannel = transport.channelBuilder(schedulerHost, schedulerPort, plain).build();
    this.scheduler = SchedulerGrpc.newBlockingStub(schedulerChannel);
    if (!register) {
      return;
    }
    RegisterResponse registered =
        scheduler
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .register(
                RegisterRequest.newBuilder()
                    .setProtocolVersion(WireProtocol.VERSION)
                    .setExecutor(info())
                    .build());
    long interval = registered.getHeartbeatIntervalMillis();
    heartbeats.scheduleWithFixedDelay(this::heartbeat, interval, interval, TimeUnit.MILLISECONDS);
  }

  ExecutorInfo info() {
    return ExecutorInfo.newBuilder()
        .setExecutorId(id)
        .setHost(host)
        .setFlightPort(port)
        .setCores(cores)
        .setMemoryBytes(1L << 30)
        .setVersion("fake")
        .build();
  }

  String host() {
    return host;
  }

  int port() {
    return port;
  }

  private void heartbeat() {
    try {
      scheduler
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .heartbeat(
              HeartbeatRequest.newBuilder().setExecutorId(id).setRunningTasks(held.size()).build());
    } catch (RuntimeException e) {
      // The scheduler may be shutting down at the end of a test.
    }
  }

  /** Finishes a held task with the given outcome. */
  void complete(TaskId task, Outcome outcome) {
    if (held.remove(task) != null) {
      reporter.execute(() -> report(task, outcome));
    }
  }

  /** Sends a report as if this executor had run the task (also for stale attempts). */
  void report(TaskId task, Outcome outcome) {
    TaskStatusReport.Builder r =
        TaskStatusReport.newBuilder()
            .setTask(task)
            .setExecutorId(id)
            .setState(outcome.state())
            .setMetrics(
                TaskMetrics.newBuilder()
                    .setOutputRows(10L * (task.getTaskId() + 1))
                    .setOutputBytes(100)
                    .setElapsedMillis(5)
                    .setJobPeakMemoryBytes(1000L * (task.getTaskId() + 1)));
    if (outcome.error() != null) {
      r.setError(outcome.error());
    }
    try {
      scheduler.withDeadlineAfter(10, TimeUnit.SECONDS).reportTaskStatus(r.build());
    } catch (RuntimeException e) {
      // The scheduler may be shutting down at the end of a test.
    }
  }

  /** Simulates a crash: no more heartbeats, and the control server stops answering. */
  void kill() throws InterruptedException {
    heartbeats.shutdownNow();
    server.shutdownNow();
    // Until termination, established connections may still take a call.
    server.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    heartbeats.shutdownNow();
    reporter.shutdownNow();
    server.shutdownNow();
    schedulerChannel.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    schedulerChannel.awaitTermination(5, TimeUnit.SECONDS);
    heartbeats.awaitTermination(5, TimeUnit.SECONDS);
    reporter.awaitTermination(5, TimeUnit.SECONDS);
  }

  private final class Control extends ExecutorControlGrpc.ExecutorControlImplBase {
    @Override
    public void launchTask(LaunchTaskRequest request, StreamObserver<LaunchTaskResponse> out) {
      Launch launch = new Launch(id, request);
      synchronized (globalLog) {
        globalLog.add(launch);
        launches.add(launch);
      }
      Outcome outcome = script.apply(request);
      if (outcome.hold()) {
        held.put(request.getTask(), request);
      } else {
        reporter.execute(() -> report(request.getTask(), outcome));
      }
      out.onNext(LaunchTaskResponse.getDefaultInstance());
      out.onCompleted();
    }

    @Override
    public void cancelTasks(CancelTasksRequest request, StreamObserver<CancelTasksResponse> out) {
      cancels.add(request);
      int cancelled = 0;
      for (TaskId t : request.getTasksList()) {
        if (held.remove(t) != null) {
          cancelled++;
        }
      }
      out.onNext(CancelTasksResponse.newBuilder().setCancelled(cancelled).build());
      out.onCompleted();
    }

    @Override
    public void removeJobData(
        RemoveJobDataRequest request, StreamObserver<RemoveJobDataResponse> out) {
      removedJobs.add(request.getJobId());
      out.onNext(RemoveJobDataResponse.getDefaultInstance());
      out.onCompleted();
    }
  }
}
