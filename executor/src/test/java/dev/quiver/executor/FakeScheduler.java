package dev.quiver.executor;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.HeartbeatResponse;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.RegisterResponse;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.proto.TaskStatusResponse;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.transport.GrpcTransport;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scheduler stand-in on loopback TCP or the in-process transport: accepts registrations, records
 * heartbeats' running task counts and every task status report; can refuse the next reports with
 * UNAVAILABLE.
 */
final class FakeScheduler extends SchedulerGrpc.SchedulerImplBase implements AutoCloseable {

  private final Server server;
  private final List<TaskStatusReport> reports = new ArrayList<>();
  private final List<ExecutorInfo> registered = new ArrayList<>();
  private final List<Integer> runningTasks = new ArrayList<>();
  private final AtomicInteger refuseReports = new AtomicInteger();
  private final AtomicInteger refusedReports = new AtomicInteger();

  /** The host and the (made-up) port of a fake scheduler on the in-process transport. */
  static final String IN_PROCESS_HOST = "scheduler";

  private static final int IN_PROCESS_PORT = 1;

  private final boolean tcp;

  /** A fake scheduler on loopback TCP. */
  FakeScheduler() throws IOException {
    this(GrpcTransport.NETTY);
  }

  /** A fake scheduler on {@code transport}: 127.0.0.1 and a free port over TCP. */
  FakeScheduler(GrpcTransport transport) throws IOException {
    tcp = transport == GrpcTransport.NETTY;
    server =
        transport
            .serverBuilder(tcp ? "127.0.0.1" : IN_PROCESS_HOST, 0, SecurityConfig.none())
            .addService(this)
            .build()
            .start();
  }

  String host() {
    return tcp ? "127.0.0.1" : IN_PROCESS_HOST;
  }

  int port() {
    return tcp ? server.getPort() : IN_PROCESS_PORT;
  }

  /** Refuses the next {@code n} reports with UNAVAILABLE, as a restarting scheduler would. */
  void refuseNextReports(int n) {
    refuseReports.set(n);
  }

  int refusedReports() {
    return refusedReports.get();
  }

  @Override
  public void register(RegisterRequest request, StreamObserver<RegisterResponse> out) {
    synchronized (this) {
      registered.add(request.getExecutor());
    }
    out.onNext(
        RegisterResponse.newBuilder()
            .setProtocolVersion(request.getProtocolVersion())
            .setHeartbeatIntervalMillis(50)
            .setHeartbeatTimeoutMillis(5_000)
            .build());
    out.onCompleted();
  }

  @Override
  public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> out) {
    synchronized (this) {
      runningTasks.add(request.getRunningTasks());
    }
    out.onNext(HeartbeatResponse.getDefaultInstance());
    out.onCompleted();
  }

  @Override
  public void reportTaskStatus(TaskStatusReport request, StreamObserver<TaskStatusResponse> out) {
    if (refuseReports.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      refusedReports.incrementAndGet();
      out.onError(Status.UNAVAILABLE.withDescription("restarting").asRuntimeException());
      return;
    }
    synchronized (this) {
      reports.add(request);
      notifyAll();
    }
    out.onNext(TaskStatusResponse.getDefaultInstance());
    out.onCompleted();
  }

  /** The executors as each registration so far described them. */
  synchronized List<ExecutorInfo> registered() {
    return List.copyOf(registered);
  }

  /** Every report received so far. */
  synchronized List<TaskStatusReport> reports() {
    return List.copyOf(reports);
  }

  /** Running task counts of the heartbeats received so far. */
  synchronized List<Integer> runningTasks() {
    return List.copyOf(runningTasks);
  }

  /** Waits for the report of a task attempt. */
  synchronized TaskStatusReport awaitReport(TaskId id) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      for (TaskStatusReport r : reports) {
        if (r.getTask().equals(id)) {
          return r;
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no report for " + id + "; got " + reports);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** Waits for the report of a task attempt and checks its state. */
  TaskStatusReport awaitReport(TaskId id, TaskState state) throws InterruptedException {
    TaskStatusReport r = awaitReport(id);
    if (r.getState() != state) {
      throw new AssertionError("expected " + state + " for " + id + " but got " + r);
    }
    return r;
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }
}
