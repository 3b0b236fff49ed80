package dev.quiver.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.shuffle.CompressedBatches;
import dev.quiver.distributed.shuffle.FlightShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.shuffle.ShuffleFetchException;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.executor.shuffle.ShuffleFlightProducer;
import dev.quiver.executor.shuffle.ShuffleStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shuffle partitions served by {@link ShuffleFlightProducer} with each compression and read back
 * with {@link FlightShuffleClient}: every Arrow type the engine uses, spilled and in-memory
 * batches, empty partitions, corrupt messages, and no leaked bytes on either side.
 */
@Timeout(60)
class CompressedShuffleTest {
  private static final int ROWS = 3_000;

  static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.notNullable("i64", new ArrowType.Int(64, true)),
              Field.nullable("i8", new ArrowType.Int(8, true)),
              Field.nullable("i16", new ArrowType.Int(16, true)),
              Field.nullable("i32", new ArrowType.Int(32, true)),
              Field.nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
              Field.nullable("f64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              Field.nullable("dec", new ArrowType.Decimal(15, 2, 128)),
              Field.nullable("str", ArrowType.Utf8.INSTANCE),
              Field.nullable("bin", ArrowType.Binary.INSTANCE),
              Field.nullable("flag", ArrowType.Bool.INSTANCE),
              Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
              Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
              new Field(
                  "list",
                  FieldType.nullable(ArrowType.List.INSTANCE),
                  List.of(Field.nullable("item", new ArrowType.Int(32, true))))));

  @TempDir Path workDir;

  private BufferAllocator allocator;
  private ShuffleStore store;
  private ExecutorService threads;
  private final List<AutoCloseable> servers = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    allocator = new RootAllocator();
    // A small budget, so that partitions are read from spill files and from memory.
    store = new ShuffleStore(allocator, workDir, 256 * 1024);
    threads = Executors.newCachedThreadPool();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable s : servers) {
      s.close();
    }
    store.close();
    threads.shutdownNow();
    assertThat(allocator.getAllocatedMemory()).as("bytes leaked").isZero();
    allocator.close();
  }

  private int serve(NoOpFlightProducer producer) throws Exception {
    FlightServer server =
        FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), producer)
            .build()
            .start();
    servers.add(server);
    return server.getPort();
  }

  private int serve(ShuffleCompression defaultCompression) throws Exception {
    return serve(new ShuffleFlightProducer(store, allocator, "exec-test", defaultCompression));
  }

  /** Batch {@code b}: every column non-null except on rows divisible by 5. */
  static VectorSchemaRoot batch(BufferAllocator allocator, int b, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    UnionListWriter list = ((ListVector) root.getVector("list")).getWriter();
    for (int r = 0; r < rows; r++) {
      long v = b * 1_000_000L + r;
      ((BigIntVector) root.getVector("i64")).setSafe(r, v);
      list.setPosition(r);
      if (r % 5 == 0) {
        for (int c = 1; c < SCHEMA.getFields().size() - 1; c++) {
          root.getVector(c).setNull(r);
        }
        continue;
      }
      ((TinyIntVector) root.getVector("i8")).setSafe(r, (byte) v);
      ((SmallIntVector) root.getVector("i16")).setSafe(r, (short) v);
      ((IntVector) root.getVector("i32")).setSafe(r, (int) (v * 31));
      ((Float4Vector) root.getVector("f32")).setSafe(r, v / 3f);
      ((Float8Vector) root.getVector("f64")).setSafe(r, Math.sqrt(v));
      ((DecimalVector) root.getVector("dec")).setSafe(r, BigDecimal.valueOf(v * 7, 2));
      ((VarCharVector) root.getVector("str"))
          .setSafe(r, ("name-" + (v % 97)).getBytes(StandardCharsets.UTF_8));
      ((VarBinaryVector) root.getVector("bin")).setSafe(r, new byte[] {(byte) v, (byte) (v >> 8)});
      ((BitVector) root.getVector("flag")).setSafe(r, (int) (v & 1));
      ((DateDayVector) root.getVector("day")).setSafe(r, (int) (v % 20_000));
      ((TimeStampMicroVector) root.getVector("ts")).setSafe(r, v * 1_000_003L);
      list.startList();
      for (int i = 0; i < r % 4; i++) {
        list.writeInt((int) v + i);
      }
      list.endList();
    }
    root.setRowCount(rows);
    return root;
  }

  private static String expected(int batches, int rows) throws Exception {
    StringBuilder out = new StringBuilder();
    try (BufferAllocator a = new RootAllocator()) {
      for (int b = 0; b < batches; b++) {
        try (VectorSchemaRoot root = batch(a, b, rows)) {
          out.append(dump(root));
        }
      }
    }
    return out.toString();
  }

  /** One line per row; binary values by content. */
  private static String dump(VectorSchemaRoot root) {
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < root.getRowCount(); r++) {
      for (FieldVector v : root.getFieldVectors()) {
        Object o = v.getObject(r);
        out.append(o instanceof byte[] bytes ? Arrays.toString(bytes) : String.valueOf(o))
            .append('|');
      }
      out.append('\n');
    }
    return out.toString();
  }

  private void write(ShufflePartitionId id, int batches, ShuffleCompression compression) {
    for (int b = 0; b < batches; b++) {
      try (VectorSchemaRoot batch = batch(allocator, b, ROWS)) {
        store.grant(id.getJobId(), TestBatches.CAPABILITY);
        store.append(id, batch);
      }
    }
    store.grant(id.getJobId(), TestBatches.CAPABILITY);
    store.complete(id, SCHEMA, compression);
  }

  /** Reads a partition with the shuffle client into a task allocator, as a consumer task does. */
  private String fetch(int port, ShufflePartitionId id) throws Exception {
    StringBuilder out = new StringBuilder();
    try (BufferAllocator task = allocator.newChildAllocator("task", 0, Long.MAX_VALUE);
        FlightShuffleClient client = FlightShuffleClient.insecure(allocator)) {
      TaskContext ctx =
          new TaskContext("q", task, new MemoryPool(1 << 20), new SessionConfig(), threads);
      ShuffleLocation where =
          new ShuffleLocation(
                  id.getJobId(),
                  id.getStageId(),
                  id.getTaskId(),
                  id.getPartition(),
                  "exec-test",
                  "127.0.0.1",
                  port)
              .withCapability(TestBatches.CAPABILITY);
      try (BatchStream stream = client.open(where, SCHEMA, ctx)) {
        VectorSchemaRoot next;
        while ((next = stream.next()) != null) {
          try (VectorSchemaRoot b = next) {
            assertThat(b.getSchema()).isEqualTo(SCHEMA);
            out.append(dump(b));
          }
        }
      }
      assertThat(task.getAllocatedMemory()).as("task bytes after the stream").isZero();
    }
    return out.toString();
  }

  @ParameterizedTest
  @EnumSource(ShuffleCompression.class)
  void everyTypeRoundTripsFromDiskAndMemory(ShuffleCompression compression) throws Exception {
    int port = serve(ShuffleCompression.NONE);
    ShufflePartitionId id = ShuffleTickets.id("job-1", 1, 0, 0);
    write(id, 4, compression);
    try (Stream<Path> files = Files.list(store.spillDirectory())) {
      assertThat(files.count()).as("spill files").isPositive();
    }
    assertThat(fetch(port, id)).isEqualTo(expected(4, ROWS));
  }

  @ParameterizedTest
  @EnumSource(ShuffleCompression.class)
  void partitionsWithoutAChoiceUseTheExecutorDefault(ShuffleCompression executorDefault)
      throws Exception {
    int port = serve(executorDefault);
    ShufflePartitionId id = ShuffleTickets.id("job-1", 1, 0, 1);
    write(id, 2, null);
    assertThat(fetch(port, id)).isEqualTo(expected(2, ROWS));
  }

  @ParameterizedTest
  @EnumSource(ShuffleCompression.class)
  void emptyPartitionYieldsNoBatch(ShuffleCompression compression) throws Exception {
    int port = serve(ShuffleCompression.NONE);
    ShufflePartitionId id = ShuffleTickets.id("job-1", 1, 0, 2);
    store.grant(id.getJobId(), TestBatches.CAPABILITY);
    store.complete(id, SCHEMA, compression);
    assertThat(fetch(port, id)).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(
      value = ShuffleCompression.class,
      names = {"LZ4", "ZSTD"})
  void compressedBatchesTravelAsSmallerIpcMessagesInAppMetadata(ShuffleCompression compression)
      throws Exception {
    int port = serve(ShuffleCompression.NONE);
    ShufflePartitionId id = ShuffleTickets.id("job-1", 1, 0, 4);
    write(id, 2, compression);
    long plainBytes;
    try (VectorSchemaRoot one = batch(allocator, 0, ROWS);
        ArrowRecordBatch rb = new VectorUnloader(one).getRecordBatch()) {
      plainBytes = 2L * rb.computeBodyLength();
    }
    long sent = 0;
    int messages = 0;
    try (FlightClient raw =
            FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", port)).build();
        FlightStream stream = raw.getStream(ShuffleTickets.encode(id, TestBatches.CAPABILITY))) {
      while (stream.next()) {
        assertThat(stream.getRoot().getRowCount()).as("rows in the Flight body").isZero();
        assertThat(stream.getLatestMetadata()).isNotNull();
        sent += stream.getLatestMetadata().readableBytes();
        messages++;
      }
    }
    assertThat(messages).isEqualTo(2);
    assertThat(sent).as("compressed bytes").isPositive().isLessThan(plainBytes * 2 / 3);
  }

  /**
   * More data than gRPC's flow-control window: the producer must resume as soon as the consumer
   * reads (it once waited for an onReady callback that could not arrive, stalling for 120 s).
   */
  @ParameterizedTest
  @EnumSource(
      value = ShuffleCompression.class,
      names = {"NONE", "ZSTD", "AUTO"})
  @Timeout(30)
  void partitionsLargerThanTheFlowControlWindowDoNotStall(ShuffleCompression compression)
      throws Exception {
    ShuffleStore big = new ShuffleStore(allocator, workDir.resolve("big"), Long.MAX_VALUE);
    try {
      int port = serve(new ShuffleFlightProducer(big, allocator, "exec-test", compression));
      ShufflePartitionId id = ShuffleTickets.id("job-2", 1, 0, 0);
      for (int b = 0; b < 80; b++) {
        try (VectorSchemaRoot batch = TestBatches.batch(allocator, b, 4_000)) {
          big.grant(id.getJobId(), TestBatches.CAPABILITY);
          big.append(id, batch);
        }
      }
      big.grant(id.getJobId(), TestBatches.CAPABILITY);
      big.complete(id, TestBatches.SCHEMA);
      long rows = 0;
      try (BufferAllocator task = allocator.newChildAllocator("task", 0, Long.MAX_VALUE);
          FlightShuffleClient client = FlightShuffleClient.insecure(allocator)) {
        TaskContext ctx =
            new TaskContext("q", task, new MemoryPool(1 << 20), new SessionConfig(), threads);
        ShuffleLocation where =
            new ShuffleLocation("job-2", 1, 0, 0, "exec-test", "127.0.0.1", port)
                .withCapability(TestBatches.CAPABILITY);
        try (BatchStream stream = client.open(where, TestBatches.SCHEMA, ctx)) {
          VectorSchemaRoot next;
          while ((next = stream.next()) != null) {
            rows += next.getRowCount();
            next.close();
          }
        }
      }
      assertThat(rows).isEqualTo(80 * 4_000);
    } finally {
      for (AutoCloseable s : servers) {
        s.close();
      }
      servers.clear();
      big.close();
    }
  }

  /**
   * With {@code auto}, a stream whose consumer (standing for a slow link) keeps the producer
   * waiting goes on compressed, and the mixed stream reads back whole.
   */
  @Test
  @Timeout(60)
  void autoCompressesAStreamOnceTheConsumerHoldsItBack() throws Exception {
    ShuffleStore big = new ShuffleStore(allocator, workDir.resolve("auto"), Long.MAX_VALUE);
    try {
      int port =
          serve(new ShuffleFlightProducer(big, allocator, "exec-test", ShuffleCompression.AUTO));
      ShufflePartitionId id = ShuffleTickets.id("job-3", 1, 0, 0);
      big.grant(id.getJobId(), TestBatches.CAPABILITY);
      for (int b = 0; b < 240; b++) {
        try (VectorSchemaRoot batch = TestBatches.batch(allocator, b, 4_000)) {
          big.append(id, batch);
        }
      }
      big.complete(id, TestBatches.SCHEMA);
      long rows = 0;
      int plain = 0;
      int compressed = 0;
      boolean plainAfterCompressed = false;
      try (SlowLink link = new SlowLink(port, 8 << 20);
          FlightClient raw =
              FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", link.port()))
                  .build();
          FlightStream stream =
              raw.getStream(
                  ShuffleTickets.starved(ShuffleTickets.encode(id, TestBatches.CAPABILITY)))) {
        while (stream.next()) {
          if (stream.getLatestMetadata() != null && stream.getRoot().getRowCount() == 0) {
            compressed++;
            try (VectorSchemaRoot decoded =
                CompressedBatches.decode(
                    stream.getLatestMetadata(), TestBatches.SCHEMA, allocator)) {
              rows += decoded.getRowCount();
            }
          } else {
            plainAfterCompressed |= compressed > 0;
            plain++;
            rows += stream.getRoot().getRowCount();
          }
        }
      }
      assertThat(rows).isEqualTo(240 * 4_000);
      assertThat(plain).as("plain until judged").isPositive();
      assertThat(compressed).as("compressed once held back").isPositive();
      assertThat(plainAfterCompressed).as("a stream never goes back to plain").isFalse();
    } finally {
      for (AutoCloseable s : servers) {
        s.close();
      }
      servers.clear();
      big.close();
    }
  }

  @Test
  void garbageInAppMetadataIsAShuffleFetchError() throws Exception {
    int port =
        serve(
            new NoOpFlightProducer() {
              @Override
              public void getStream(
                  CallContext context, Ticket ticket, ServerStreamListener listener) {
                try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
                  listener.start(root);
                  ArrowBuf garbage = allocator.buffer(16);
                  garbage.setBytes(0, "not an IPC msg!!".getBytes(StandardCharsets.UTF_8));
                  garbage.writerIndex(16);
                  listener.putMetadata(garbage);
                  listener.completed();
                }
              }
            });
    assertThatThrownBy(() -> fetch(port, ShuffleTickets.id("job-1", 1, 0, 3)))
        .isInstanceOf(ShuffleFetchException.class)
        .hasMessageContaining("job job-1 stage 1 task 0 partition 3")
        .hasMessageContaining("IPC");
  }

  @Test
  void settingValuesParseAndBadOnesAreNamed() {
    assertThat(ShuffleCompression.parse(" ZSTD ")).isEqualTo(ShuffleCompression.ZSTD);
    assertThat(ShuffleCompression.of(new SessionConfig())).isEmpty();
    assertThat(ShuffleCompression.of(new SessionConfig().set(ShuffleCompression.SETTING, "none")))
        .contains(ShuffleCompression.NONE);
    assertThatThrownBy(() -> ShuffleCompression.parse("gzip"))
        .hasMessageContaining(ShuffleCompression.SETTING)
        .hasMessageContaining("none, lz4, zstd or auto")
        .hasMessageContaining("gzip");
  }

  /** A TCP relay on 127.0.0.1 passing at most {@code bytesPerSecond} from the server to clients. */
  private static final class SlowLink implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Thread acceptor;

    SlowLink(int targetPort, long bytesPerSecond) throws IOException {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    Socket client = listener.accept();
                    Socket server = new Socket();
                    // Little buffering on the relay's side, so that the link, not buffers,
                    // sets the pace after the first few MiB.
                    server.setReceiveBufferSize(32 * 1024);
                    server.connect(
                        new java.net.InetSocketAddress(
                            InetAddress.getLoopbackAddress(), targetPort));
                    sockets.add(client);
                    sockets.add(server);
                    pump(client, server, Long.MAX_VALUE);
                    pump(server, client, bytesPerSecond);
                  }
                } catch (IOException closed) {
                  // The relay was closed.
                }
              },
              "slow-link");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return listener.getLocalPort();
    }

    private static void pump(Socket from, Socket to, long bytesPerSecond) {
      Thread t =
          new Thread(
              () -> {
                byte[] buffer = new byte[16 * 1024];
                long start = System.nanoTime();
                long moved = 0;
                try (InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream()) {
                  int n;
                  while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    moved += n;
                    long due = start + moved * 1_000_000_000L / bytesPerSecond;
                    long ahead = due - System.nanoTime();
                    if (ahead > 0) {
                      Thread.sleep(ahead / 1_000_000L, (int) (ahead % 1_000_000L));
                    }
                  }
                } catch (IOException | InterruptedException e) {
                  // A side closed.
                }
              },
              "slow-link-pump");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      listener.close();
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}
