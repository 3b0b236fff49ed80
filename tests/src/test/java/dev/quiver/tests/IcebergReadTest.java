package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.iceberg.catalog.FileSystemTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Iceberg tables written by Iceberg's own library, read by Quiver in one process and compared with
 * DuckDB over the rows the tables should hold (deleted rows removed), at every snapshot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IcebergReadTest {
  static final String[] EVENT_QUERIES = {
    "SELECT * FROM t",
    "SELECT count(*) FROM t",
    "SELECT id, name FROM t WHERE d >= DATE '2024-03-01' AND d < DATE '2024-06-01'",
    "SELECT * FROM t WHERE id = 42",
    "SELECT * FROM t WHERE id IN (11, 22, 33, 44)",
    "SELECT quantity, count(*), sum(amount) FROM t GROUP BY quantity",
    "SELECT name, note FROM t WHERE note IS NULL",
    "SELECT category, count(*), max(ratio) FROM t GROUP BY category",
    "SELECT * FROM t WHERE name >= 'c' AND name < 'd'",
    "SELECT count(*) FROM t WHERE amount > 150.25 AND category = 'c1'",
    "SELECT extract(year FROM d) AS y, count(*) FROM t GROUP BY 1",
  };

  /**
   * A few of {@link #EVENT_QUERIES} for tables on S3, where every file read is a request: all
   * columns, a partition-pruned filter and an aggregate over evolved columns.
   */
  static final String[] S3_EVENT_QUERIES = {
    "SELECT * FROM t",
    "SELECT id, name FROM t WHERE d >= DATE '2024-03-01' AND d < DATE '2024-06-01'",
    "SELECT quantity, count(*), sum(amount) FROM t GROUP BY quantity",
  };

  static final String[] TIME_QUERIES = {
    "SELECT * FROM t",
    "SELECT count(*) FROM t WHERE ts >= TIMESTAMP '2024-02-28 00:00:00'"
        + " AND ts < TIMESTAMP '2024-03-01 00:00:00'",
    "SELECT id FROM t WHERE tstz > TIMESTAMP '2024-03-01 10:00:00' AND flag",
    "SELECT flag, count(*), min(ts), max(tstz) FROM t GROUP BY flag",
  };

  @TempDir static Path tmp;
  IcebergModel events;
  IcebergModel times;
  SessionContext ctx;
  Connection duck;

  @BeforeAll
  void write() throws Exception {
    events = IcebergTables.events(tmp.resolve("events").toString());
    times = IcebergTables.times(tmp.resolve("times").toString());
    ctx = new SessionContext();
    duck = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterAll
  void close() throws Exception {
    ctx.close();
    duck.close();
  }

  static List<String> duckdb(Connection duck, String sql) throws Exception {
    List<String> rows = new ArrayList<>();
    try (Statement s = duck.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      int n = r.getMetaData().getColumnCount();
      while (r.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          Object o = r.getObject(i);
          if (o instanceof java.sql.Date d) {
            o = d.toLocalDate();
          }
          b.append(i > 1 ? "|" : "").append(SameRows.normalize(o));
        }
        rows.add(b.toString());
      }
    }
    return rows;
  }

  /** Each query over {@code table} (as t) in Quiver equals DuckDB's over {@code rows}. */
  static void compare(
      SessionContext ctx,
      Connection duck,
      String quiverTable,
      Schema schema,
      List<IcebergModel.Row> rows,
      String... queries)
      throws Exception {
    IcebergModel.load(duck, "t", schema, rows);
    for (String q : queries) {
      String sql = q.replace(" FROM t", " FROM " + quiverTable);
      SameRows.same(duckdb(duck, q), SameRows.quiver(ctx, sql), sql);
    }
  }

  @Test
  void currentSnapshotMatchesDuckDb() throws Exception {
    String loc = events.table.location();
    ctx.registerIceberg("events", loc);
    try {
      compare(ctx, duck, "events", events.table.schema(), events.live, EVENT_QUERIES);
      compare(
          ctx,
          duck,
          "iceberg_scan('" + loc + "')",
          events.table.schema(),
          events.live,
          "SELECT * FROM t");
    } finally {
      ctx.deregisterTable("events");
    }
    String times = this.times.table.location();
    compare(
        ctx,
        duck,
        "iceberg_scan('" + times + "')",
        this.times.table.schema(),
        this.times.live,
        TIME_QUERIES);
  }

  @Test
  void everySnapshotByIdAndTime() throws Exception {
    Table t = events.table;
    for (Map.Entry<Long, List<IcebergModel.Row>> s : events.bySnapshot.entrySet()) {
      long id = s.getKey();
      Schema schema = SnapshotUtil.schemaFor(t, id);
      compare(
          ctx,
          duck,
          "iceberg_scan('" + t.location() + "', snapshot_id => " + id + ")",
          schema,
          s.getValue(),
          "SELECT * FROM t",
          "SELECT count(*) FROM t");
      java.time.LocalDateTime at =
          java.time.LocalDateTime.ofInstant(
              java.time.Instant.ofEpochMilli(t.snapshot(id).timestampMillis()),
              java.time.ZoneOffset.UTC);
      // The snapshot current at its own commit time is itself (or a later one of the same
      // millisecond): its rows are those of the last snapshot committed by then.
      long asOf = SnapshotUtil.snapshotIdAsOfTime(t, t.snapshot(id).timestampMillis());
      compare(
          ctx,
          duck,
          "iceberg_scan('"
              + t.location()
              + "', as_of => TIMESTAMP '"
              + at.toString().replace('T', ' ')
              + "')",
          SnapshotUtil.schemaFor(t, asOf),
          events.bySnapshot.get(asOf),
          "SELECT * FROM t");
    }
  }

  @Test
  void locationsFolderMetadataFileAndNoHint() throws Exception {
    String loc = events.table.location();
    String metadata =
        ((org.apache.iceberg.HasTableOperations) events.table)
            .operations()
            .current()
            .metadataFileLocation();
    List<String> want = SameRows.quiver(ctx, "SELECT count(*) FROM iceberg_scan('" + loc + "')");
    assertThat(want).containsExactly(Integer.toString(events.live.size()));
    assertThat(SameRows.quiver(ctx, "SELECT count(*) FROM iceberg_scan('" + metadata + "')"))
        .isEqualTo(want);
    Path copy = tmp.resolve("nohint");
    copyTree(Path.of(loc), copy);
    Files.delete(copy.resolve("metadata/version-hint.text"));
    // Without the hint the newest vN.metadata.json is current; its data paths point at the
    // original folder, which is still there.
    assertThat(SameRows.quiver(ctx, "SELECT count(*) FROM iceberg_scan('" + copy + "/')"))
        .isEqualTo(want);
  }

  @Test
  void pruningSkipsFilesByPartitionAndBounds() {
    String loc = events.table.location();
    String all = plan("SELECT * FROM iceberg_scan('" + loc + "')");
    String one = plan("SELECT * FROM iceberg_scan('" + loc + "') WHERE id = 42");
    assertThat(files(one)).isGreaterThan(0).isLessThan(files(all));
  }

  private String plan(String sql) {
    return String.join("\n", SameRows.quiver(ctx, "EXPLAIN " + sql));
  }

  private static int files(String plan) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("files=(\\d+)").matcher(plan);
    assertThat(m.find()).as(plan).isTrue();
    return Integer.parseInt(m.group(1));
  }

  @Test
  void unsupportedColumnTypeIsATypedErrorNamingIt() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "blob", Types.BinaryType.get()));
    String loc = tmp.resolve("binary").toString();
    FileSystemTables.create(loc, schema, PartitionSpec.unpartitioned(), Map.of(), null);
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM iceberg_scan('" + loc + "')").collect())
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("blob")
        .hasMessageContaining("binary");
  }

  @Test
  void missingTableAndSnapshotAreClearErrors() {
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM iceberg_scan('" + tmp.resolve("none") + "')"))
        .hasMessageContaining("No Iceberg table at");
    assertThatThrownBy(
            () ->
                ctx.sql(
                    "SELECT * FROM iceberg_scan('"
                        + events.table.location()
                        + "', snapshot_id => 12345)"))
        .hasMessageContaining("has no snapshot 12345");
    String missing = tmp.resolve("none").resolve("v3.metadata.json").toString();
    assertThatThrownBy(() -> ctx.sql("SELECT * FROM iceberg_scan('" + missing + "')"))
        .isInstanceOf(dev.quiver.binding.errors.DataSourceException.class)
        .hasMessageContaining(missing)
        .hasMessageContaining("does not exist");
  }

  static void copyTree(Path from, Path to) throws java.io.IOException {
    try (var paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
