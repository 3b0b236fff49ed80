package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.datasource.CsvTable;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QueryTooComplexException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.errors.StatementTooLargeException;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownFunctionException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.operator.ValuesExec;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.DistributedModule;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.codec.StagePlan;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.CancelJobRequest;
import dev.quiver.distributed.proto.ExecutorControlGrpc;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusRequest;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.ListExecutorsRequest;
import dev.quiver.distributed.proto.PartitioningKindSpec;
import dev.quiver.distributed.proto.PartitioningSpec;
import dev.quiver.distributed.proto.PhysicalPlanNode;
import dev.quiver.distributed.proto.RegisterRequest;
import dev.quiver.distributed.proto.ReleaseJobRequest;
import dev.quiver.distributed.proto.SchedulerGrpc;
import dev.quiver.distributed.proto.StagePlanNode;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.SubmitJobRequest;
import dev.quiver.distributed.proto.SubmitJobResponse;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.distributed.wire.WireProtocol;
import dev.quiver.examples.tpch.TpchData;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Bad input never crashes a server: malformed SQL, broken files and garbage on every RPC each get a
 * typed error or a gRPC status that names the problem, and a good query on the same servers (a
 * scheduler and 2 executor processes) still returns the right rows afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BadInputTest {
  private static final String SCHEDULER = "quiver.v1.Scheduler/";
  private static final String EXECUTOR = "quiver.v1.ExecutorControl/";
  private static final String GOOD_SQL =
      "SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q FROM lineitem"
          + " GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus";

  /** Request bodies that are not valid protobuf for any message. */
  private static final List<byte[]> GARBAGE =
      List.of(
          // Field 1, length-delimited, claims 16 bytes but has 1: truncated.
          new byte[] {0x0A, 0x10, 0x41},
          // Field 1, varint, never terminated: malformed varint.
          new byte[] {
            0x08,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF,
            (byte) 0xFF
          },
          // Tag 0 is never valid.
          new byte[] {0x00, 0x01, 0x02},
          // An end-group tag with no start group.
          new byte[] {0x0C});

  private Path tpch;
  private Path dir;
  private ProcessCluster cluster;
  private Injector injector;
  private SessionContext ctx;
  private String expected;
  private ManagedChannel schedulerChannel;
  private final List<ManagedChannel> executorChannels = new ArrayList<>();
  private final List<ExecutorInfo> executors = new ArrayList<>();
  private BufferAllocator allocator;

  @BeforeAll
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void start() throws Exception {
    tpch = TpchFixture.data(0.01);
    dir = Files.createTempDirectory("quiver-bad-input");
    allocator = new RootAllocator();
    try (SessionContext local = new SessionContext()) {
      registerTpch(local);
      expected = QuiverRowsText.allColumns(local.sql(GOOD_SQL));
    }
    assertThat(expected).isNotBlank();
    cluster = ProcessCluster.start(Files.createDirectories(dir.resolve("cluster")), 2, 2, null);
    injector =
        Guice.createInjector(
            new DistributedModule(
                ClusterConfig.remote(cluster.target()),
                new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, "64k")));
    injector.getInstance(ClusterLifecycle.class).start();
    ctx = injector.getInstance(SessionContext.class);
    registerTpch(ctx);
    schedulerChannel = channel(cluster.target());
    for (ExecutorStatus s :
        SchedulerGrpc.newBlockingStub(schedulerChannel)
            .listExecutors(ListExecutorsRequest.getDefaultInstance())
            .getExecutorsList()) {
      executors.add(s.getInfo());
      executorChannels.add(channel(s.getInfo().getHost() + ":" + s.getInfo().getFlightPort()));
    }
    assertThat(executors).hasSize(2);
    // Warm the servers up so the first case's time is its own.
    assertThat(QuiverRowsText.allColumns(ctx.sql(GOOD_SQL))).isEqualTo(expected);
  }

  @AfterAll
  void stop() throws Exception {
    if (ctx != null) {
      ctx.close();
    }
    if (injector != null) {
      injector.getInstance(ClusterLifecycle.class).close();
    }
    for (ManagedChannel c : executorChannels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (schedulerChannel != null) {
      schedulerChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (cluster != null) {
      cluster.close();
    }
    if (allocator != null) {
      assertThat(allocator.getAllocatedMemory()).isZero();
      allocator.close();
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** After every case: the same servers still run a good query and give the right rows. */
  @AfterEach
  void goodQueryStillWorks() {
    for (Process p : cluster.executors()) {
      assertThat(p.isAlive()).as("executor process alive").isTrue();
    }
    assertThat(QuiverRowsText.allColumns(ctx.sql(GOOD_SQL))).isEqualTo(expected);
    long alive =
        SchedulerGrpc.newBlockingStub(schedulerChannel)
            .listExecutors(ListExecutorsRequest.getDefaultInstance())
            .getExecutorsList()
            .stream()
            .filter(e -> e.getState() == ExecutorState.EXECUTOR_STATE_ALIVE)
            .count();
    assertThat(alive).isEqualTo(2);
  }

  private void registerTpch(SessionContext session) {
    for (String table : List.of("lineitem", "orders", "nation")) {
      session.registerParquet(table, TpchData.tableDirectory(tpch, table).toString());
    }
  }

  private static ManagedChannel channel(String target) {
    return NettyChannelBuilder.forTarget(target).usePlaintext().build();
  }

  // ------------------------------------------------------------------------------------------
  // SQL
  // ------------------------------------------------------------------------------------------

  @Test
  void malformedSqlNamesLineAndColumn() {
    Throwable e = catchThrowable(() -> ctx.sql("SELECT l_quantity\nFROM lineitem\nWHERE AND 1"));
    assertThat(e).isInstanceOf(SqlParseException.class).hasMessageContaining("line 3");
    assertThat(((SqlParseException) e).line()).isEqualTo(3);
    assertThat(((SqlParseException) e).column()).isEqualTo(7);
  }

  /**
   * Deep nesting is a typed error, not a StackOverflowError from Calcite that kills the client (a
   * 1,000-term + chain, a 5,000-term OR) nor a misleading syntax error at line 1, column 1 (5,000
   * nested parentheses); a 250-term OR, rebalanced, plans and gives the right count.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void deeplyNestedSqlIsATypedErrorAndLongOrChainsPlan() {
    String plus = "SELECT " + "l_quantity + ".repeat(999) + "1 AS s FROM lineitem";
    assertThatThrownBy(() -> ctx.sql(plus).collect())
        .isInstanceOf(QueryTooComplexException.class)
        .hasMessageContaining("Query too deeply nested")
        .hasMessageContaining("at most 200 levels");
    String parens = "SELECT " + "(".repeat(5000) + "1" + ")".repeat(5000) + " AS one FROM nation";
    assertThatThrownBy(() -> ctx.sql(parens).collect())
        .isInstanceOf(QueryTooComplexException.class)
        .hasMessageContaining("parentheses nest more than 200 levels deep at line 1, column 208");
    assertThatThrownBy(() -> ctx.sql(orChain(5000)).collect())
        .isInstanceOf(QueryTooComplexException.class)
        .hasMessageContaining("Query too large: 5000 terms in one OR chain at line 1")
        .hasMessageContaining("at most 512 terms");
    String same = "SELECT count(*) AS n FROM lineitem WHERE l_orderkey < 250";
    assertThat(QuiverRowsText.allColumns(ctx.sql(orChain(250))))
        .isEqualTo(QuiverRowsText.allColumns(ctx.sql(same)));
  }

  private static String orChain(int terms) {
    StringBuilder or = new StringBuilder("SELECT count(*) AS n FROM lineitem WHERE l_orderkey = 0");
    for (int i = 1; i < terms; i++) {
      or.append(" OR l_orderkey = ").append(i);
    }
    return or.toString();
  }

  /**
   * A 10 MB OR chain (it planned for over 240 s: Calcite's parser is quadratic in the operators of
   * an expression) is refused before parsing, saying why and what to write instead.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void tenMegabytesOfOrIsRefusedQuickly() {
    StringBuilder sql =
        new StringBuilder("SELECT count(*) AS n FROM lineitem WHERE l_orderkey = 0");
    for (int i = 1; sql.length() < 10 << 20; i++) {
      sql.append(" OR l_orderkey = ").append(i);
    }
    // Past the statement size limit (4 MB by default) the text is refused before parsing; with a
    // larger limit the planner's bound on operators refuses it.
    assertThatThrownBy(() -> ctx.sql(sql.toString()))
        .isInstanceOf(StatementTooLargeException.class)
        .hasMessageContaining("quiver.sql.max_statement_bytes");
    ctx.sql("SET quiver.sql.max_statement_bytes = '16MB'").rows();
    long start = System.nanoTime();
    try {
      assertThatThrownBy(() -> ctx.sql(sql.toString()).collect())
          .isInstanceOf(QueryTooComplexException.class)
          .hasMessageContaining("Query too large")
          .hasMessageContaining("more than 20000 operators")
          .hasMessageContaining("IN (...)");
    } finally {
      ctx.sql("SET quiver.sql.max_statement_bytes = '4MB'").rows();
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.println("10 MB OR chain refused after " + millis + " ms");
    assertThat(millis).isLessThan(10_000);
  }

  @Test
  void unknownTableNamesTheClosest() {
    assertThatThrownBy(() -> ctx.sql("SELECT count(*) FROM lineitems").collect())
        .isInstanceOf(UnknownTableException.class)
        .hasMessageContaining("lineitems")
        .hasMessageContaining("lineitem'");
  }

  @Test
  void unknownColumnNamesTheClosest() {
    assertThatThrownBy(() -> ctx.sql("SELECT sum(l_quantiti) FROM lineitem").collect())
        .isInstanceOf(UnknownColumnException.class)
        .hasMessageContaining("l_quantiti")
        .hasMessageContaining("l_quantity");
  }

  @Test
  void unknownFunctionNamesTheClosest() {
    assertThatThrownBy(() -> ctx.sql("SELECT summ(l_quantity) FROM lineitem").collect())
        .isInstanceOf(UnknownFunctionException.class)
        .hasMessageContaining("summ")
        .hasMessageContaining("sum");
  }

  @Test
  void typeErrorIsTyped() {
    assertThatThrownBy(() -> ctx.sql("SELECT count(*) FROM lineitem WHERE l_shipdate = true"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("DATE");
  }

  @Test
  void badCastOnTheExecutorsIsATypeErrorNamingTheValue() {
    // Calcite coerces the strings to DECIMAL; the executors find they are not numbers.
    assertThatThrownBy(() -> ctx.sql("SELECT sum(l_comment) FROM lineitem").collect())
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("Cannot cast string")
        .hasMessageContaining("DECIMAL");
  }

  @Test
  void divisionByZeroOnTheExecutorsFailsTheQuery() {
    assertThatThrownBy(
            () ->
                ctx.sql(
                        "SELECT l_returnflag, sum(l_linenumber / (l_linenumber - l_linenumber))"
                            + " FROM lineitem GROUP BY l_returnflag")
                    .collect())
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("Division by zero");
  }

  // ------------------------------------------------------------------------------------------
  // Files
  // ------------------------------------------------------------------------------------------

  private Path lineitemFile() throws IOException {
    try (Stream<Path> files = Files.list(TpchData.tableDirectory(tpch, "lineitem"))) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".parquet"))
          .sorted()
          .findFirst()
          .orElseThrow();
    }
  }

  /** A copy of a lineitem file whose column data is garbage but whose footer is intact. */
  private Path corruptPages(Path target) throws IOException {
    byte[] bytes = Files.readAllBytes(lineitemFile());
    int footer =
        (bytes[bytes.length - 8] & 0xff)
            | (bytes[bytes.length - 7] & 0xff) << 8
            | (bytes[bytes.length - 6] & 0xff) << 16
            | (bytes[bytes.length - 5] & 0xff) << 24;
    byte[] noise = new byte[bytes.length - 8 - footer - 4];
    new Random(42).nextBytes(noise);
    System.arraycopy(noise, 0, bytes, 4, noise.length);
    Files.createDirectories(target.getParent());
    return Files.write(target, bytes);
  }

  @Test
  void missingParquetPathIsNamed() {
    String path = dir.resolve("no-such-folder").toString();
    assertThatThrownBy(() -> ctx.registerParquet("missing", path))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(path);
  }

  @Test
  void parquetFileDeletedAfterRegistrationFailsOnTheExecutor() throws IOException {
    Path copy =
        Files.copy(
            lineitemFile(), Files.createDirectories(dir.resolve("gone")).resolve("part-0.parquet"));
    ctx.registerParquet("gone", copy.toString());
    Files.delete(copy);
    assertThatThrownBy(() -> ctx.sql("SELECT count(*) FROM gone GROUP BY l_returnflag").collect())
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(copy.toString());
    ctx.deregisterTable("gone");
  }

  @Test
  void truncatedParquetFileIsNamed() throws IOException {
    byte[] bytes = Files.readAllBytes(lineitemFile());
    Path file = dir.resolve("truncated.parquet");
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertThatThrownBy(() -> ctx.registerParquet("truncated", file.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void garbageParquetFileIsNamed() throws IOException {
    byte[] noise = new byte[10_000];
    new Random(7).nextBytes(noise);
    Path file = Files.write(dir.resolve("garbage.parquet"), noise);
    assertThatThrownBy(() -> ctx.registerParquet("garbage", file.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void parquetWithCorruptPagesFailsOnTheExecutorNamingTheFile() throws IOException {
    Path file = corruptPages(dir.resolve("corrupt-pages").resolve("part-0.parquet"));
    ctx.registerParquet("corrupt", file.getParent().toString());
    try {
      assertThatThrownBy(
              () ->
                  ctx.sql("SELECT l_returnflag, sum(l_quantity) FROM corrupt GROUP BY 1").collect())
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(file.toString());
    } finally {
      ctx.deregisterTable("corrupt");
    }
  }

  @Test
  void folderMixingGoodAndGarbageParquetNamesTheBadFile() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("mixed-garbage"));
    Files.copy(lineitemFile(), folder.resolve("a.parquet"));
    Path bad =
        Files.write(folder.resolve("b.parquet"), "not parquet".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> ctx.registerParquet("mixed", folder.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(bad.toString());
  }

  @Test
  void folderMixingGoodAndCorruptParquetFailsNamingTheBadFile() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("mixed-corrupt"));
    Files.copy(lineitemFile(), folder.resolve("a.parquet"));
    Path bad = corruptPages(folder.resolve("b.parquet"));
    ctx.registerParquet("mixed2", folder.toString());
    try {
      assertThatThrownBy(
              () -> ctx.sql("SELECT sum(l_quantity) FROM mixed2 GROUP BY l_returnflag").collect())
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(bad.toString());
    } finally {
      ctx.deregisterTable("mixed2");
    }
  }

  private static final Schema AB =
      new Schema(
          List.of(
              new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null),
              new Field("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  @Test
  void csvRowWithTheWrongFieldCountIsNamedWhenInferringTheSchema() throws IOException {
    Path file = Files.writeString(dir.resolve("infer-fields.csv"), "a,b\n1,x\n2,y\n3\n4,z\n");
    assertThatThrownBy(() -> ctx.registerCsv("fields", file.toString()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("line 4");
  }

  @Test
  void csvRowWithTheWrongFieldCountNamesFileAndLine() throws IOException {
    Path file = Files.writeString(dir.resolve("fields.csv"), "a,b\n1,x\n2,y\n3\n4,z\n");
    ctx.registerTable("fields", CsvTable.open(file.toString(), AB, CsvOptions.DEFAULT));
    try {
      assertThatThrownBy(() -> ctx.sql("SELECT b, count(*) FROM fields GROUP BY b").collect())
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("line 4")
          .hasMessageContaining("expected 2 fields but found 1");
    } finally {
      ctx.deregisterTable("fields");
    }
  }

  @Test
  void csvFieldOfTheWrongTypeNamesFileLineAndColumn() throws IOException {
    Path file = Files.writeString(dir.resolve("typed.csv"), "a,b\n1,x\n2,y\nthree,z\n");
    ctx.registerTable("typed", CsvTable.open(file.toString(), AB, CsvOptions.DEFAULT));
    try {
      assertThatThrownBy(() -> ctx.sql("SELECT b, sum(a) FROM typed GROUP BY b").collect())
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("line 4")
          .hasMessageContaining("'three'");
    } finally {
      ctx.deregisterTable("typed");
    }
  }

  @Test
  void csvFieldContradictingTheInferredTypeNamesIt() throws IOException {
    StringBuilder csv = new StringBuilder("a,b\n");
    for (int i = 0; i < 1_500; i++) {
      csv.append(i).append(",x\n");
    }
    csv.append("oops,y\n");
    Path file = Files.writeString(dir.resolve("inferred.csv"), csv);
    ctx.registerCsv("inferred", file.toString());
    try {
      assertThatThrownBy(() -> ctx.sql("SELECT b, sum(a) FROM inferred GROUP BY b").collect())
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("'oops'");
    } finally {
      ctx.deregisterTable("inferred");
    }
  }

  @Test
  void csvFolderMixingGoodAndBadFilesNamesTheBadFile() throws IOException {
    Path folder = Files.createDirectories(dir.resolve("csv-mixed"));
    Files.writeString(folder.resolve("a.csv"), "a,b\n1,x\n2,y\n");
    Path bad = Files.writeString(folder.resolve("b.csv"), "a,b\n3,z\n4,w,extra\n");
    ctx.registerTable("csvmixed", CsvTable.open(folder.toString(), AB, CsvOptions.DEFAULT));
    try {
      assertThatThrownBy(() -> ctx.sql("SELECT b, count(*) FROM csvmixed GROUP BY b").collect())
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(bad.toString())
          .hasMessageContaining("line 3");
    } finally {
      ctx.deregisterTable("csvmixed");
    }
  }

  // ------------------------------------------------------------------------------------------
  // Garbage on every RPC
  // ------------------------------------------------------------------------------------------

  /** Every garbage body sent to {@code method} ends in INVALID_ARGUMENT naming the method. */
  private static void garbageIsRefused(ManagedChannel channel, String method, boolean streaming) {
    for (byte[] garbage : GARBAGE) {
      Status status = statusOf(channel, method, streaming, garbage);
      assertThat(status.getCode())
          .as(method + ": " + status)
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(status.getDescription())
          .contains("the request to " + method + " is not a valid ")
          .contains(" message: ");
    }
  }

  private static Status statusOf(
      ManagedChannel channel, String method, boolean streaming, byte[] request) {
    Throwable e = catchThrowable(() -> RawGrpc.call(channel, method, streaming, request));
    assertThat(e).as(method).isInstanceOf(StatusRuntimeException.class);
    return ((StatusRuntimeException) e).getStatus();
  }

  @Test
  void garbageToRegister() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "Register", false);
  }

  @Test
  void garbageToHeartbeat() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "Heartbeat", false);
  }

  @Test
  void garbageToListExecutors() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "ListExecutors", false);
  }

  @Test
  void garbageToSubmitJob() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "SubmitJob", false);
  }

  @Test
  void garbageToJobStatus() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "JobStatus", true);
  }

  @Test
  void garbageToCancelJob() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "CancelJob", false);
  }

  @Test
  void garbageToReportTaskStatus() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "ReportTaskStatus", false);
  }

  @Test
  void garbageToReleaseJob() {
    garbageIsRefused(schedulerChannel, SCHEDULER + "ReleaseJob", false);
  }

  @Test
  void garbageToLaunchTask() {
    for (ManagedChannel c : executorChannels) {
      garbageIsRefused(c, EXECUTOR + "LaunchTask", false);
    }
  }

  @Test
  void garbageToCancelTasks() {
    for (ManagedChannel c : executorChannels) {
      garbageIsRefused(c, EXECUTOR + "CancelTasks", false);
    }
  }

  @Test
  void garbageToRemoveJobData() {
    for (ManagedChannel c : executorChannels) {
      garbageIsRefused(c, EXECUTOR + "RemoveJobData", false);
    }
  }

  /**
   * Arrow Flight registers its own service, so its request parsing cannot be wrapped: grpc-java
   * answers a request that is not a Ticket with UNKNOWN. The executor must survive it.
   */
  @Test
  void garbageToFlightDoGet() {
    String method = "arrow.flight.protocol.FlightService/DoGet";
    for (ManagedChannel c : executorChannels) {
      for (byte[] garbage : GARBAGE) {
        Status status = statusOf(c, method, true, garbage);
        assertThat(status.getCode())
            .as(method + ": " + status)
            .isIn(Status.Code.UNKNOWN, Status.Code.INTERNAL, Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription()).isNotBlank();
      }
    }
  }

  @Test
  void garbageFlightTicketIsInvalidArgument() throws Exception {
    for (ExecutorInfo info : executors) {
      try (FlightClient client =
          FlightClient.builder(
                  allocator, Location.forGrpcInsecure(info.getHost(), info.getFlightPort()))
              .build()) {
        for (byte[] garbage : GARBAGE) {
          Throwable e =
              catchThrowable(
                  () -> {
                    try (FlightStream s = client.getStream(new Ticket(garbage))) {
                      while (s.next()) {
                        // drain
                      }
                    }
                  });
          assertThat(e).isInstanceOf(FlightRuntimeException.class);
          CallStatus status = ((FlightRuntimeException) e).status();
          assertThat(status.code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
          assertThat(status.description()).contains("not a Quiver shuffle ticket");
        }
      }
    }
  }

  /**
   * Two requests at once to every server, each with a 50 MB header and no token (an executor once
   * spent ~105 s of two cores decoding them and was declared lost twice): every server refuses them
   * at once, as soon as the header list passes its bound, and the cluster stays usable.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void hugeHeaderListsAreRefusedAtOnceByEveryServer() throws Exception {
    List<String[]> targets = new ArrayList<>();
    String[] scheduler = cluster.target().split(":");
    targets.add(new String[] {scheduler[0], scheduler[1], "/" + SCHEDULER + "ListExecutors"});
    for (ExecutorInfo info : executors) {
      String port = Integer.toString(info.getFlightPort());
      targets.add(
          new String[] {info.getHost(), port, "/arrow.flight.protocol.FlightService/DoGet"});
      targets.add(new String[] {info.getHost(), port, "/" + EXECUTOR + "LaunchTask"});
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newCachedThreadPool();
    try {
      List<java.util.concurrent.Future<RawHttp2.Outcome>> calls = new ArrayList<>();
      for (String[] t : targets) {
        for (int i = 0; i < 2; i++) {
          calls.add(
              pool.submit(
                  () ->
                      RawHttp2.requestWithHugeHeader(
                          t[0], Integer.parseInt(t[1]), t[2], 50 << 20, 60_000)));
        }
      }
      for (int i = 0; i < calls.size(); i++) {
        RawHttp2.Outcome outcome = calls.get(i).get(90, TimeUnit.SECONDS);
        String[] t = targets.get(i / 2);
        System.out.println("50 MB header to " + t[2] + " on port " + t[1] + ": " + outcome);
        assertThat(outcome.how()).as(t[2] + " on port " + t[1]).isNotEqualTo("no answer");
        // Generous for a loaded machine; unbounded header lists took ~50 s per request.
        assertThat(outcome.millis())
            .as(t[2] + " on port " + t[1] + ": " + outcome)
            .isLessThan(10_000);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ------------------------------------------------------------------------------------------
  // Bad jobs and handshakes
  // ------------------------------------------------------------------------------------------

  private SchedulerGrpc.SchedulerBlockingStub scheduler() {
    return SchedulerGrpc.newBlockingStub(schedulerChannel).withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  private static JobSpec oneStageJob(ByteString plan) {
    return JobSpec.newBuilder()
        .setName("bad input")
        .addStages(
            StageSpec.newBuilder()
                .setStageId(1)
                .setTaskCount(1)
                .setOutputPartitions(1)
                .setPlan(plan))
        .setFinalStageId(1)
        .build();
  }

  /** Submits a job and follows its status to the end. */
  private JobStatusUpdate runToEnd(JobSpec job) {
    SubmitJobResponse submitted =
        scheduler()
            .submitJob(
                SubmitJobRequest.newBuilder()
                    .setProtocolVersion(WireProtocol.VERSION)
                    .setJob(job)
                    .build());
    String id = submitted.getJobId();
    JobStatusUpdate last = null;
    Iterator<JobStatusUpdate> updates =
        scheduler()
            .jobStatus(
                JobStatusRequest.newBuilder()
                    .setJobId(id)
                    .setJobCapability(submitted.getJobCapability())
                    .build());
    while (updates.hasNext()) {
      last = updates.next();
    }
    scheduler()
        .releaseJob(
            ReleaseJobRequest.newBuilder()
                .setJobId(id)
                .setJobCapability(submitted.getJobCapability())
                .build());
    return last;
  }

  @Test
  void jobWithGarbagePlanBytesFailsWithAPlanError() {
    JobStatusUpdate end =
        runToEnd(oneStageJob(ByteString.copyFrom(new byte[] {0x0A, 0x10, 0x41, 0x42})));
    assertThat(end.getState()).isEqualTo(JobState.JOB_STATE_FAILED);
    assertThat(end.getErrorInfo().getKind()).isEqualTo(PlanCodecException.class.getSimpleName());
    assertThat(end.getErrorInfo().getMessage()).contains("not a Quiver stage plan");
  }

  @Test
  void jobWithAnUnknownPlanNodeKindFailsNamingIt() {
    PhysicalPlanNode unknown =
        PhysicalPlanNode.newBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
                    .build())
            .build();
    StagePlanNode plan =
        StagePlanNode.newBuilder()
            .setRoot(unknown)
            .setOutput(
                PartitioningSpec.newBuilder()
                    .setKind(PartitioningKindSpec.PARTITIONING_KIND_SINGLE)
                    .setPartitionCount(1))
            .build();
    JobStatusUpdate end = runToEnd(oneStageJob(plan.toByteString()));
    assertThat(end.getState()).isEqualTo(JobState.JOB_STATE_FAILED);
    assertThat(end.getErrorInfo().getKind()).isEqualTo(PlanCodecException.class.getSimpleName());
    assertThat(end.getErrorInfo().getMessage()).contains("unknown plan node").contains("99");
  }

  @Test
  void oversizedMessagesAreResourceExhausted() {
    byte[] huge = new byte[WireProtocol.MAX_MESSAGE_BYTES + 1024];
    // A valid SubmitJobRequest prefix is irrelevant: the size is checked before parsing.
    List<ManagedChannel> targets = new ArrayList<>(executorChannels);
    targets.add(0, schedulerChannel);
    List<String> methods =
        List.of(SCHEDULER + "SubmitJob", EXECUTOR + "LaunchTask", EXECUTOR + "LaunchTask");
    for (int i = 0; i < targets.size(); i++) {
      String method = methods.get(i);
      ManagedChannel c = targets.get(i);
      Throwable e = catchThrowable(() -> RawGrpc.call(c, method, false, huge));
      assertThat(e).as(method).isInstanceOf(StatusRuntimeException.class);
      Status status = ((StatusRuntimeException) e).getStatus();
      assertThat(status.getCode())
          .as(method + ": " + status)
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(status.getDescription()).as(method).isNotBlank();
    }
  }

  @Test
  void clientWithAnotherProtocolVersionIsRefusedNamingBoth() {
    Throwable e =
        catchThrowable(
            () ->
                scheduler()
                    .submitJob(
                        SubmitJobRequest.newBuilder()
                            .setProtocolVersion(WireProtocol.VERSION + 41)
                            .setJob(oneStageJob(ByteString.copyFromUtf8("x")))
                            .build()));
    assertVersionRefused(e);
  }

  @Test
  void executorWithAnotherProtocolVersionIsRefusedNamingBoth() {
    Throwable e =
        catchThrowable(
            () ->
                scheduler()
                    .register(
                        RegisterRequest.newBuilder()
                            .setProtocolVersion(WireProtocol.VERSION + 41)
                            .setExecutor(
                                ExecutorInfo.newBuilder()
                                    .setExecutorId("from-the-future")
                                    .setHost("127.0.0.1")
                                    .setFlightPort(1)
                                    .setCores(1))
                            .build()));
    assertVersionRefused(e);
    assertThat(e).hasMessageContaining("from-the-future");
  }

  private static void assertVersionRefused(Throwable e) {
    assertThat(e).isInstanceOf(StatusRuntimeException.class);
    Status status = ((StatusRuntimeException) e).getStatus();
    assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(status.getDescription())
        .contains("protocol version " + (WireProtocol.VERSION + 41))
        .contains("protocol version " + WireProtocol.VERSION);
  }

  @Test
  void unknownJobIdIsNotFoundEverywhere() {
    String id = "job-never-submitted";
    List<Throwable> errors =
        List.of(
            catchThrowable(
                () ->
                    scheduler()
                        .jobStatus(JobStatusRequest.newBuilder().setJobId(id).build())
                        .hasNext()),
            catchThrowable(
                () -> scheduler().cancelJob(CancelJobRequest.newBuilder().setJobId(id).build())),
            catchThrowable(
                () -> scheduler().releaseJob(ReleaseJobRequest.newBuilder().setJobId(id).build())));
    for (Throwable e : errors) {
      assertThat(e).isInstanceOf(StatusRuntimeException.class);
      Status status = ((StatusRuntimeException) e).getStatus();
      assertThat(status.getCode()).isEqualTo(Status.Code.NOT_FOUND);
      assertThat(status.getDescription()).contains(id);
    }
  }

  /**
   * A rogue client launches a task of a job the scheduler never saw: the executor runs it (it
   * cannot tell), but the scheduler, on its report, has the executor drop the job's output.
   */
  private static final ByteString ROGUE_CAPABILITY = ByteString.copyFrom(new byte[32]);

  @Test
  void rogueLaunchOfAnUnknownJobLeavesNoData() throws Exception {
    Schema schema =
        new Schema(List.of(new Field("x", FieldType.nullable(new ArrowType.Int(64, true)), null)));
    byte[] plan =
        new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES)
            .encodeStage(
                new StagePlan(
                    new ValuesExec(schema, List.of(List.of(7L), List.of(8L))),
                    Partitioning.single()));
    String job = "rogue-job";
    ExecutorInfo target = executors.get(0);
    ExecutorControlGrpc.newBlockingStub(executorChannels.get(0))
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .launchTask(
            LaunchTaskRequest.newBuilder()
                .setTask(TaskId.newBuilder().setJobId(job).setStageId(1).setTaskId(0))
                .setPlan(ByteString.copyFrom(plan))
                .setOutputPartitions(1)
                .setJobCapability(ROGUE_CAPABILITY)
                .build());
    Ticket ticket = ShuffleTickets.encode(ShuffleTickets.id(job, 1, 0, 0), ROGUE_CAPABILITY);
    try (FlightClient client =
        FlightClient.builder(
                allocator, Location.forGrpcInsecure(target.getHost(), target.getFlightPort()))
            .build()) {
      // The output appears once the task ran and must disappear once it reported; if it was
      // removed before a poll saw it, NOT_FOUND well after the launch is the end state too.
      long launched = System.nanoTime();
      long deadline = launched + TimeUnit.SECONDS.toNanos(20);
      boolean sawData = false;
      while (true) {
        FlightStatusCode code;
        try (FlightStream s = client.getStream(ticket)) {
          while (s.next()) {
            // drain
          }
          code = FlightStatusCode.OK;
          sawData = true;
        } catch (FlightRuntimeException e) {
          code = e.status().code();
        }
        boolean settled = sawData || System.nanoTime() - launched > TimeUnit.SECONDS.toNanos(3);
        if (code == FlightStatusCode.NOT_FOUND && settled) {
          break;
        }
        if (System.nanoTime() > deadline) {
          fail(
              "the rogue job's output is still served 20 s after its launch (last status %s)",
              code);
        }
        Thread.sleep(100);
      }
    }
  }
}
