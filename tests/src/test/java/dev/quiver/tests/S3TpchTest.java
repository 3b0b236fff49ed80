package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * TPC-H SF 0.1 with every table in S3 (S3Proxy on loopback, signed requests): the 22 queries return
 * what they return from local files on one node, on an embedded cluster of 2 (credentials in the
 * session, travelling with the jobs) and on a scheduler with 3 executor processes that take the
 * credentials from their own environment. Also: bytes fetched per query, typed errors that leave
 * the cluster serving, and no log, plan or job status carrying the secret.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3TpchTest {
  private static final double SCALE = 0.1;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(120);
  private static final String PREFIX = "s3://tpch/sf0.1";

  private final QueryThread queryThread = new QueryThread();
  private final Map<String, QueryResult> expected = new HashMap<>();
  private S3ProxyServer s3;
  private Path data;
  private RowEngine local;
  private PrintStream originalErr;
  private PrintStream originalOut;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  @BeforeAll
  void open() throws Exception {
    data = TpchFixture.data(SCALE);
    s3 = S3ProxyServer.start();
    s3.createBucket("tpch");
    s3.put(data, "tpch", "sf0.1");
    local = new QuiverRows(data, 4);
    // Everything this JVM logs while the S3 engines run (slf4j-simple writes to System.err).
    originalErr = System.err;
    originalOut = System.out;
    System.setErr(new PrintStream(new Tee(originalErr, captured), true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(new Tee(originalOut, captured), true, StandardCharsets.UTF_8));
  }

  @AfterAll
  void close() {
    try {
      if (originalErr != null) {
        System.setErr(originalErr);
        System.setOut(originalOut);
      }
      assertThat(captured.toString(StandardCharsets.UTF_8))
          .as("this JVM's log")
          .doesNotContain(s3.secret());
    } finally {
      queryThread.close();
      if (local != null) {
        local.close();
      }
      if (s3 != null) {
        s3.close();
      }
    }
  }

  private QueryResult expected(TpchQuery q) {
    return expected.computeIfAbsent(q.name(), n -> local.query(q.sql()));
  }

  private Stream<DynamicTest> tpchOn(
      String label,
      java.util.function.Supplier<QuiverRows> open,
      Runnable afterEach,
      java.util.function.Consumer<QuiverRows> extra) {
    return tpchOn(label, TpchQueries.all(), open, afterEach, extra);
  }

  private Stream<DynamicTest> tpchOn(
      String label,
      List<TpchQuery> selected,
      java.util.function.Supplier<QuiverRows> open,
      Runnable afterEach,
      java.util.function.Consumer<QuiverRows> extra) {
    QuiverRows[] engine = new QuiverRows[1];
    Stream<DynamicTest> start =
        Stream.of(
            DynamicTest.dynamicTest(
                "open " + label,
                () -> queryThread.run(QUERY_TIMEOUT, "open", () -> engine[0] = open.get())));
    Stream<DynamicTest> queries =
        selected.stream()
            .map(
                q ->
                    DynamicTest.dynamicTest(
                        q.name(),
                        () ->
                            queryThread.run(
                                QUERY_TIMEOUT,
                                q.name(),
                                () -> {
                                  QueryResult want = expected(q);
                                  QueryResult got = engine[0].query(q.sql());
                                  Differential.check(
                                      q.name() + " from S3 on " + label,
                                      q.sql(),
                                      want,
                                      got,
                                      Differential.sortOf(q.orderBy(), want));
                                  afterEach.run();
                                })));
    Stream<DynamicTest> end =
        Stream.of(
            DynamicTest.dynamicTest(
                "checks and close " + label,
                () ->
                    queryThread.run(
                        QUERY_TIMEOUT,
                        "close",
                        () -> {
                          try {
                            extra.accept(engine[0]);
                          } finally {
                            engine[0].close();
                          }
                        })));
    return Stream.of(start, queries, end).flatMap(s -> s);
  }

  @TestFactory
  Stream<DynamicTest> singleNode() {
    return tpchOn(
        "one node",
        () ->
            new QuiverRows(
                new SessionContext(s3.configure(new SessionConfig().withTargetPartitions(4))),
                PREFIX,
                "quiver-s3",
                () -> {}),
        () -> {},
        this::fetchesOnlyProjectedColumns);
  }

  /** A query touching 2 of lineitem's 16 columns fetches under a quarter of its bytes. */
  private void fetchesOnlyProjectedColumns(QuiverRows engine) {
    long tableBytes =
        ObjectStores.forLocation(PREFIX, engine.session().config())
            .list(PREFIX + "/lineitem")
            .stream()
            .mapToLong(o -> o.size())
            .sum();
    long before = ObjectStores.fetchedBytes();
    String plan =
        engine
            .session()
            .sql("SELECT sum(l_extendedprice * l_discount) FROM lineitem")
            .explain(true);
    long processWide = ObjectStores.fetchedBytes() - before;
    long fetched = fetchedBytesIn(plan);
    assertThat(fetched).as(plan).isPositive().isLessThan(tableBytes / 4);
    assertThat(processWide).isGreaterThanOrEqualTo(fetched).isLessThan(tableBytes / 4);
  }

  /**
   * The fetched bytes an EXPLAIN ANALYZE reports: per scan on one node, per stage on a cluster
   * (whose per-task lines, "| task 3 #0 on ...", split the stage's total, so they are skipped).
   */
  private static long fetchedBytesIn(String text) {
    Pattern bytes = Pattern.compile("fetched_bytes=(\\d+)");
    long sum = 0;
    for (String line : text.split("\n")) {
      if (line.matches("[\\s|]*task \\d+ #.*")) {
        continue;
      }
      Matcher m = bytes.matcher(line);
      while (m.find()) {
        sum += Long.parseLong(m.group(1));
      }
    }
    return sum;
  }

  @TestFactory
  Stream<DynamicTest> embeddedCluster() {
    ClusterFixture.ClusterRows[] cluster = new ClusterFixture.ClusterRows[1];
    return tpchOn(
        "embedded cluster of 2",
        () -> {
          SessionConfig config = s3.configure(new SessionConfig());
          ClusterFixture.ClusterRows c = ClusterFixture.embedded(2, data, config);
          // Re-register the tables from S3 on the distributed session.
          cluster[0] = c;
          QuiverRows rows = c.rows();
          for (String table : TpchData.TABLES) {
            rows.session().registerParquet(table, PREFIX + "/" + table);
          }
          return rows;
        },
        () -> assertDistributed(cluster[0]),
        rows -> clusterChecks(rows, cluster[0]));
  }

  private void assertDistributed(ClusterFixture.ClusterRows cluster) {
    List<JobStatusUpdate> jobs = List.copyOf(cluster.jobs());
    assertThat(jobs).as("ran as distributed jobs").isNotEmpty();
    JobStatusUpdate last = jobs.get(jobs.size() - 1);
    assertThat(ClusterFixture.executorsOf(last)).hasSizeGreaterThanOrEqualTo(2);
    cluster.jobs().clear();
  }

  /** Fetched bytes, secrets in plans and job status, and typed errors on a cluster. */
  private void clusterChecks(QuiverRows rows, ClusterFixture.ClusterRows cluster) {
    cluster.jobs().clear();
    String plan =
        rows.session().sql("SELECT sum(l_extendedprice * l_discount) FROM lineitem").explain(true);
    assertThat(plan).doesNotContain(s3.secret());
    long fetched = 0;
    long fetchedByWinners = 0;
    for (JobStatusUpdate job : cluster.jobs()) {
      assertThat(job.toString()).doesNotContain(s3.secret());
      for (StageStatus s : job.getStagesList()) {
        for (TaskSummary t : s.getTasksList()) {
          fetched += t.getMetrics().getFetchedBytes();
          if (t.getState() == dev.quiver.distributed.proto.TaskState.TASK_STATE_SUCCEEDED) {
            fetchedByWinners += t.getMetrics().getFetchedBytes();
          }
        }
      }
    }
    long tableBytes =
        ObjectStores.forLocation(PREFIX, rows.session().config())
            .list(PREFIX + "/lineitem")
            .stream()
            .mapToLong(o -> o.size())
            .sum();
    // A speculative copy of a slow task reads its bytes again; count the attempts that won.
    assertThat(fetchedByWinners).as(plan).isPositive().isLessThan(tableBytes / 4);
    assertThat(fetchedBytesIn(plan)).isEqualTo(fetched);
    errorsLeaveTheClusterServing(rows.session());
  }

  /**
   * On the executors: a wrong secret, an unreachable endpoint, a deleted and a truncated object
   * each fail the query with a typed error naming the URI (and not the secret), and the next good
   * query works.
   */
  private void errorsLeaveTheClusterServing(SessionContext ctx) {
    String good = "SELECT count(*) FROM nation";
    try {
      Path nation = Files.createTempDirectory("quiver-s3-nation");
      ctx.sql("SELECT * FROM nation").writeParquet(PREFIX + "/errors/nation");
      ctx.registerParquet("victim", PREFIX + "/errors/nation");
      String object = ctx.tableProvider("victim").toString();
      assertThat(object).contains("1 files");

      ctx.config().set(SessionConfig.S3_SECRET_ACCESS_KEY, "wrong-secret-value");
      assertFailure(ctx, "SELECT count(*) FROM victim", PREFIX + "/errors/nation");
      ctx.config().set(SessionConfig.S3_SECRET_ACCESS_KEY, s3.secret());
      assertThat(ctx.sql(good).collect()).isNotEmpty().allSatisfy(b -> b.close());

      String endpoint = ctx.config().get(SessionConfig.S3_ENDPOINT);
      ctx.config().set(SessionConfig.S3_ENDPOINT, "http://127.0.0.1:1");
      assertFailure(ctx, "SELECT count(*) FROM victim", "http://127.0.0.1:1");
      ctx.config().set(SessionConfig.S3_ENDPOINT, endpoint);
      assertThat(ctx.sql(good).collect()).isNotEmpty().allSatisfy(b -> b.close());

      // Truncated, then deleted, after registration.
      Path cut = nation.resolve("cut.parquet");
      Files.write(cut, "PAR1 not really parquet".getBytes(StandardCharsets.UTF_8));
      s3.put(cut, "tpch", "sf0.1/errors/nation/part-0.parquet");
      assertFailure(ctx, "SELECT count(*) FROM victim", PREFIX + "/errors/nation/part-0.parquet");
      assertThat(ctx.sql(good).collect()).isNotEmpty().allSatisfy(b -> b.close());
      try (var client = s3.client()) {
        client.deleteObject(b -> b.bucket("tpch").key("sf0.1/errors/nation/part-0.parquet"));
      }
      assertFailure(ctx, "SELECT count(*) FROM victim", PREFIX + "/errors/nation/part-0.parquet");
      assertThat(ctx.sql(good).collect()).isNotEmpty().allSatisfy(b -> b.close());
      ctx.deregisterTable("victim");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private void assertFailure(SessionContext ctx, String sql, String named) {
    assertThatThrownBy(() -> ctx.sql(sql).collect().forEach(b -> b.close()))
        .isInstanceOf(DataSourceException.class)
        .hasMessageContaining(named)
        .satisfies(e -> assertThat(e.toString()).doesNotContain(s3.secret()));
  }

  /**
   * Queries the default suite runs on the executor processes: scans of every table, joins,
   * aggregates and a shuffle-heavy one. The whole 22 run under the {@code slow} tag (about two
   * minutes more on 2 cores).
   */
  private static final List<Integer> PROCESS_CLUSTER_QUERIES = List.of(1, 3, 6, 9, 13, 18);

  @TestFactory
  Stream<DynamicTest> processCluster() throws Exception {
    return processCluster(TpchQueries.select(PROCESS_CLUSTER_QUERIES));
  }

  @TestFactory
  @Tag("slow")
  Stream<DynamicTest> processClusterAllQueries() throws Exception {
    return processCluster(TpchQueries.all());
  }

  private Stream<DynamicTest> processCluster(List<TpchQuery> selected) throws Exception {
    Path logs = Files.createTempDirectory("quiver-s3-process-cluster-");
    ProcessCluster[] processes = new ProcessCluster[1];
    ClusterFixture.ClusterRows[] cluster = new ClusterFixture.ClusterRows[1];
    String previousKey = System.getProperty("aws.accessKeyId");
    return tpchOn(
        "3 executor processes",
        selected,
        () -> {
          try {
            processes[0] =
                ProcessCluster.start(
                    logs,
                    3,
                    ProcessCluster.Options.of(2).withExecutorEnvironment(s3.environment()));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          // The client reads footers with the SDK's default chain (system properties here);
          // the jobs carry only the endpoint: executors sign with their own environment.
          System.setProperty("aws.accessKeyId", s3.accessKey());
          System.setProperty("aws.secretAccessKey", s3.secret());
          SessionConfig config =
              new SessionConfig()
                  .set(SessionConfig.S3_ENDPOINT, s3.endpoint())
                  .set(SessionConfig.S3_REGION, "us-east-1");
          cluster[0] = ClusterFixture.remote(processes[0].target(), data, config);
          QuiverRows rows = cluster[0].rows();
          for (String table : TpchData.TABLES) {
            rows.session().registerParquet(table, PREFIX + "/" + table);
          }
          return rows;
        },
        () -> assertDistributed(cluster[0]),
        rows -> {
          try {
            assertThat(rows.session().config().options()).doesNotContainValue(s3.secret());
          } finally {
            if (previousKey == null) {
              System.clearProperty("aws.accessKeyId");
              System.clearProperty("aws.secretAccessKey");
            }
            if (processes[0] != null) {
              processes[0].close();
            }
            try (Stream<Path> files = Files.walk(logs)) {
              for (Path log : files.filter(p -> p.toString().endsWith(".log")).toList()) {
                assertThat(Files.readString(log)).as(log.toString()).doesNotContain(s3.secret());
              }
              ProcessCluster.deleteTree(logs);
            } catch (IOException e) {
              throw new AssertionError(e);
            }
          }
        });
  }

  @Test
  void sqlSetsTheStoreAndCreatesExternalTablesFromS3() {
    queryThread.run(
        QUERY_TIMEOUT,
        "sql",
        () -> {
          try (SessionContext ctx = new SessionContext()) {
            ctx.sql("SET quiver.s3.endpoint = '" + s3.endpoint() + "'");
            ctx.sql("SET quiver.s3.region = 'us-east-1'");
            ctx.sql("SET quiver.s3.access_key_id = '" + s3.accessKey() + "'");
            ctx.sql("SET quiver.s3.secret_access_key = '" + s3.secret() + "'");
            ctx.sql("CREATE EXTERNAL TABLE n STORED AS PARQUET LOCATION '" + PREFIX + "/nation'");
            QueryResult got =
                new QuiverRows(ctx, PREFIX, "sql", () -> {})
                    .query("SELECT count(*), sum(n_nationkey) FROM n");
            QueryResult want = local.query("SELECT count(*), sum(n_nationkey) FROM nation");
            Differential.check("external", "n", want, got, Differential.sortOf(List.of(), want));
            assertThat(ctx.sql("EXPLAIN SELECT * FROM n").explain()).doesNotContain(s3.secret());
          }
        });
  }

  @Test
  void writeParquetToS3ReadsBack() {
    queryThread.run(
        QUERY_TIMEOUT,
        "write",
        () -> {
          try (SessionContext ctx = new SessionContext(s3.configure(new SessionConfig()))) {
            ctx.registerParquet("orders", PREFIX + "/orders");
            ctx.sql(
                    "SELECT o_orderkey, o_totalprice, o_orderdate FROM orders WHERE o_orderkey % 7 = 0")
                .writeParquet("s3://tpch/written/orders7");
            ctx.registerParquet("orders7", "s3://tpch/written/orders7");
            QueryResult a =
                new QuiverRows(ctx, data, "unused", () -> {})
                    .query("SELECT count(*), sum(o_totalprice), min(o_orderdate) FROM orders7");
            QueryResult b =
                local.query(
                    "SELECT count(*), sum(o_totalprice), min(o_orderdate) FROM orders"
                        + " WHERE o_orderkey % 7 = 0");
            Differential.check("written to S3", "orders7", b, a, Differential.sortOf(List.of(), b));
          }
        });
  }

  /**
   * A process writing a table to S3 is killed (SIGKILL) while its multipart upload is under way:
   * nothing is visible under the target prefix afterwards.
   */
  @Test
  void aWriteKilledHalfwayLeavesNoObject() throws Exception {
    Path log = Files.createTempFile("quiver-s3-killed-writer", ".log");
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "-cp",
            System.getProperty("java.class.path"),
            S3WriteChild.class.getName(),
            TpchData.tableDirectory(data, "lineitem").toString(),
            "s3://tpch/killed/lineitem");
    pb.environment().putAll(s3.environment());
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    Process child = pb.start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      boolean uploading = false;
      while (child.isAlive() && System.nanoTime() < deadline) {
        if (Files.readString(log).contains("writing") && uploadUnderWay("killed/")) {
          uploading = true;
          break;
        }
        Thread.sleep(20);
      }
      child.destroyForcibly().waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
      String output = Files.readString(log);
      assertThat(uploading).as("killed while uploading; child said:\n" + output).isTrue();
      assertThat(output).doesNotContain("written").doesNotContain(s3.secret());
      assertThat(s3.keys("tpch", "killed/")).as("objects under the prefix").isEmpty();
      try (SessionContext ctx = new SessionContext(s3.configure(new SessionConfig()))) {
        assertThatThrownBy(() -> ctx.registerParquet("gone", "s3://tpch/killed/lineitem"))
            .isInstanceOf(DataSourceException.class)
            .hasMessageContaining("s3://tpch/killed/lineitem");
      }
    } finally {
      child.destroyForcibly();
      Files.deleteIfExists(log);
    }
  }

  /** Whether a multipart upload under {@code prefix} of bucket tpch has begun. */
  private boolean uploadUnderWay(String prefix) throws IOException {
    try (var client = s3.client()) {
      if (!client.listMultipartUploads(b -> b.bucket("tpch").prefix(prefix)).uploads().isEmpty()) {
        return true;
      }
    } catch (software.amazon.awssdk.core.exception.SdkException e) {
      // Not every S3Proxy backend lists uploads; its folder shows the parts.
    }
    try (Stream<Path> files = Files.walk(s3.root())) {
      return files.anyMatch(p -> p.toString().contains("killed"));
    }
  }

  /** Copies everything written to one stream into a second. */
  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws IOException {
      a.write(c);
      synchronized (b) {
        b.write(c);
      }
    }

    @Override
    public void write(byte[] buf, int off, int len) throws IOException {
      a.write(buf, off, len);
      synchronized (b) {
        b.write(buf, off, len);
      }
    }

    @Override
    public void flush() throws IOException {
      a.flush();
    }
  }
}
