package dev.quiver.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.RegisterResponse;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.SubmitJobRequest;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.transport.InProcessTransport;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scheduler service over the in-process transport, its executor registry on a clock the tests
 * advance. JobsTest and the executor module's tests run the scheduler over TCP too.
 */
@Timeout(60)
class SchedulerServerTest {

  private static final Duration INTERVAL = Duration.ofMillis(100);
  private static final Duration TIMEOUT = Duration.ofMillis(800);

  /** The registry's monotonic clock, in nanoseconds; it moves only when a test says so. */
  private final AtomicLong nanos = new AtomicLong();

  private SchedulerServer server;
  private ExecutorRegistry registry;
  private ManagedChannel channel;
  private SchedulerGrpc.SchedulerBlockingStub stub;

  @BeforeEach
  void start() throws Exception {
    GrpcTransport transport = new InProcessTransport();
    server =
        SchedulerServer.start(
            SchedulerConfig.defaults().withPort(0).withHeartbeat(INTERVAL, TIMEOUT),
            transport,
            registry =
                new ExecutorRegistry(
                    TIMEOUT,
                    SchedulerClock.of(
                        nanos::get, () -> 1_700_000_000_000L + nanos.get() / 1_000_000)));
    channel = transport.channelBuilder(server.host(), server.port(), SecurityConfig.none()).build();
    stub = SchedulerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    server.close();
  }

  private static RegisterRequest register(String id, int version) {
    return RegisterRequest.newBuilder()
        .setProtocolVersion(version)
        .setExecutor(
            ExecutorInfo.newBuilder()
                .setExecutorId(id)
                .setHost("127.0.0.1")
                .setFlightPort(40000)
                .setCores(2)
                .setMemoryBytes(1L << 30)
                .setVersion("test"))
        .build();
  }

  private List<ExecutorStatus> list(boolean includeLost) {
    return stub.listExecutors(ListExecutorsRequest.newBuilder().setIncludeLost(includeLost).build())
        .getExecutorsList();
  }

  @Test
  void registerHeartbeatAndLossAfterTimeout() throws Exception {
    RegisterResponse response = stub.register(register("steady", WireProtocol.VERSION));
    assertThat(response.getProtocolVersion()).isEqualTo(WireProtocol.VERSION);
    assertThat(response.getHeartbeatIntervalMillis()).isEqualTo(INTERVAL.toMillis());
    assertThat(response.getHeartbeatTimeoutMillis()).isEqualTo(TIMEOUT.toMillis());
    stub.register(register("silent", WireProtocol.VERSION));
    assertThat(list(false))
        .extracting(s -> s.getInfo().getExecutorId())
        .containsExactly("silent", "steady");

    // "steady" heartbeats; "silent" does not. Silent for exactly the timeout is still alive ...
    nanos.set(TIMEOUT.toNanos());
    assertThat(stub.heartbeat(heartbeat("steady")).getReregister()).isFalse();
    server.checkLiveness();
    assertThat(list(false))
        .extracting(s -> s.getInfo().getExecutorId())
        .containsExactly("silent", "steady");

    // ... and lost a nanosecond later, while "steady", seen since, stays alive.
    nanos.set(TIMEOUT.toNanos() + 1);
    server.checkLiveness();
    List<ExecutorStatus> all = list(true);
    assertThat(stateOf(all, "silent")).isEqualTo(ExecutorState.EXECUTOR_STATE_LOST);
    assertThat(stateOf(all, "steady")).isEqualTo(ExecutorState.EXECUTOR_STATE_ALIVE);
    assertThat(list(false)).extracting(s -> s.getInfo().getExecutorId()).containsExactly("steady");
    assertThat(all)
        .filteredOn(s -> s.getInfo().getExecutorId().equals("steady"))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getRunningTasks()).isEqualTo(1);
              assertThat(s.getShuffleBytes()).isEqualTo(123);
            });

    // The lost executor is told to register again, and is alive once it has.
    assertThat(stub.heartbeat(heartbeat("silent")).getReregister()).isTrue();
    stub.register(register("silent", WireProtocol.VERSION));
    assertThat(stub.heartbeat(heartbeat("silent")).getReregister()).isFalse();
    assertThat(stateOf(list(true), "silent")).isEqualTo(ExecutorState.EXECUTOR_STATE_ALIVE);
  }

  @Test
  void aDrainedExecutorIsToldSoInItsHeartbeatAndListedDraining() {
    stub.register(register("leaving", WireProtocol.VERSION));
    stub.register(register("staying", WireProtocol.VERSION));
    assertThat(stub.heartbeat(heartbeat("leaving")).getDraining()).isFalse();
    assertThat(registry.drain("leaving")).isTrue();
    assertThat(stub.heartbeat(heartbeat("leaving")).getDraining()).isTrue();
    assertThat(stub.heartbeat(heartbeat("staying")).getDraining()).isFalse();
    assertThat(list(false))
        .extracting(s -> s.getInfo().getExecutorId(), ExecutorStatus::getDraining)
        .containsExactly(
            org.assertj.core.api.Assertions.tuple("leaving", true),
            org.assertj.core.api.Assertions.tuple("staying", false));
  }

  private static HeartbeatRequest heartbeat(String id) {
    return HeartbeatRequest.newBuilder()
        .setExecutorId(id)
        .setRunningTasks(1)
        .setShuffleBytes(123)
        .build();
  }

  private static ExecutorState stateOf(List<ExecutorStatus> all, String id) {
    return all.stream()
        .filter(s -> s.getInfo().getExecutorId().equals(id))
        .map(ExecutorStatus::getState)
        .findFirst()
        .orElse(ExecutorState.EXECUTOR_STATE_UNSPECIFIED);
  }

  @Test
  void incompatibleProtocolVersionIsRefusedOnRegister() {
    int other = WireProtocol.VERSION + 1;
    assertThatThrownBy(() -> stub.register(register("future", other)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription())
                  .contains("executor 'future'")
                  .contains("protocol version " + other)
                  .contains("protocol version " + WireProtocol.VERSION);
            });
    assertThat(list(true)).isEmpty();
  }

  @Test
  void incompatibleProtocolVersionIsRefusedOnSubmit() {
    SubmitJobRequest request =
        SubmitJobRequest.newBuilder()
            .setProtocolVersion(WireProtocol.VERSION + 1)
            .setJob(
                JobSpec.newBuilder()
                    .setFinalStageId(1)
                    .addStages(StageSpec.newBuilder().setStageId(1).setTaskCount(1)))
            .build();
    assertThatThrownBy(() -> stub.submitJob(request))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
              assertThat(e.getStatus().getDescription())
                  .contains("client")
                  .contains("protocol version " + (WireProtocol.VERSION + 1))
                  .contains("protocol version " + WireProtocol.VERSION);
            });
  }

  @Test
  void malformedRegistrationIsInvalidArgument() {
    RegisterRequest noPort =
        register("e1", WireProtocol.VERSION).toBuilder()
            .setExecutor(
                register("e1", WireProtocol.VERSION).getExecutor().toBuilder().setFlightPort(0))
            .build();
    assertThatThrownBy(() -> stub.register(noPort))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).contains("e1").contains("flight port 0");
            });
    assertThatThrownBy(() -> stub.heartbeat(HeartbeatRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }
}
