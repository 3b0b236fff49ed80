package dev.quiver.binding.physical.scan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.datasource.parquet.ParquetCodec;
import dev.quiver.binding.datasource.parquet.ParquetFileWriter;
import dev.quiver.binding.datasource.parquet.ParquetWriteOptions;
import dev.quiver.binding.settings.SessionConfig;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page decoder's bulk paths end to end: every flat fixed-width type (and strings and booleans)
 * with no NULL, only NULLs, alternating NULLs, random NULLs and NULL runs longer than a batch, in
 * files written by DuckDB (V1 pages, the bulk paths; V2 pages, whose DELTA encodings take the
 * per-value path) and by Quiver's writer with small pages and dictionaries (page boundaries inside
 * batches, dictionary pages falling back to PLAIN mid-chunk), read in batches of 1, 7, 1,000 and
 * 8,192 rows. Every value is compared with DuckDB's reading of the same file.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ParquetBulkReadTest {
  private static final int ROWS = 12_000;

  /** Columns of every type; the name says its NULL pattern where it has one. */
  private static final String ROWS_SQL =
      "SELECT i AS id,"
          + " CASE WHEN i % 2 = 0 THEN NULL ELSE (i % 128)::TINYINT END AS i8_alternating,"
          + " (i % 30000 - 15000)::SMALLINT AS i16,"
          + " NULL::INTEGER AS i32_null,"
          + " CASE WHEN i BETWEEN 1000 AND 9999 THEN NULL ELSE i * 1000003 END AS i64_runs,"
          + " (i % 7)::INTEGER AS i32_dictionary,"
          + " CASE WHEN i % 6000 < 3000 THEN i % 10 ELSE i END AS i64_fallback,"
          + " (hash(i) % 251)::UTINYINT AS u8, (i % 60000)::USMALLINT AS u16,"
          + " (hash(i) % 4000000000)::UINTEGER AS u32, (i * 7)::UBIGINT AS u64,"
          + " CASE WHEN hash(i) % 5 = 0 THEN NULL ELSE (i / 8.0)::DOUBLE END AS d_random,"
          + " (i * 1.5 - 7)::DOUBLE AS d,"
          + " DATE '1990-01-01' + (i % 5000)::INTEGER AS dt,"
          + " (i % 1000 / 100.0 - 3)::DECIMAL(9, 2) AS dec4,"
          + " (i * 12345.678 - 1e6)::DECIMAL(18, 3) AS dec8,"
          + " CASE WHEN i % 3 = 0 THEN NULL ELSE (i * 1e20 - 7e23)::DECIMAL(30, 2) END AS dec13,"
          + " (i * 1e25 - 3e28)::DECIMAL(38, 5) AS dec16,"
          + " TIMESTAMP '2020-02-29 12:34:56.789012' + INTERVAL (i * 37) SECOND AS ts,"
          + " (TIMESTAMP '1960-01-01' + INTERVAL (i * 1234) SECOND)::TIMESTAMP_MS AS ts_ms,"
          + " (TIMESTAMP '2001-01-01' + INTERVAL (i) MINUTE)::TIMESTAMP_NS AS ts_ns,"
          + " TIME '00:00:00' + INTERVAL (i * 4) SECOND AS tm,"
          + " CASE WHEN i % 11 = 0 THEN NULL ELSE i % 3 = 0 END AS b,"
          + " CASE WHEN i % 13 = 0 THEN NULL ELSE 'v' || (i % 40) END AS s_dictionary,"
          + " repeat('x', i % 70) || i AS s_plain"
          + " FROM range("
          + ROWS
          + ") t(i)";

  @TempDir static Path tmp;

  @BeforeAll
  static void write() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      for (String[] f : new String[][] {{"duckdb", ""}, {"duckdb-v2", ", PARQUET_VERSION v2"}}) {
        Path dir = Files.createDirectories(tmp.resolve(f[0]));
        s.execute(
            "COPY ("
                + ROWS_SQL
                + ") TO '"
                + dir.resolve("data.parquet")
                + "' (FORMAT PARQUET, ROW_GROUP_SIZE 12000"
                + f[1]
                + ")");
      }
    }
    // The same rows through Quiver's writer: 4 KiB pages, dictionaries that fill up at 16 KiB
    // (i64_fallback's first half of each row group pays for one, its second half overflows it).
    ParquetWriteOptions small =
        new ParquetWriteOptions(ParquetCodec.SNAPPY, 6_000, 64L << 20, 4 * 1024, 16 * 1024, true);
    rewrite(tmp.resolve("duckdb"), Files.createDirectories(tmp.resolve("quiver")), small);
  }

  /**
   * Writes the rows of the Parquet files in {@code from} to {@code to}/data.parquet with Quiver's
   * writer.
   */
  static void rewrite(Path from, Path to, ParquetWriteOptions options) throws Exception {
    try (SessionContext ctx = new SessionContext(new SessionConfig().withTargetPartitions(1))) {
      ctx.registerParquet("t", from.toString());
      List<VectorSchemaRoot> batches = ctx.sql("SELECT * FROM t").collect();
      try (OutputStream out = Files.newOutputStream(to.resolve("data.parquet"))) {
        ParquetFileWriter writer = new ParquetFileWriter(out, batches.get(0).getSchema(), options);
        for (VectorSchemaRoot b : batches) {
          writer.write(b);
        }
        writer.finish();
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
    }
  }

  /**
   * Compares the file's rows; batches of a single row only over its first rows (a LIMIT on one
   * partition: both engines read those in file order), which keeps the test quick.
   */
  private static void sameAsDuckDb(String file, int batchSize) throws Exception {
    Path dir = tmp.resolve(file);
    String sql = batchSize == 1 ? "SELECT * FROM t LIMIT 2500" : "SELECT * FROM t";
    List<String> want =
        SameRows.duckdb("t", "SELECT * FROM read_parquet('" + dir + "/*.parquet')", sql);
    assertThat(want).hasSize(batchSize == 1 ? 2500 : ROWS);
    try (SessionContext ctx =
        new SessionContext(
            new SessionConfig()
                .withTargetPartitions(batchSize == 1 ? 1 : 2)
                .withBatchSize(batchSize))) {
      ctx.registerParquet("t", dir.toString());
      SameRows.same(want, SameRows.quiver(ctx, sql), file + ", batches of " + batchSize);
    }
  }

  @Test
  void duckDbFilesMatchInEveryBatchSize() throws Exception {
    for (int batch : new int[] {1, 7, 1000, 8192}) {
      sameAsDuckDb("duckdb", batch);
    }
  }

  @Test
  void duckDbV2FilesMatch() throws Exception {
    sameAsDuckDb("duckdb-v2", 1000);
  }

  @Test
  void quiverFilesWithSmallPagesAndDictionaryFallbackMatchInEveryBatchSize() throws Exception {
    // The writer really cut pages and fell back from dictionary to PLAIN inside chunks.
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        var r =
            s.executeQuery(
                "SELECT count(*) FILTER (WHERE encodings LIKE '%DICTIONARY%'"
                    + " AND encodings LIKE '%PLAIN%'), max(total_uncompressed_size)"
                    + " FROM parquet_metadata('"
                    + tmp.resolve("quiver")
                    + "/data.parquet') WHERE path_in_schema = 'i64_fallback'")) {
      assertThat(r.next()).isTrue();
      assertThat(r.getLong(1)).isPositive();
      assertThat(r.getLong(2)).isGreaterThan(8 * 4 * 1024);
    }
    for (int batch : new int[] {1, 7, 1000, 8192}) {
      sameAsDuckDb("quiver", batch);
    }
  }
}
