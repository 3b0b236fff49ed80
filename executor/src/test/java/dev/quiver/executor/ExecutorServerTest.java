package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.codec.StageDecoder;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.RegisterResponse;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.RemoveJobDataResponse;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.scheduler.SchedulerServer;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ExecutorServerTest {

  private static final Duration INTERVAL = Duration.ofMillis(100);
  private static final Duration TIMEOUT = Duration.ofMillis(1_000);

  /** These tests launch no tasks; a plan reaching this decoder is a test bug. */
  private static final StageDecoder NO_PLANS =
      (bytes, context) -> {
        throw new PlanCodecException("ExecutorServerTest launches no tasks");
      };

  @TempDir Path workDir;

  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void checkNoLeak() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  private static SchedulerConfig schedulerConfig(int port) {
    return SchedulerConfig.defaults().withPort(port).withHeartbeat(INTERVAL, TIMEOUT);
  }

  private static SchedulerServer startScheduler(int port) throws Exception {
    return SchedulerServer.start(schedulerConfig(port));
  }

  private ExecutorConfig executorConfig(String id, int schedulerPort) {
    return ExecutorConfig.defaults("127.0.0.1", schedulerPort, workDir.resolve(id))
        .withExecutorId(id)
        .withPort(0)
        .withResources(3, 256L << 20);
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(20);
    }
  }

  private static long lastSeenUnixMillis(SchedulerServer scheduler, String id) {
    return scheduler.registry().list(true).stream()
        .filter(s -> s.getInfo().getExecutorId().equals(id))
        .mapToLong(ExecutorStatus::getLastSeenUnixMillis)
        .findFirst()
        .orElse(-1);
  }

  private static ExecutorState stateOf(SchedulerServer scheduler, String id) {
    return scheduler.registry().list(true).stream()
        .filter(s -> s.getInfo().getExecutorId().equals(id))
        .map(ExecutorStatus::getState)
        .findFirst()
        .orElse(ExecutorState.EXECUTOR_STATE_UNSPECIFIED);
  }

  /**
   * Over TCP, with the scheduler's registry on a clock the test advances: each step moves it 0.9
   * timeouts on, so the executor is alive only if a heartbeat arrived since the last step.
   */
  @Test
  void registersHeartbeatsAndIsLostOnceStopped() throws Exception {
    AtomicLong nanos = new AtomicLong();
    long epochMillis = 1_700_000_000_000L;
    LongSupplier unixMillis = () -> epochMillis + TimeUnit.NANOSECONDS.toMillis(nanos.get());
    ExecutorRegistry registry =
        new ExecutorRegistry(TIMEOUT, SchedulerClock.of(nanos::get, unixMillis));
    try (SchedulerServer scheduler =
        SchedulerServer.start(schedulerConfig(0), GrpcTransport.NETTY, registry)) {
      ExecutorServer executor =
          ExecutorServer.start(executorConfig("exec-a", scheduler.port()), allocator, NO_PLANS);
      try {
        assertThat(executor.isRegistered()).isTrue();
        List<ExecutorInfo> alive = scheduler.registry().alive();
        assertThat(alive)
            .singleElement()
            .satisfies(
                info -> {
                  assertThat(info.getExecutorId()).isEqualTo("exec-a");
                  assertThat(info.getHost()).isEqualTo("127.0.0.1");
                  assertThat(info.getFlightPort()).isEqualTo(executor.port());
                  assertThat(info.getCores()).isEqualTo(3);
                  assertThat(info.getMemoryBytes()).isEqualTo(256L << 20);
                });
        // Heartbeats keep it alive well past the timeout.
        long step = TIMEOUT.toNanos() * 9 / 10;
        for (int i = 0; i < 3; i++) {
          nanos.addAndGet(step);
          long now = unixMillis.getAsLong();
          await("a heartbeat at step " + i, () -> lastSeenUnixMillis(scheduler, "exec-a") == now);
          registry.expire(); // the liveness checker may have run it already: check the state
          assertThat(stateOf(scheduler, "exec-a")).isEqualTo(ExecutorState.EXECUTOR_STATE_ALIVE);
        }
      } finally {
        executor.close();
      }
      // Stopped, it is lost at once by its broken connection: the registry's clock has not
      // moved, so no heartbeat timeout can have done it (SchedulerServerTest checks that path).
      await(
          "the stopped executor is marked lost",
          () -> stateOf(scheduler, "exec-a") == ExecutorState.EXECUTOR_STATE_LOST);
    }
  }

  /**
   * A SIGKILLed executor leaves its {@code shuffle-*} and {@code tasks-*} folders (their lock files
   * unlocked: the OS drops a dead process's locks); the next executor on the work directory removes
   * them at start, and keeps a live executor's (locked) and a just-created one's.
   */
  @Test
  void removesTheFoldersOfDeadExecutorsAtStart() throws Exception {
    Path work = workDir.resolve("shared");
    java.nio.file.attribute.FileTime old =
        java.nio.file.attribute.FileTime.from(java.time.Instant.now().minusSeconds(3600));
    List<Path> dead = List.of(work.resolve("shuffle-111"), work.resolve("tasks-222"));
    for (Path d : dead) {
      Files.createDirectories(d.resolve("job-1"));
      Files.writeString(d.resolve(WorkDirLocks.LOCK_FILE), "");
      Files.setLastModifiedTime(d.resolve(WorkDirLocks.LOCK_FILE), old);
    }
    Path beforeLocks = Files.createDirectories(work.resolve("tasks-333")); // an older release's
    Files.setLastModifiedTime(beforeLocks, old);
    Path young = Files.createDirectories(work.resolve("shuffle-444")); // being created
    Path live = Files.createDirectories(work.resolve("shuffle-555"));
    Path other = Files.createDirectories(work.resolve("data"));
    try (SchedulerServer scheduler = startScheduler(0);
        WorkDirLocks liveOwner = new WorkDirLocks()) {
      liveOwner.own(live);
      Files.setLastModifiedTime(live.resolve(WorkDirLocks.LOCK_FILE), old);
      ExecutorServer executor =
          ExecutorServer.start(
              ExecutorConfig.defaults("127.0.0.1", scheduler.port(), work)
                  .withExecutorId("exec-b")
                  .withPort(0)
                  .withResources(1, 64L << 20),
              allocator,
              NO_PLANS);
      try {
        for (Path d : dead) {
          assertThat(d).doesNotExist();
        }
        assertThat(beforeLocks).doesNotExist();
        assertThat(young).exists();
        assertThat(live).exists();
        assertThat(other).exists();
        List<Path> own;
        try (Stream<Path> files = Files.list(work)) {
          own =
              files
                  .filter(p -> !List.of(young, live, other).contains(p))
                  .filter(p -> Files.exists(p.resolve(WorkDirLocks.LOCK_FILE)))
                  .toList();
        }
        assertThat(own).as("the new executor's own, locked folders").hasSize(2);
        // Another executor on the same directory, however old the folders, keeps them.
        for (Path p : own) {
          Files.setLastModifiedTime(p.resolve(WorkDirLocks.LOCK_FILE), old);
          assertThat(WorkDirLocks.stale(p)).as(p.toString()).isFalse();
        }
        assertThat(WorkDirLocks.stale(live)).isFalse();
      } finally {
        executor.close();
      }
    }
  }

  @Test
  void registersOnceTheSchedulerComesUpAndAgainAfterItRestarts() throws Exception {
    int port;
    try (SchedulerServer probe = startScheduler(0)) {
      port = probe.port();
    }
    try (ExecutorServer executor =
        ExecutorServer.start(executorConfig("exec-b", port), allocator, NO_PLANS)) {
      assertThat(executor.isRegistered()).isFalse();
      try (SchedulerServer scheduler = startScheduler(port)) {
        await(
            "the executor registers",
            () -> stateOf(scheduler, "exec-b") == ExecutorState.EXECUTOR_STATE_ALIVE);
      }
      // A restarted scheduler has an empty registry: the executor is asked to register again.
      try (SchedulerServer restarted = startScheduler(port)) {
        await(
            "the executor registers again",
            () -> stateOf(restarted, "exec-b") == ExecutorState.EXECUTOR_STATE_ALIVE);
      }
    }
  }

  /** A scheduler from a later release: it speaks protocol version VERSION + 1. */
  private static final class FutureScheduler extends SchedulerGrpc.SchedulerImplBase {
    @Override
    public void register(RegisterRequest request, StreamObserver<RegisterResponse> out) {
      try {
        WireProtocol.requireCompatible(
            request.getProtocolVersion() - 1,
            "executor '" + request.getExecutor().getExecutorId() + "'",
            "scheduler");
        out.onNext(RegisterResponse.getDefaultInstance());
        out.onCompleted();
      } catch (StatusRuntimeException e) {
        out.onError(e);
      }
    }
  }

  @Test
  void refusedRegistrationFailsStartAndReleasesEverything() throws Exception {
    Server future =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(new FutureScheduler())
            .build()
            .start();
    try {
      assertThatThrownBy(
              () ->
                  ExecutorServer.start(
                      executorConfig("exec-d", future.getPort()), allocator, NO_PLANS))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("refused executor exec-d")
          .hasMessageContaining("FAILED_PRECONDITION");
      assertThat(allocator.getAllocatedMemory()).isZero();
      assertThat(allocator.getChildAllocators()).isEmpty();
      try (Stream<Path> left = Files.list(workDir.resolve("exec-d"))) {
        assertThat(left).as("spill directories left behind").isEmpty();
      }
    } finally {
      future.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void servesShuffleDataAndRemovesItOnRequest() throws Exception {
    try (SchedulerServer scheduler = startScheduler(0);
        ExecutorServer executor =
            ExecutorServer.start(executorConfig("exec-c", scheduler.port()), allocator, NO_PLANS)) {
      ShufflePartitionId id = ShuffleTickets.id("job-9", 1, 0, 0);
      try (VectorSchemaRoot batch = TestBatches.batch(allocator, 0, 100)) {
        executor.shuffleStore().grant(id.getJobId(), TestBatches.CAPABILITY);
        executor.shuffleStore().append(id, batch);
      }
      executor.shuffleStore().grant(id.getJobId(), TestBatches.CAPABILITY);
      executor.shuffleStore().complete(id, TestBatches.SCHEMA);

      try (FlightClient client =
          FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", executor.port()))
              .build()) {
        AtomicLong rows = new AtomicLong();
        try (FlightStream stream =
            client.getStream(ShuffleTickets.encode(id, TestBatches.CAPABILITY))) {
          TestBatches.forEachBatch(stream, allocator, b -> rows.addAndGet(b.getRowCount()));
        }
        assertThat(rows.get()).isEqualTo(100);

        // The control service answers on the Flight port.
        ManagedChannel channel =
            NettyChannelBuilder.forAddress("127.0.0.1", executor.port()).usePlaintext().build();
        try {
          ExecutorControlGrpc.ExecutorControlBlockingStub control =
              ExecutorControlGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
          RemoveJobDataResponse removed =
              control.removeJobData(RemoveJobDataRequest.newBuilder().setJobId("job-9").build());
          assertThat(removed.getRemovedPartitions()).isEqualTo(1);
          assertThat(removed.getRemovedBytes()).isPositive();
          assertThatThrownBy(() -> control.launchTask(LaunchTaskRequest.getDefaultInstance()))
              .isInstanceOfSatisfying(
                  StatusRuntimeException.class,
                  e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription())
                        .contains("task's id")
                        .contains("exec-c");
                  });
        } finally {
          channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }

        assertThatThrownBy(
                () -> {
                  try (FlightStream stream =
                      client.getStream(ShuffleTickets.encode(id, TestBatches.CAPABILITY))) {
                    stream.next();
                  }
                })
            .isInstanceOfSatisfying(
                FlightRuntimeException.class,
                e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND));
      }
    }
  }

  /**
   * While the scheduler does not take the registration (UNAVAILABLE: down, starting, a wrong
   * address), the executor retries after growing waits; it once retried every second, logging a
   * warning each time.
   */
  @Test
  void anUnavailableSchedulerIsRetriedWithGrowingWaits() throws Exception {
    AtomicLong attempts = new AtomicLong();
    Server unavailable =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                new SchedulerGrpc.SchedulerImplBase() {
                  @Override
                  public void register(
                      RegisterRequest request, StreamObserver<RegisterResponse> out) {
                    attempts.incrementAndGet();
                    out.onError(Status.UNAVAILABLE.withDescription("starting").asException());
                  }
                })
            .build()
            .start();
    try (ExecutorServer executor =
        ExecutorServer.start(
            executorConfig("exec-waits", unavailable.getPort()), allocator, NO_PLANS)) {
      assertThat(executor.isRegistered()).isFalse();
      // Attempts at 0, 1, 3 and 7 s (waits of 1, 2, 4 s), not at every second (7 by 6 s).
      Thread.sleep(6_000);
      assertThat(attempts.get()).isBetween(2L, 3L);
      assertThat(executor.nextBeatMillis())
          .isBetween(2_000L, ExecutorServer.MAX_REGISTER_BACKOFF_MILLIS);
    } finally {
      unavailable.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** Pointed at an HTTP port (the scheduler's web UI), the executor says so in one line. */
  @Test
  void anHttpPortIsRecognised() throws Exception {
    com.sun.net.httpserver.HttpServer http =
        com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    http.start();
    try {
      assertThatThrownBy(
              () ->
                  ExecutorServer.start(
                      executorConfig("exec-http", http.getAddress().getPort()),
                      allocator,
                      NO_PLANS))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("answers HTTP/1.x, not gRPC")
          .hasMessageContaining("gRPC port")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    } finally {
      http.stop(0);
    }
  }
}
