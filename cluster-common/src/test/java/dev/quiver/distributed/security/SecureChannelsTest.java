package dev.quiver.distributed.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.testproto.EchoReply;
import dev.quiver.distributed.testproto.EchoRequest;
import dev.quiver.distributed.testproto.EchoServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gRPC server and a Flight server secured with TLS and a token, called with the right token, a
 * wrong one, none, and over plaintext.
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecureChannelsTest {
  private static final String TOKEN = "right-token-93c1d7";
  private static final String WRONG = "wrong-token-5ab2e0";
  private static final Schema SCHEMA =
      new Schema(List.of(Field.nullable("v", new ArrowType.Int(64, true))));

  @TempDir static Path dir;
  private TestCertificates certs;
  private BufferAllocator allocator;
  private Server grpc;
  private FlightServer flight;

  private static final class EchoService extends EchoServiceGrpc.EchoServiceImplBase {
    @Override
    public void echo(EchoRequest request, StreamObserver<EchoReply> out) {
      out.onNext(EchoReply.newBuilder().setText(request.getText().toUpperCase()).build());
      out.onCompleted();
    }
  }

  /** Serves {@code n} longs, {@code n} being the ticket's text. */
  private static final class Producer extends NoOpFlightProducer {
    private final BufferAllocator allocator;

    Producer(BufferAllocator allocator) {
      this.allocator = allocator;
    }

    @Override
    public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
      int n = Integer.parseInt(new String(ticket.getBytes(), StandardCharsets.UTF_8));
      try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
        BigIntVector v = (BigIntVector) root.getVector(0);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
          v.set(i, i);
        }
        root.setRowCount(n);
        listener.start(root);
        listener.putNext();
        listener.completed();
      }
    }
  }

  @BeforeAll
  void start() throws Exception {
    certs = TestCertificates.generate(dir.resolve("certs"));
    SecurityConfig node = certs.node(TOKEN);
    allocator = new RootAllocator();
    grpc =
        GrpcSecurity.secure(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)), node)
            .addService(new EchoService())
            .build()
            .start();
    flight =
        FlightSecurity.secure(
                FlightServer.builder(
                    allocator,
                    FlightSecurity.serverLocation("127.0.0.1", 0, node),
                    new Producer(allocator)),
                node)
            .build()
            .start();
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (flight != null) {
        flight.close();
      }
      if (grpc != null) {
        grpc.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
    } finally {
      assertThat(allocator.getAllocatedMemory()).isZero();
      allocator.close();
    }
  }

  private String echo(SecurityConfig client) throws InterruptedException {
    ManagedChannel channel =
        GrpcSecurity.channelBuilder("127.0.0.1", grpc.getPort(), client).build();
    try {
      return EchoServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(20, TimeUnit.SECONDS)
          .echo(EchoRequest.newBuilder().setText("quiver").build())
          .getText();
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private long fetch(SecurityConfig client) throws Exception {
    try (FlightClient c = FlightSecurity.connect(allocator, "127.0.0.1", flight.getPort(), client);
        FlightStream s = c.getStream(new Ticket("10".getBytes(StandardCharsets.UTF_8)))) {
      long rows = 0;
      while (s.next()) {
        rows += s.getRoot().getRowCount();
      }
      return rows;
    }
  }

  @Test
  void grpcWithTheTokenOverTlsWorks() throws Exception {
    assertThat(echo(certs.client(TOKEN))).isEqualTo("QUIVER");
    assertThat(echo(certs.node(TOKEN))).isEqualTo("QUIVER");
  }

  @Test
  void grpcWithoutOrWithAWrongTokenIsUnauthenticated() {
    for (SecurityConfig bad : List.of(certs.client(null), certs.client(WRONG))) {
      assertThatThrownBy(() -> echo(bad))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
                assertThat(e.getStatus().getDescription())
                    .contains("token")
                    .doesNotContain(TOKEN)
                    .doesNotContain(WRONG);
                assertThat(e.getMessage()).doesNotContain(TOKEN).doesNotContain(WRONG);
              });
    }
  }

  @Test
  void grpcOverPlaintextToATlsServerFails() {
    assertThatThrownBy(() -> echo(SecurityConfig.none().withToken(TOKEN)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
  }

  @Test
  void flightDoGetWithTheTokenOverTlsWorks() throws Exception {
    assertThat(fetch(certs.client(TOKEN))).isEqualTo(10);
  }

  @Test
  void flightDoGetWithoutOrWithAWrongTokenIsUnauthenticated() {
    for (SecurityConfig bad : List.of(certs.client(null), certs.client(WRONG))) {
      assertThatThrownBy(() -> fetch(bad))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> {
                assertThat(e.status().code()).isEqualTo(CallStatus.UNAUTHENTICATED.code());
                assertThat(e.getMessage())
                    .contains("token")
                    .doesNotContain(TOKEN)
                    .doesNotContain(WRONG);
              });
    }
  }

  @Test
  void flightOverPlaintextToATlsServerFails() {
    assertThatThrownBy(() -> fetch(SecurityConfig.none().withToken(TOKEN)))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(CallStatus.UNAVAILABLE.code()));
  }
}
