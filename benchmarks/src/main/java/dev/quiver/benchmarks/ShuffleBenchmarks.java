package dev.quiver.benchmarks;

import com.google.protobuf.ByteString;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.security.JobCapabilities;
import dev.quiver.distributed.shuffle.FlightShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.executor.shuffle.ShuffleFlightProducer;
import dev.quiver.executor.shuffle.ShuffleStore;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One shuffle partition (lineitem-like columns) served by an executor's Flight producer on loopback
 * and read with {@link FlightShuffleClient} into a task allocator, per compression: encode,
 * transfer and decode together.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx4g"})
public class ShuffleBenchmarks {
  private static final int BATCH = 8192;

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("orderkey", new ArrowType.Int(64, true)),
              Field.notNullable("price", new ArrowType.Decimal(15, 2, 128)),
              Field.notNullable("shipdate", new ArrowType.Date(DateUnit.DAY)),
              Field.notNullable("comment", ArrowType.Utf8.INSTANCE)));

  @Param({"none", "lz4", "zstd"})
  public String compression;

  /** Rows in the partition. */
  @Param("262144")
  public int rows;

  private BufferAllocator allocator;
  private Path workDir;
  private ShuffleStore store;
  private FlightServer server;
  private FlightShuffleClient client;
  private ExecutorService threads;
  // The server's calls: a DoGet closes its reader after completing the stream, so the store may
  // close only once they have ended.
  private ExecutorService calls;
  private ShuffleLocation location;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    allocator = new RootAllocator();
    workDir = Files.createTempDirectory("quiver-shuffle-bench");
    store = new ShuffleStore(allocator, workDir, Long.MAX_VALUE);
    ShufflePartitionId id = ShuffleTickets.id("bench", 1, 0, 0);
    // As a launched task does: the producer serves only jobs whose task ran here.
    ByteString capability = JobCapabilities.newCapability();
    store.grant("bench", capability);
    for (int from = 0; from < rows; from += BATCH) {
      int n = Math.min(BATCH, rows - from);
      try (VectorSchemaRoot b = VectorSchemaRoot.create(SCHEMA, allocator)) {
        b.allocateNew();
        for (int i = 0; i < n; i++) {
          long r = from + i;
          ((BigIntVector) b.getVector(0)).setSafe(i, r / 4);
          ((DecimalVector) b.getVector(1))
              .setSafe(i, BigDecimal.valueOf(90_000 + (r * 7919) % 10_000_000, 2));
          ((DateDayVector) b.getVector(2)).setSafe(i, 8000 + (int) (r * 31 % 2500));
          ((VarCharVector) b.getVector(3))
              .setSafe(
                  i,
                  ("carefully final deposits " + (r * 13 % 977) + " haggle")
                      .getBytes(StandardCharsets.UTF_8));
        }
        b.setRowCount(n);
        store.append(id, b);
      }
    }
    store.complete(id, SCHEMA, ShuffleCompression.parse(compression));
    calls = Executors.newCachedThreadPool();
    server =
        FlightServer.builder(
                allocator,
                Location.forGrpcInsecure("127.0.0.1", 0),
                new ShuffleFlightProducer(store, allocator, "bench", ShuffleCompression.NONE))
            .executor(calls)
            .build()
            .start();
    client = FlightShuffleClient.insecure(allocator);
    threads = Executors.newCachedThreadPool();
    location =
        new ShuffleLocation(
            "bench", 1, 0, 0, "bench", "127.0.0.1", server.getPort(), false, capability);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    client.close();
    server.close();
    calls.shutdown();
    calls.awaitTermination(10, TimeUnit.SECONDS);
    store.close();
    threads.shutdownNow();
    allocator.close();
    Files.deleteIfExists(workDir);
  }

  /** Fetches the whole partition; returns its row count. */
  @Benchmark
  public long fetchPartition() throws Exception {
    long out = 0;
    try (BufferAllocator task = allocator.newChildAllocator("task", 0, Long.MAX_VALUE)) {
      TaskContext ctx =
          new TaskContext("bench", task, new MemoryPool(1 << 20), new SessionConfig(), threads);
      try (BatchStream stream = client.open(location, SCHEMA, ctx)) {
        VectorSchemaRoot b;
        while ((b = stream.next()) != null) {
          out += b.getRowCount();
          b.close();
        }
      }
    }
    return out;
  }
}
