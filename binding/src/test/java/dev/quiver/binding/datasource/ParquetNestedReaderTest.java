package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quiver's Parquet reader on nested columns written by DuckDB: structs, lists of integers, strings,
 * decimals, timestamps and structs, maps, structs of lists, lists of lists and maps of lists, with
 * NULLs at every level and empty lists, over several row groups, one file per codec (snappy, zstd,
 * gzip, lz4, uncompressed) and one with version 2 data pages and their DELTA and BYTE_STREAM_SPLIT
 * encodings. Every value is compared with DuckDB's reading of the same files.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ParquetNestedReaderTest {
  private static final int ROWS = 6_000;

  private static final String ROWS_SQL =
      "SELECT i AS id,"
          + " CASE WHEN i % 7 = 0 THEN NULL ELSE {'a': i::INTEGER,"
          + " 'b': CASE WHEN i % 5 = 0 THEN NULL ELSE 'b' || (i % 13) END,"
          + " 'c': CASE WHEN i % 11 = 0 THEN NULL ELSE {'d': i * 0.25,"
          + " 'e': CASE WHEN i % 3 = 0 THEN NULL ELSE [i, NULL, -i] END} END} END AS s,"
          + " CASE WHEN i % 6 = 0 THEN NULL WHEN i % 6 = 1 THEN []::INTEGER[]"
          + " ELSE [i::INTEGER, NULL, (i % 100)::INTEGER] END AS li,"
          + " CASE WHEN i % 4 = 0 THEN NULL ELSE ['k' || (i % 9), NULL,"
          + " repeat('u', i % 20) || i] END AS ls,"
          + " [(i * 1.001)::DECIMAL(18, 3), NULL, (-i / 7)::DECIMAL(9, 2)] AS ld,"
          + " CASE WHEN i % 9 = 0 THEN []::TIMESTAMP[] ELSE"
          + " [TIMESTAMP '2024-01-01 00:00:00.000001' + INTERVAL (i) SECOND, NULL] END AS lt,"
          + " CASE WHEN i % 8 = 0 THEN NULL ELSE [{'x': i % 10, 'y': 'v' || i},"
          + " NULL, {'x': NULL, 'y': NULL}] END AS lst,"
          + " CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN MAP {}::MAP(VARCHAR, BIGINT)"
          + " ELSE MAP {'k': i, 'z' || (i % 4): CASE WHEN i % 3 = 0 THEN NULL ELSE -i END} END AS m,"
          + " {'k': CASE WHEN i % 10 = 0 THEN NULL ELSE ['p' || (i % 3), 'q'] END,"
          + " 'v': i % 17} AS sl,"
          + " CASE WHEN i % 12 = 0 THEN NULL ELSE [[i, i + 1], [], NULL, [NULL]] END AS ll,"
          + " CASE WHEN i % 13 = 0 THEN NULL ELSE MAP {(i % 50)::INTEGER: ['w' || i, NULL]} END"
          + " AS ml,"
          + " (i * 0.5)::DOUBLE AS f, (i % 1000)::VARCHAR AS flat"
          + " FROM range("
          + ROWS
          + ") t(i)";

  /** One file per way of writing: {name, COPY options}. */
  private static final String[][] FILES = {
    {"snappy", "COMPRESSION snappy"},
    {"zstd", "COMPRESSION zstd"},
    {"gzip", "COMPRESSION gzip"},
    {"lz4", "COMPRESSION lz4"},
    {"plain", "COMPRESSION uncompressed"},
    {"v2", "COMPRESSION zstd, PARQUET_VERSION v2"},
  };

  private static final String[] QUERIES = {
    "SELECT * FROM n",
    "SELECT id, s, m FROM n WHERE id % 10 = 3",
    "SELECT ll, ml, id FROM n WHERE id > 4000",
    "SELECT id, n.s.c.e, n.s.b, lst FROM n WHERE flat = '42'",
    "SELECT sl, ld, lt FROM n WHERE id < 100 OR id > 5950",
    "SELECT id, li[1] AS a, m['k'] AS k, lst[1]['y'] AS y FROM n ORDER BY id LIMIT 50",
  };

  @TempDir static Path tmp;

  @BeforeAll
  static void write() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      for (String[] f : FILES) {
        Path dir = Files.createDirectories(tmp.resolve(f[0]));
        s.execute(
            "COPY ("
                + ROWS_SQL
                + ") TO '"
                + dir.resolve("data.parquet")
                + "' (FORMAT PARQUET, ROW_GROUP_SIZE 2048, "
                + f[1]
                + ")");
      }
    }
  }

  @Test
  void everyValueMatchesDuckDbForEveryCodecAndPageVersion() throws Exception {
    for (String[] f : FILES) {
      Path dir = tmp.resolve(f[0]);
      try (SessionContext ctx =
          new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(1000))) {
        ctx.registerParquet("n", dir.toString());
        // Every query on two files; the other codecs differ only in their pages.
        boolean all = f[0].equals("snappy") || f[0].equals("v2");
        for (String sql : all ? QUERIES : new String[] {QUERIES[0]}) {
          List<String> want =
              SameRows.duckdb("n", "SELECT * FROM read_parquet('" + dir + "/*.parquet')", sql);
          assertThat(want).as(sql).isNotEmpty();
          SameRows.same(want, SameRows.quiver(ctx, sql), f[0] + ": " + sql);
        }
      }
    }
  }

  @Test
  void smallBatchesCutRecordsAtTheirBoundaries() throws Exception {
    Path dir = tmp.resolve("snappy");
    String sql = "SELECT * FROM n WHERE id < 2500";
    List<String> want =
        SameRows.duckdb("n", "SELECT * FROM read_parquet('" + dir + "/*.parquet')", sql);
    try (SessionContext ctx =
        new SessionContext(new SessionConfig().withTargetPartitions(1).withBatchSize(7))) {
      ctx.registerParquet("n", dir.toString());
      SameRows.same(want, SameRows.quiver(ctx, sql), sql);
    }
  }

  @Test
  void unsupportedCodecFailsTypedNamingItAndTheFile() throws Exception {
    Path file = tmp.resolve("brotli.parquet");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT i AS id, [i] AS l FROM range(10) t(i)) TO '"
              + file
              + "' (FORMAT PARQUET, COMPRESSION brotli)");
    }
    try (SessionContext ctx = new SessionContext(new SessionConfig())) {
      ctx.registerParquet("b", file.toString());
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT * FROM b"))
          .isInstanceOf(UnsupportedFeatureException.class)
          .hasMessageContaining("BROTLI")
          .hasMessageContaining(file.toString());
    }
  }
}
