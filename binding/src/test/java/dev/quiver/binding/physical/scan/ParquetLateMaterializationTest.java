package dev.quiver.binding.physical.scan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.datasource.parquet.ParquetCodec;
import dev.quiver.binding.datasource.parquet.ParquetWriteOptions;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Late materialization: a filter right above a Parquet scan decodes its own columns first and the
 * others only for its survivors, skipping pages that hold none. Filters keeping no row, every row,
 * rows clustered in a few pages and rows scattered over all pages, over nullable numbers, decimals,
 * booleans, dictionary and plain strings and a list column (read whole, never late), in files
 * written by DuckDB (several row groups) and by Quiver's writer (small pages, so a row group has
 * dozens), in several batch sizes and partition counts: every answer is DuckDB's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public class ParquetLateMaterializationTest {
  private static final int ROWS = 12_000;

  private static final String ROWS_SQL =
      "SELECT i AS id, (i % 97)::INTEGER AS k,"
          + " CASE WHEN i BETWEEN 5000 AND 8999 THEN NULL ELSE i * 3 END AS n_runs,"
          + " CASE WHEN hash(i) % 5 = 0 THEN NULL ELSE (hash(i) % 1000) / 10.0 END AS d_random,"
          + " DATE '1990-01-01' + (i % 3000)::INTEGER AS dt,"
          + " (i * 12.345 - 1e4)::DECIMAL(18, 3) AS dec,"
          + " CASE WHEN i % 3 = 0 THEN NULL ELSE (i * 1e25 - 3e28)::DECIMAL(38, 5) END AS dec38,"
          + " CASE WHEN i % 11 = 0 THEN NULL ELSE i % 3 = 0 END AS b,"
          + " CASE WHEN i % 13 = 0 THEN NULL ELSE 'v' || (i % 40) END AS s_dict,"
          + " repeat('x', i % 50) || i AS s_plain,"
          + " TIMESTAMP '2020-02-29 12:34:56' + INTERVAL (i * 37) SECOND AS ts,"
          + " CASE WHEN i % 17 = 0 THEN NULL ELSE [i, i % 5] END AS tags"
          + " FROM range("
          + ROWS
          + ") t(i)";

  /** The filters checked: none, all, clustered and scattered rows, nulls, and combinations. */
  public static final String[] QUERIES = {
    "SELECT * FROM t WHERE id < 0",
    "SELECT * FROM t WHERE id >= 0",
    "SELECT * FROM t WHERE id BETWEEN 3000 AND 3100 OR id >= 11500",
    "SELECT * FROM t WHERE id % 7 = 3",
    "SELECT id, s_plain, tags, dec38 FROM t WHERE n_runs IS NULL",
    "SELECT s_dict, dec38, b, ts FROM t WHERE d_random > 50 AND k < 10",
    "SELECT id, s_dict FROM t WHERE s_dict = 'v3' AND id > 100",
    "SELECT count(*), sum(dec), min(s_plain), max(ts), sum(n_runs) FROM t"
        + " WHERE dt >= DATE '1995-01-01' AND b",
    "SELECT k, s_plain, d_random FROM t WHERE k = 5 AND id > 9000",
    "SELECT id, s_plain FROM t WHERE tags IS NULL AND id < 12000",
    "SELECT id, s_dict, s_plain FROM t WHERE n_runs > 27000 AND n_runs < 27300",
    "SELECT id, s_dict, s_plain, dec38, b, d_random, tags FROM t WHERE k = 3",
  };

  @TempDir static Path tmp;

  @BeforeAll
  static void writeFiles() throws Exception {
    write(tmp);
  }

  /**
   * Writes the rows to {@code dir}/duckdb (DuckDB, row groups of 3,000) and {@code dir}/quiver
   * (Quiver's writer, row groups of 6,000 in 2 KiB pages); returns {@code dir}.
   */
  public static Path write(Path dir) throws Exception {
    Path duckdb = Files.createDirectories(dir.resolve("duckdb"));
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY ("
              + ROWS_SQL
              + ") TO '"
              + duckdb.resolve("data.parquet")
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 3000)");
    }
    ParquetWriteOptions small =
        new ParquetWriteOptions(ParquetCodec.SNAPPY, 6_000, 64L << 20, 2 * 1024, 16 * 1024, true);
    ParquetBulkReadTest.rewrite(duckdb, Files.createDirectories(dir.resolve("quiver")), small);
    return dir;
  }

  /** DuckDB's answer to {@code sql} over the files in {@code dir}. */
  public static List<String> duckdb(Path dir, String sql) throws Exception {
    return SameRows.duckdb("t", "SELECT * FROM read_parquet('" + dir + "/*.parquet')", sql);
  }

  private static void sameAsDuckDb(String file, int partitions, int batchSize, boolean late)
      throws Exception {
    Path dir = tmp.resolve(file);
    try (SessionContext ctx =
        new SessionContext(
            new SessionConfig()
                .withTargetPartitions(partitions)
                .withBatchSize(batchSize)
                .set(BindingSettings.PARQUET_LATE_MATERIALIZATION.key(), Boolean.toString(late)))) {
      ctx.registerParquet("t", dir.toString());
      for (String sql : QUERIES) {
        SameRows.same(
            duckdb(dir, sql),
            SameRows.quiver(ctx, sql),
            file + ", " + partitions + " partitions, batches of " + batchSize + ": " + sql);
      }
    }
  }

  @Test
  void duckDbFilesMatch() throws Exception {
    sameAsDuckDb("duckdb", 1, 8192, true);
    sameAsDuckDb("duckdb", 3, 1000, true);
    sameAsDuckDb("duckdb", 2, 7, true);
  }

  @Test
  void quiverFilesWithSmallPagesMatch() throws Exception {
    sameAsDuckDb("quiver", 1, 8192, true);
    sameAsDuckDb("quiver", 3, 1000, true);
    sameAsDuckDb("quiver", 2, 7, true);
  }

  @Test
  void settingOffMatchesToo() throws Exception {
    sameAsDuckDb("quiver", 2, 1000, false);
  }

  /** The counter {@code name} summed over the EXPLAIN ANALYZE text {@code plan}. */
  private static long counter(String plan, String name) {
    Matcher m = Pattern.compile(name + "=(\\d+)").matcher(plan);
    long sum = 0;
    while (m.find()) {
      sum += Long.parseLong(m.group(1));
    }
    return sum;
  }

  private static String explainAnalyze(boolean late, String sql) {
    try (SessionContext ctx =
        new SessionContext(
            new SessionConfig()
                .withTargetPartitions(1)
                .set(BindingSettings.PARQUET_LATE_MATERIALIZATION.key(), Boolean.toString(late)))) {
      ctx.registerParquet("t", tmp.resolve("quiver").toString());
      return String.join("\n", SameRows.quiver(ctx, "EXPLAIN ANALYZE " + sql));
    }
  }

  @Test
  void explainAnalyzeShowsRowsFilteredAndPagesSkipped() {
    String sql = "SELECT id, s_plain, dec38 FROM t WHERE id BETWEEN 3000 AND 3100";
    String plan = explainAnalyze(true, sql);
    // Statistics leave the first row group of 6,000 rows; the filter keeps 101 of them, and the
    // pages of s_plain and dec38 before row 3,000 and after row 3,100 are never decoded.
    assertThat(counter(plan, "late_filtered_rows")).as(plan).isEqualTo(6_000 - 101);
    assertThat(counter(plan, "late_skipped_pages")).as(plan).isPositive();
    String off = explainAnalyze(false, sql);
    assertThat(off).doesNotContain("late_filtered_rows");
  }
}
