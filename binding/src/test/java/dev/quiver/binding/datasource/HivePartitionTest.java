package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionConfig;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.io.S3ProxyServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hive-partitioned folders written by DuckDB ({@code cat=a/dt=2026-01-01/data_0.parquet}) read
 * with their partition columns, locally and from S3, checked against DuckDB reading the same
 * files; filters on partition columns skip folders.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HivePartitionTest {
  @TempDir Path tmp;

  private static final String[] QUERIES = {
    "SELECT cat, dt, count(*) AS n, sum(v) AS s FROM events GROUP BY cat, dt",
    "SELECT count(*) AS n, sum(id) AS s FROM events WHERE cat = 'b'",
    "SELECT id, cat, dt FROM events WHERE dt = DATE '2026-01-02' AND id < 40 ORDER BY id",
    "SELECT cat, max(id) AS m FROM events WHERE cat IN ('a', 'c') AND v > 100 GROUP BY cat ORDER BY cat",
    "SELECT count(*) AS n FROM events WHERE cat IS NULL",
  };

  private Path write() throws Exception {
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

  private static List<String> duckdb(Path dir, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE VIEW events AS SELECT * FROM read_parquet('"
              + dir
              + "/**/*.parquet', hive_partitioning = true)");
      List<String> rows = new ArrayList<>();
      try (ResultSet r = s.executeQuery(sql)) {
        int n = r.getMetaData().getColumnCount();
        while (r.next()) {
          StringBuilder b = new StringBuilder();
          for (int i = 1; i <= n; i++) {
            Object o = r.getObject(i);
            b.append(i > 1 ? "|" : "").append(normalize(o));
          }
          rows.add(b.toString());
        }
      }
      return rows;
    }
  }

  private static String normalize(Object o) {
    if (o == null) {
      return "NULL";
    }
    if (o instanceof Number n && !(o instanceof java.math.BigDecimal)) {
      double d = n.doubleValue();
      return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
    if (o instanceof java.math.BigDecimal d) {
      return normalize(d.doubleValue());
    }
    if (o instanceof java.time.LocalDate || o instanceof java.sql.Date) {
      return o.toString();
    }
    return o.toString();
  }

  private static List<String> quiver(SessionContext ctx, String sql) {
    List<String> rows = new ArrayList<>();
    for (VectorSchemaRoot b : ctx.sql(sql).collect()) {
      try (b) {
        for (int r = 0; r < b.getRowCount(); r++) {
          StringBuilder s = new StringBuilder();
          int i = 0;
          for (FieldVector v : b.getFieldVectors()) {
            Object o = v.isNull(r) ? null : v.getObject(r);
            if (v instanceof org.apache.arrow.vector.DateDayVector d && o != null) {
              o = java.time.LocalDate.ofEpochDay(d.get(r));
            }
            s.append(i++ > 0 ? "|" : "").append(normalize(o));
          }
          rows.add(s.toString());
        }
      }
    }
    return rows;
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
