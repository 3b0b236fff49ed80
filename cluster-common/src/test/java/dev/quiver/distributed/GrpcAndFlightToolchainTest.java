package dev.quiver.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.testproto.EchoReply;
import dev.quiver.distributed.testproto.EchoRequest;
import dev.quiver.distributed.testproto.EchoServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Proves generated gRPC stubs and an Arrow Flight server share one JVM (one gRPC/Netty stack). */
@Timeout(60)
class GrpcAndFlightToolchainTest {

  private static final Schema SCHEMA =
      new Schema(List.of(Field.nullable("v", new ArrowType.Int(64, true))));

  /** Echoes the request text upper-cased. */
  private static final class EchoService extends EchoServiceGrpc.EchoServiceImplBase {
    @Override
    public void echo(EchoRequest request, StreamObserver<EchoReply> out) {
      out.onNext(EchoReply.newBuilder().setText(request.getText().toUpperCase()).build());
      out.onCompleted();
    }
  }

  /** Serves one batch of {@code n} longs, where {@code n} is the ticket's text. */
  private static final class CountingProducer extends NoOpFlightProducer {
    private final BufferAllocator allocator;

    CountingProducer(BufferAllocator allocator) {
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

  @Test
  void grpcServiceAndFlightServerRunSideBySide() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      Server grpc =
          NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
              .addService(new EchoService())
              .build()
              .start();
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", grpc.getPort()).usePlaintext().build();
      try (FlightServer flight =
              FlightServer.builder(
                      allocator,
                      Location.forGrpcInsecure("127.0.0.1", 0),
                      new CountingProducer(allocator))
                  .build()
                  .start();
          FlightClient client =
              FlightClient.builder(
                      allocator, Location.forGrpcInsecure("127.0.0.1", flight.getPort()))
                  .build()) {
        EchoReply reply =
            EchoServiceGrpc.newBlockingStub(channel)
                .echo(EchoRequest.newBuilder().setText("quiver").build());
        assertThat(reply.getText()).isEqualTo("QUIVER");

        long sum = 0;
        int rows = 0;
        try (FlightStream stream =
            client.getStream(new Ticket("100".getBytes(StandardCharsets.UTF_8)))) {
          while (stream.next()) {
            BigIntVector v = (BigIntVector) stream.getRoot().getVector(0);
            rows += v.getValueCount();
            for (int i = 0; i < v.getValueCount(); i++) {
              sum += v.get(i);
            }
          }
        }
        assertThat(rows).isEqualTo(100);
        assertThat(sum).isEqualTo(99L * 100 / 2);
      } finally {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        grpc.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      }
      assertThat(allocator.getAllocatedMemory()).isZero();
    }
  }
}
