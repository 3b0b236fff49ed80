package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.SchedulerClient;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.codec.StageDecoder;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.security.FlightSecurity;
import dev.quiver.distributed.security.GrpcSecurity;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.security.TestCertificates;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.scheduler.SchedulerServer;
import dev.quiver.scheduler.config.SchedulerConfig;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.ServerBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scheduler and an executor serving TLS and requiring a token: clients, executors registering,
 * control calls and Flight DoGet without the token or with a wrong one are UNAUTHENTICATED, and
 * plaintext connections fail.
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureServersTest {
  private static final String TOKEN = "cluster-token-8d21f0aa";
  private static final String WRONG = "not-the-token-77e3b1";

  private static final StageDecoder NO_PLANS =
      (bytes, context) -> {
        throw new PlanCodecException("SecureServersTest launches no tasks");
      };

  @TempDir static Path dir;
  private TestCertificates certs;
  private BufferAllocator allocator;
  private SchedulerServer scheduler;
  private ExecutorServer executor;
  private final ShufflePartitionId partition = ShuffleTickets.id("job-s", 1, 0, 0);

  @BeforeAll
  void start() throws Exception {
    certs = TestCertificates.generate(dir.resolve("certs"));
    allocator = new RootAllocator();
    scheduler =
        SchedulerServer.start(
            SchedulerConfig.defaults()
                .withPort(0)
                .withHeartbeat(Duration.ofMillis(200), Duration.ofSeconds(5))
                .withSecurity(certs.node(TOKEN)));
    executor = ExecutorServer.start(config("exec-secure", certs.node(TOKEN)), allocator, NO_PLANS);
    try (VectorSchemaRoot batch = TestBatches.batch(allocator, 0, 50)) {
      executor.shuffleStore().grant(partition.getJobId(), TestBatches.CAPABILITY);
      executor.shuffleStore().append(partition, batch);
    }
    executor.shuffleStore().grant(partition.getJobId(), TestBatches.CAPABILITY);
    executor.shuffleStore().complete(partition, TestBatches.SCHEMA);
  }

  @AfterAll
  void stop() {
    try {
      if (executor != null) {
        executor.close();
      }
      if (scheduler != null) {
        scheduler.close();
      }
    } finally {
      assertThat(allocator.getAllocatedMemory()).isZero();
      allocator.close();
    }
  }

  private ExecutorConfig config(String id, SecurityConfig security) {
    return ExecutorConfig.defaults("127.0.0.1", scheduler.port(), dir.resolve(id))
        .withExecutorId(id)
        .withPort(0)
        .withResources(1, 64L << 20)
        .withSecurity(security);
  }

  private ClusterConfig cluster(SecurityConfig security) {
    return new ClusterConfig("127.0.0.1", scheduler.port(), security);
  }

  @Test
  void anExecutorWithTheTokenRegistersOverTls() {
    assertThat(executor.isRegistered()).isTrue();
    try (SchedulerClient client = new SchedulerClient(cluster(certs.client(TOKEN)))) {
      assertThat(client.executors())
          .extracting(e -> e.getInfo().getExecutorId())
          .containsExactly("exec-secure");
    }
  }

  @Test
  void clientsWithoutOrWithAWrongTokenAreUnauthenticated() {
    for (SecurityConfig bad : List.of(certs.client(null), certs.client(WRONG))) {
      try (SchedulerClient client = new SchedulerClient(cluster(bad))) {
        assertThatThrownBy(client::executors)
            .isInstanceOf(QuiverException.class)
            .hasMessageContaining("UNAUTHENTICATED")
            .hasMessageContaining("token")
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain(TOKEN).doesNotContain(WRONG));
      }
    }
  }

  @Test
  void executorsWithoutOrWithAWrongTokenCannotRegister() throws Exception {
    List<SecurityConfig> bad =
        List.of(
            SecurityConfig.fromFiles(certs.cert(), certs.key(), certs.ca(), null),
            SecurityConfig.fromFiles(
                certs.cert(), certs.key(), certs.ca(), certs.tokenFile("wrong", WRONG)));
    for (SecurityConfig security : bad) {
      assertThatThrownBy(
              () -> ExecutorServer.start(config("exec-intruder", security), allocator, NO_PLANS))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("UNAUTHENTICATED")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain(TOKEN).doesNotContain(WRONG));
    }
    assertThat(scheduler.registry().alive())
        .extracting(i -> i.getExecutorId())
        .containsExactly("exec-secure");
  }

  @Test
  void flightDoGetNeedsTheToken() throws Exception {
    assertThat(doGet(certs.client(TOKEN))).isEqualTo(50);
    for (SecurityConfig bad : List.of(certs.client(null), certs.client(WRONG))) {
      assertThatThrownBy(() -> doGet(bad))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
                assertThat(e.getMessage()).doesNotContain(TOKEN).doesNotContain(WRONG);
              });
    }
  }

  @Test
  void controlCallsNeedTheToken() throws Exception {
    assertThat(removeNothing(certs.node(TOKEN))).isZero();
    for (SecurityConfig bad : List.of(certs.client(null), certs.client(WRONG))) {
      assertThatThrownBy(() -> removeNothing(bad))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                assertThat(e.getMessage()).doesNotContain(TOKEN).doesNotContain(WRONG);
              });
    }
  }

  @Test
  void plaintextConnectionsToTheSchedulerAndTheExecutorFail() {
    SecurityConfig plaintext = SecurityConfig.none().withToken(TOKEN);
    try (SchedulerClient client = new SchedulerClient(cluster(plaintext))) {
      assertThatThrownBy(client::executors)
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("UNAVAILABLE");
    }
    assertThatThrownBy(() -> doGet(plaintext))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
    assertThatThrownBy(() -> removeNothing(plaintext))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  /**
   * An executor whose server a transport built (as unit tests' in-process one is) instead of Flight
   * keeps Flight's checks: this transport's server serves TLS but checks no token itself, so only
   * the Flight service's token middleware refuses DoGet without the token, and the control
   * service's own interceptor refuses control calls.
   */
  @Test
  void anExecutorOnAServerATransportBuiltNeedsTheTokenToo() throws Exception {
    SecurityConfig tlsOnly = certs.node(null);
    GrpcTransport noTokenCheck =
        new GrpcTransport() {
          @Override
          public ServerBuilder<?> serverBuilder(String host, int port, SecurityConfig security) {
            return GrpcTransport.NETTY.serverBuilder(host, port, tlsOnly);
          }

          @Override
          public ManagedChannelBuilder<?> channelBuilder(
              String host, int port, SecurityConfig security) {
            return GrpcTransport.NETTY.channelBuilder(host, port, security);
          }
        };
    int noScheduler;
    try (ServerSocket free = new ServerSocket(0)) {
      noScheduler = free.getLocalPort();
    }
    // It keeps trying to register with a scheduler that is not there, and so stays out of the
    // other tests' scheduler.
    ExecutorConfig config =
        ExecutorConfig.defaults("127.0.0.1", noScheduler, dir.resolve("exec-transport"))
            .withExecutorId("exec-transport")
            .withPort(0)
            .withResources(1, 64L << 20)
            .withSecurity(certs.node(TOKEN));
    try (ExecutorServer other =
        ExecutorServer.start(config, allocator, extensionLoader -> NO_PLANS, noTokenCheck)) {
      try (VectorSchemaRoot batch = TestBatches.batch(allocator, 0, 50)) {
        other.shuffleStore().grant(partition.getJobId(), TestBatches.CAPABILITY);
        other.shuffleStore().append(partition, batch);
      }
      other.shuffleStore().complete(partition, TestBatches.SCHEMA);
      assertThat(doGet(other.port(), certs.client(TOKEN))).isEqualTo(50);
      assertThat(removeNothing(other.port(), certs.node(TOKEN))).isZero();
      for (SecurityConfig bad : List.of(certs.client(null), certs.client(WRONG))) {
        assertThatThrownBy(() -> doGet(other.port(), bad))
            .isInstanceOfSatisfying(
                FlightRuntimeException.class,
                e -> {
                  assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED);
                  assertThat(e.getMessage()).doesNotContain(TOKEN).doesNotContain(WRONG);
                });
        assertThatThrownBy(() -> removeNothing(other.port(), bad))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
      }
    }
  }

  private long doGet(SecurityConfig security) throws Exception {
    return doGet(executor.port(), security);
  }

  private long doGet(int port, SecurityConfig security) throws Exception {
    try (FlightClient client = FlightSecurity.connect(allocator, "127.0.0.1", port, security);
        FlightStream stream =
            client.getStream(ShuffleTickets.encode(partition, TestBatches.CAPABILITY))) {
      long rows = 0;
      while (stream.next()) {
        rows += stream.getRoot().getRowCount();
      }
      return rows;
    }
  }

  private int removeNothing(SecurityConfig security) throws InterruptedException {
    return removeNothing(executor.port(), security);
  }

  private int removeNothing(int port, SecurityConfig security) throws InterruptedException {
    ManagedChannel channel = GrpcSecurity.channelBuilder("127.0.0.1", port, security).build();
    try {
      return ExecutorControlGrpc.newBlockingStub(channel)
          .withDeadlineAfter(20, TimeUnit.SECONDS)
          .removeJobData(RemoveJobDataRequest.newBuilder().setJobId("no-such-job").build())
          .getRemovedPartitions();
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
