package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hive-partitioned folders written by DuckDB ({@code cat=a/dt=2026-01-01/data_0.parquet}) read with
 * their partition columns, locally and from S3, checked against DuckDB reading the same files;
 * filters on partition columns skip folders.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public class HivePartitionTest {
  @TempDir Path tmp;

  /** Queries over table events, as Quiver and DuckDB both read it. */
  public static final String[] QUERIES = {
    "SELECT cat, dt, count(*) AS n, sum(v) AS s FROM events GROUP BY cat, dt",
    "SELECT count(*) AS n, sum(id) AS s FROM events WHERE cat = 'b'",
    "SELECT id, cat, dt FROM events WHERE dt = DATE '2026-01-02' AND id < 40 ORDER BY id",
    "SELECT cat, max(id) AS m FROM events WHERE cat IN ('a', 'c') AND v > 100 GROUP BY cat ORDER BY cat",
    "SELECT count(*) AS n FROM events WHERE cat IS NULL",
  };

  private Path write() throws Exception {
    return write(tmp);
  }

  /** Writes 2000 rows partitioned by cat (with NULLs) and dt with DuckDB under tmp/events. */
  public static Path write(Path tmp) throws Exception {
    Path dir = tmp.resolve("events");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT i::BIGINT AS id, i * 1.5 AS v,"
              + " CASE i % 4 WHEN 0 THEN 'a' WHEN 1 THEN 'b' WHEN 2 THEN 'c' ELSE NULL END AS cat,"
              + " DATE '2026-01-01' + (i % 2)::INT AS dt FROM range(2000) t(i)) TO '"
              + dir
              + "' (FORMAT PARQUET, PARTITION_BY (cat, dt))");
    }
    return dir;
  }

  /** DuckDB's rows for {@code sql} over table events read from {@code dir}. */
  public static List<String> duckdb(Path dir, String sql) throws Exception {
    return SameRows.duckdb(
        "events",
        "SELECT * FROM read_parquet('" + dir + "/**/*.parquet', hive_partitioning = true)",
        sql);
  }

  /** Quiver's rows for {@code sql}, normalized as {@link #duckdb} does. */
  public static List<String> quiver(SessionContext ctx, String sql) {
    return SameRows.quiver(ctx, sql);
  }

  private void checkAgainstDuckDb(SessionContext ctx, Path dir) throws Exception {
    for (String sql : QUERIES) {
      List<String> want = duckdb(dir, sql);
      List<String> got = quiver(ctx, sql);
      if (sql.contains("ORDER BY")) {
        assertThat(got).as(sql).containsExactlyElementsOf(want);
      } else {
        assertThat(got).as(sql).containsExactlyInAnyOrderElementsOf(want);
      }
    }
  }

  @Test
  void partitionColumnsMatchDuckDbLocally() throws Exception {
    Path dir = write();
    for (int partitions : new int[] {1, 3, 8}) {
      try (SessionContext ctx =
          new SessionContext(
              new SessionConfig().withTargetPartitions(partitions).withBatchSize(100))) {
        ctx.registerParquet("events", dir.toString());
        var schema = ctx.tableProvider("events").schema();
        assertThat(schema.findField("cat").getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
        assertThat(schema.findField("dt").getType())
            .isEqualTo(new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY));
        checkAgainstDuckDb(ctx, dir);
        String plan = ctx.sql("SELECT count(*) FROM events WHERE cat = 'b'").explain(true);
        assertThat(plan).contains("after pruning");
      }
    }
  }

  @Test
  void partitionTypesCanBeOverridden() throws Exception {
    Path dir = write();
    try (SessionContext ctx = new SessionContext()) {
      ctx.registerParquet(
          "events",
          dir.toString(),
          ParquetOptions.DEFAULT.withPartitionType("dt", ArrowType.Utf8.INSTANCE));
      assertThat(ctx.tableProvider("events").schema().findField("dt").getType())
          .isEqualTo(ArrowType.Utf8.INSTANCE);
      assertThat(quiver(ctx, "SELECT count(*) FROM events WHERE dt = '2026-01-02'"))
          .containsExactly("1000");
    }
  }

  @Test
  void partitionColumnsMatchDuckDbFromS3() throws Exception {
    Path dir = write();
    try (S3ProxyServer s3 = S3ProxyServer.start()) {
      s3.createBucket("lake");
      String uri = s3.put(dir, "lake", "events");
      try (SessionContext ctx =
          new SessionContext(s3.configure(new SessionConfig().withTargetPartitions(4)))) {
        ctx.registerParquet("events", uri);
        checkAgainstDuckDb(ctx, dir);
      }
    }
  }
}
