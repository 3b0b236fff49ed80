package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CSV files as they come (other delimiters, no header, other quote and escape characters, a null
 * string, gzip and zstd compression, explicit column types, bad values), read by Quiver and by
 * DuckDB with the same options and compared at several partition counts and batch sizes.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public class CsvOptionsTest {
  @TempDir Path tmp;

  /** Rows with NULLs, delimiters, quotes, backslashes and line breaks inside text. */
  public static final String DATA =
      "SELECT i::BIGINT AS id,"
          + " CASE WHEN i % 11 = 0 THEN NULL ELSE round(i * 1.25, 2) END AS amount,"
          + " CASE WHEN i % 7 = 0 THEN NULL ELSE CASE i % 5 WHEN 0 THEN 'plain'"
          + " WHEN 1 THEN 'semi;colon' WHEN 2 THEN 'it''s \"quoted\"' WHEN 3 THEN 'back\\slash'"
          + " ELSE 'two' || chr(10) || 'lines' END END AS note,"
          + " DATE '2024-01-01' + (i % 400)::INT AS day,"
          + " i % 3 = 0 AS flag"
          + " FROM range(3000) t(i)";

  /** DuckDB's read_csv arguments for the files {@link #writeLayout} writes. */
  public static final String DUCKDB_LAYOUT =
      "delim = ';', header = false, quote = '''', escape = '\\', nullstr = 'NA',"
          + " columns = {'column_1': 'BIGINT', 'column_2': 'DOUBLE', 'column_3': 'VARCHAR',"
          + " 'column_4': 'DATE', 'column_5': 'BOOLEAN'}";

  /** Quiver's options for the same files. */
  public static final CsvOptions LAYOUT =
      CsvOptions.DEFAULT
          .withDelimiter(';')
          .withHeader(false)
          .withQuote('\'')
          .withEscape('\\')
          .withNullString("NA");

  public static final String[] LAYOUT_QUERIES = {
    "SELECT count(*) AS n, count(column_2) AS a, sum(column_2) AS s, count(column_3) AS c,"
        + " min(column_4) AS lo, max(column_4) AS hi,"
        + " sum(CASE WHEN column_5 THEN 1 ELSE 0 END) AS f FROM t",
    "SELECT column_3, count(*) AS n FROM t GROUP BY column_3",
    "SELECT column_1, column_2, column_3, column_4, column_5 FROM t WHERE column_1 % 97 = 0"
        + " ORDER BY column_1",
    "SELECT column_4, sum(column_2) AS s FROM t WHERE column_5 GROUP BY column_4"
        + " ORDER BY column_4 LIMIT 20",
  };

  /**
   * Writes {@link #DATA} with {@code ;}, no header, {@code '} quotes, backslash escapes and {@code
   * NA} for NULL into three files: gzip, zstd and plain.
   */
  public static Path writeLayout(Path tmp) throws Exception {
    Path dir = tmp.resolve("layout");
    Files.createDirectories(dir);
    String options = "DELIMITER ';', HEADER false, QUOTE '''', ESCAPE '\\', NULLSTR 'NA'";
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT * FROM ("
              + DATA
              + ") WHERE id < 1000) TO '"
              + dir.resolve("part-0.csv.gz")
              + "' ("
              + options
              + ", COMPRESSION gzip)");
      s.execute(
          "COPY (SELECT * FROM ("
              + DATA
              + ") WHERE id >= 1000 AND id < 2000) TO '"
              + dir.resolve("part-1.csv.zst")
              + "' ("
              + options
              + ", COMPRESSION zstd)");
      s.execute(
          "COPY (SELECT * FROM ("
              + DATA
              + ") WHERE id >= 2000) TO '"
              + dir.resolve("part-2.csv")
              + "' ("
              + options
              + ")");
    }
    return dir;
  }

  @Test
  void delimiterNoHeaderQuoteEscapeNullStringAndCompressionMatchDuckDb() throws Exception {
    Path dir = writeLayout(tmp);
    String view = "SELECT * FROM read_csv('" + dir + "/*', " + DUCKDB_LAYOUT + ")";
    List<List<String>> want = new ArrayList<>();
    for (String sql : LAYOUT_QUERIES) {
      want.add(SameRows.duckdb("t", view, sql));
    }
    assertThat(want.get(0).get(0)).startsWith("3000|");
    for (int partitions : new int[] {1, 3, 8}) {
      for (int batch : new int[] {7, 1000}) {
        try (SessionContext ctx =
            new SessionContext(
                new SessionConfig().withTargetPartitions(partitions).withBatchSize(batch))) {
          ctx.registerCsv("t", dir.toString(), LAYOUT);
          var schema = ctx.tableProvider("t").schema();
          assertThat(schema.getFields().stream().map(f -> f.getType()).toList())
              .containsExactly(
                  new ArrowType.Int(64, true),
                  new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
                  ArrowType.Utf8.INSTANCE,
                  new ArrowType.Date(DateUnit.DAY),
                  ArrowType.Bool.INSTANCE);
          for (int q = 0; q < LAYOUT_QUERIES.length; q++) {
            SameRows.same(want.get(q), SameRows.quiver(ctx, LAYOUT_QUERIES[q]), LAYOUT_QUERIES[q]);
          }
        }
      }
    }
  }

  @Test
  void sqlOptionsClauseAndCliStyleSettings() throws Exception {
    Path dir = writeLayout(tmp);
    String view = "SELECT * FROM read_csv('" + dir + "/*', " + DUCKDB_LAYOUT + ")";
    try (SessionContext ctx = new SessionContext()) {
      ctx.sql(
          "CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '"
              + dir
              + "' OPTIONS ('delimiter' ';', 'header' 'false', 'quote' '''', escape '\\',"
              + " 'format.null' = 'NA')");
      for (String sql : LAYOUT_QUERIES) {
        SameRows.same(SameRows.duckdb("t", view, sql), SameRows.quiver(ctx, sql), sql);
      }
      assertThat(ctx.sql("SELECT * FROM t").explain())
          .contains("delimiter=';'", "header=false", "null='NA'");
      assertThatThrownBy(
              () ->
                  ctx.sql(
                      "CREATE EXTERNAL TABLE u STORED AS CSV LOCATION '"
                          + dir
                          + "' OPTIONS ('delimitr' ';')"))
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining("Unknown CSV option 'delimitr'");
    }
    CsvOptions fromCli =
        CsvOptions.fromSettings(
            new java.util.LinkedHashMap<>(
                Map.of(
                    "delimiter", ";",
                    "header", "false",
                    "quote", "'",
                    "escape", "\\",
                    "null", "NA")));
    assertThat(fromCli).isEqualTo(LAYOUT);
  }

  @Test
  void explicitColumnTypesMatchDuckDb() throws Exception {
    Path f = tmp.resolve("prices.csv");
    Files.writeString(
        f,
        "code,price,dt\n007,10.5,2024-01-02\n010,3.25,2024-02-03\n,,\n123,0.125,2024-12-31\n",
        StandardCharsets.UTF_8);
    String view =
        "SELECT * FROM read_csv('"
            + f
            + "', header = true, types = {'code': 'VARCHAR', 'price': 'DECIMAL(10,2)'})";
    String sql = "SELECT code, price, dt FROM t";
    try (SessionContext ctx = new SessionContext()) {
      ctx.registerCsv(
          "t",
          f.toString(),
          CsvOptions.fromSettings(Map.of("types", "code:VARCHAR, price:DECIMAL(10,2)")));
      var schema = ctx.tableProvider("t").schema();
      assertThat(schema.findField("code").getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
      assertThat(schema.findField("price").getType()).isEqualTo(new ArrowType.Decimal(10, 2, 128));
      assertThat(schema.findField("dt").getType()).isEqualTo(new ArrowType.Date(DateUnit.DAY));
      List<String> got = SameRows.quiver(ctx, sql);
      assertThat(got).contains("007|10.5|2024-01-02", "NULL|NULL|NULL");
      SameRows.same(SameRows.duckdb("t", view, sql), got, sql);

      // The SQL way: declared columns type those columns; the others are inferred.
      ctx.sql(
          "CREATE EXTERNAL TABLE u (code VARCHAR, price DECIMAL(10, 2)) STORED AS CSV LOCATION '"
              + f
              + "'");
      SameRows.same(
          SameRows.duckdb("t", view, sql),
          SameRows.quiver(ctx, sql.replace("FROM t", "FROM u")),
          sql);
      assertThatThrownBy(
              () ->
                  ctx.registerCsv(
                      "v",
                      f.toString(),
                      CsvOptions.DEFAULT.withColumnType("cost", ArrowType.Utf8.INSTANCE)))
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining("no column 'cost'");
    }
  }

  /** Ten good rows (so a 5-row sample infers BIGINT, DOUBLE, DATE), then bad ones. */
  private Path badFile() throws Exception {
    return badFile(tmp);
  }

  /** The file {@link #badFile()} writes, under {@code tmp}. */
  public static Path badFile(Path tmp) throws Exception {
    StringBuilder csv = new StringBuilder("id,price,dt\n");
    for (int i = 1; i <= 10; i++) {
      csv.append(i).append(',').append(i * 0.5).append(",2024-01-").append(10 + i).append('\n');
    }
    csv.append("x12,1.5,2024-02-01\n"); // line 12: id is not a number
    csv.append("13,cheap,2024-02-02\n"); // line 13: price
    csv.append("14,2.5,2024-02-31\n"); // line 14: no such date (dt)
    csv.append("15,3.5\n"); // line 15: a field missing
    csv.append("16,4.5,2024-02-05\n");
    Path f = tmp.resolve("bad.csv");
    Files.writeString(f, csv.toString(), StandardCharsets.UTF_8);
    return f;
  }

  @Test
  void aBadValueNamesFileLineAndColumnAndKeepsTheInferredType() throws Exception {
    Path f = badFile();
    try (SessionContext ctx = new SessionContext()) {
      ctx.registerCsv("t", f.toString(), CsvOptions.DEFAULT.withInferenceRows(5));
      assertThat(ctx.tableProvider("t").schema().findField("id").getType())
          .isEqualTo(new ArrowType.Int(64, true));
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT * FROM t"))
          .isInstanceOf(DataSourceException.class)
          .hasMessageContaining(f.toString())
          .hasMessageContaining("line 12")
          .hasMessageContaining("column 'id'")
          .hasMessageContaining("'x12'")
          .hasMessageContaining("BIGINT")
          .hasMessageContaining("ignore_errors");
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT price FROM t"))
          .hasMessageContaining("line 13")
          .hasMessageContaining("column 'price'");
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT dt FROM t"))
          .hasMessageContaining("line 14")
          .hasMessageContaining("column 'dt'");
      // The error leaves the session working.
      assertThat(SameRows.quiver(ctx, "SELECT 1")).containsExactly("1");
    }
  }

  /** DuckDB reading {@link #badFile}: text fields, short lines skipped, TRY_CAST per value. */
  public static String badFileLikeIgnoreErrors(Path f) {
    return "SELECT TRY_CAST(id AS BIGINT) AS id, TRY_CAST(price AS DOUBLE) AS price,"
        + " TRY_CAST(dt AS DATE) AS dt FROM read_csv('"
        + f
        + "', header = true, all_varchar = true, ignore_errors = true)";
  }

  /** Queries over {@link #badFile} read with ignore_errors. */
  public static final String[] BAD_QUERIES = {
    "SELECT id, price, dt FROM t ORDER BY coalesce(id, 0)",
    "SELECT count(*) AS n, count(id) AS i, count(price) AS p, count(dt) AS d FROM t"
  };

  @Test
  void ignoreErrorsReadsBadValuesAsNullLikeDuckDbTryCast() throws Exception {
    Path f = badFile();
    String view = badFileLikeIgnoreErrors(f);
    String[] queries = BAD_QUERIES;
    for (int partitions : new int[] {1, 4}) {
      try (SessionContext ctx =
          new SessionContext(new SessionConfig().withTargetPartitions(partitions))) {
        ctx.registerCsv(
            "t", f.toString(), CsvOptions.DEFAULT.withInferenceRows(5).withIgnoreErrors(true));
        for (String sql : queries) {
          SameRows.same(SameRows.duckdb("t", view, sql), SameRows.quiver(ctx, sql), sql);
        }
        assertThat(SameRows.quiver(ctx, queries[1])).containsExactly("14|13|13|13");
      }
    }
  }
}
