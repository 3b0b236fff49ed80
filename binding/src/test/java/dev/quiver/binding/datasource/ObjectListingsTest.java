package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How often Quiver lists a prefix, counted as the LIST requests a real S3-API server (S3Proxy,
 * recording its requests) receives: a registered Hive-partitioned table lists its folder tree once,
 * when registered, and never while queries run; a statement lists each location it reads through
 * {@code read_parquet} / {@code read_csv} once however often it reads it, and the next statement
 * lists it again (and sees what changed). Answers are checked against DuckDB on the same files.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ObjectListingsTest {
  @TempDir static Path tmp;
  private S3ProxyServer s3;
  private Path dir;
  private String uri;

  @BeforeAll
  void start() throws Exception {
    dir = HivePartitionTest.write(tmp);
    s3 = S3ProxyServer.startRecordingRequests();
    s3.createBucket("lake");
    uri = s3.put(dir, "lake", "events");
  }

  @AfterAll
  void stop() {
    if (s3 != null) {
      s3.close();
    }
  }

  /** The LIST requests {@code action} made. */
  private List<String> listsOf(Runnable action) {
    int before = s3.requests().size();
    action.run();
    List<String> all = s3.requests();
    return S3ProxyServer.lists(all.subList(before, all.size()));
  }

  private SessionContext session(int partitions) {
    return new SessionContext(
        s3.configure(new SessionConfig().withTargetPartitions(partitions).withBatchSize(100)));
  }

  @Test
  void registeredHiveTableListsOnceWhenRegisteredAndNeverPerQuery() throws Exception {
    try (SessionContext ctx = session(4)) {
      assertThat(listsOf(() -> ctx.registerParquet("events", uri)))
          .containsExactly("GET /lake?list-type=2&prefix=events");
      for (String sql : HivePartitionTest.QUERIES) {
        AtomicReference<List<String>> got = new AtomicReference<>();
        assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, sql)))).as(sql).isEmpty();
        SameRows.same(HivePartitionTest.duckdb(dir, sql), got.get(), sql);
      }
      String selfJoin =
          "SELECT a.cat, count(*) AS n FROM events a JOIN events b ON a.id = b.id"
              + " WHERE a.id IN (SELECT id FROM events WHERE dt = DATE '2026-01-02') GROUP BY a.cat";
      AtomicReference<List<String>> got = new AtomicReference<>();
      assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, selfJoin)))).isEmpty();
      SameRows.same(HivePartitionTest.duckdb(dir, selfJoin), got.get(), selfJoin);
    }
  }

  @Test
  void aStatementListsEachLocationOnceHoweverOftenItReadsIt() throws Exception {
    String sql =
        "SELECT a.cat, count(*) AS n, sum(b.v) AS s FROM events a JOIN events b ON a.id = b.id"
            + " WHERE a.id IN (SELECT id FROM events WHERE cat = 'b' OR dt = DATE '2026-01-01')"
            + " GROUP BY a.cat";
    String files = sql.replace("events", "read_parquet('" + uri + "')");
    for (int partitions : new int[] {1, 4}) {
      try (SessionContext ctx = session(partitions)) {
        AtomicReference<List<String>> got = new AtomicReference<>();
        assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, files))))
            .as("three reads of one prefix in one statement")
            .containsExactly("GET /lake?list-type=2&prefix=events");
        SameRows.same(HivePartitionTest.duckdb(dir, sql), got.get(), sql);
        // The next statement lists again.
        assertThat(listsOf(() -> SameRows.quiver(ctx, files))).hasSize(1);
      }
    }
  }

  @Test
  void theNextStatementSeesFilesAddedToThePrefix() throws Exception {
    Path csv = Files.createDirectories(tmp.resolve("sales"));
    Files.writeString(csv.resolve("a.csv"), "id,amount\n1,10\n2,20\n");
    String sales = s3.put(csv, "lake", "sales");
    try (SessionContext ctx = session(2)) {
      String both =
          "SELECT count(*) AS n, sum(x.amount) AS s FROM read_csv('"
              + sales
              + "') x"
              + " JOIN read_csv('"
              + sales
              + "') y ON x.id = y.id";
      AtomicReference<List<String>> got = new AtomicReference<>();
      assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, both)))).hasSize(1);
      assertThat(got.get()).containsExactly("2|30");
      Files.writeString(csv.resolve("b.csv"), "id,amount\n3,5\n");
      s3.put(csv.resolve("b.csv"), "lake", "sales/b.csv");
      assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, both)))).hasSize(1);
      assertThat(got.get()).containsExactly("3|35");
      try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
          Statement s = c.createStatement();
          var r = s.executeQuery(both.replace("'" + sales + "'", "'" + csv + "/*.csv'"))) {
        r.next();
        assertThat(r.getLong(1) + "|" + r.getLong(2)).isEqualTo(got.get().get(0));
      }
    }
  }
}
