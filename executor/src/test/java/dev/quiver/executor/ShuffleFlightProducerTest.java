package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.executor.shuffle.ShuffleFlightProducer;
import dev.quiver.executor.shuffle.ShuffleStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Plain (uncompressed) shuffle streams read with a raw Flight client. */
@Timeout(60)
class ShuffleFlightProducerTest {

  private static final int ROWS = 2_000;

  @TempDir Path workDir;

  private BufferAllocator allocator;
  private ShuffleStore store;
  private FlightServer server;
  private FlightClient client;

  @BeforeEach
  void start() throws Exception {
    allocator = new RootAllocator();
    // A small budget, so most of what the tests write is spilled to disk.
    store = new ShuffleStore(allocator, workDir, 96 * 1024);
    server =
        FlightServer.builder(
                allocator,
                Location.forGrpcInsecure("127.0.0.1", 0),
                new ShuffleFlightProducer(store, allocator, "exec-test", ShuffleCompression.NONE))
            .build()
            .start();
    client =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.getPort()))
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    server.close();
    store.close();
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  private void write(ShufflePartitionId id, int batches) {
    for (int b = 0; b < batches; b++) {
      try (VectorSchemaRoot batch = TestBatches.batch(allocator, b, ROWS)) {
        store.grant(id.getJobId(), TestBatches.CAPABILITY);
        store.append(id, batch);
      }
    }
    store.grant(id.getJobId(), TestBatches.CAPABILITY);
    store.complete(id, TestBatches.SCHEMA);
  }

  private List<String> fetch(ShufflePartitionId id) throws Exception {
    List<String> rows = new ArrayList<>();
    try (FlightStream stream =
        client.getStream(ShuffleTickets.encode(id, TestBatches.CAPABILITY))) {
      assertThat(stream.getSchema()).isEqualTo(TestBatches.SCHEMA);
      while (stream.next()) {
        TestBatches.dump(stream.getRoot(), rows);
      }
    }
    return rows;
  }

  @Test
  void severalBatchesRoundTripThroughFlightWithASpill() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("job-1", 3, 2, 1);
    // Each batch is ~60 KB: every second one pushes the store over budget and spills both, so
    // the seventh stays in memory and the stream reads from disk and memory.
    write(id, 7);
    try (Stream<Path> files = Files.list(store.spillDirectory())) {
      assertThat(files.count()).as("spill files").isPositive();
    }
    assertThat(store.memoryBytes()).as("batches still in memory").isPositive();

    assertThat(fetch(id)).isEqualTo(TestBatches.expected(7, ROWS));
  }

  @Test
  void concurrentConsumersEachGetTheWholePartition() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("job-1", 1, 0, 0);
    write(id, 5);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<List<String>>> reads = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        reads.add(pool.submit(() -> fetch(id)));
      }
      for (Future<List<String>> read : reads) {
        assertThat(read.get()).isEqualTo(TestBatches.expected(5, ROWS));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void emptyPartitionStreamsTheSchemaAndNoRows() throws Exception {
    ShufflePartitionId id = ShuffleTickets.id("job-1", 1, 0, 7);
    store.grant(id.getJobId(), TestBatches.CAPABILITY);
    store.complete(id, TestBatches.SCHEMA);
    assertThat(fetch(id)).isEmpty();
  }

  @Test
  void unknownTicketIsNotFoundNamingIt() {
    write(ShuffleTickets.id("job-1", 1, 0, 0), 1);
    ShufflePartitionId unknown = ShuffleTickets.id("job-1", 1, 0, 9);
    assertThatThrownBy(() -> fetch(unknown))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND);
              assertThat(e.getMessage())
                  .contains("job job-1 stage 1 task 0 partition 9")
                  .contains("exec-test");
            });
  }

  @Test
  void partitionStillBeingWrittenIsUnavailable() {
    ShufflePartitionId id = ShuffleTickets.id("job-1", 1, 0, 0);
    try (VectorSchemaRoot batch = TestBatches.batch(allocator, 0, 10)) {
      store.grant(id.getJobId(), TestBatches.CAPABILITY);
      store.append(id, batch);
    }
    assertThatThrownBy(() -> fetch(id))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE);
              assertThat(e.getMessage()).contains("still being written");
            });
  }

  @Test
  void ticketThatIsNotAPartitionIdIsInvalidArgument() {
    Ticket garbage = new Ticket("SELECT 1".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(
            () -> {
              try (FlightStream stream = client.getStream(garbage)) {
                stream.next();
              }
            })
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT));
  }
}
