package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.Row;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Parquet FLOAT column (DuckDB's FLOAT, written by DuckDB) reads as DOUBLE, exactly widened,
 * wherever it goes: selected as is, filtered, in a UNION with a DOUBLE, aggregated. {@code SELECT
 * f} once failed planning (the scan returned 4-byte floats where the query said DOUBLE) and a UNION
 * failed on the vectors' classes.
 */
@Timeout(60)
class ParquetFloatColumnsTest {
  @TempDir Path tmp;

  @Test
  void floatColumnsAnswerAsDuckDbsDoublesOfThem() throws Exception {
    Path file = tmp.resolve("f.parquet");
    String[] queries = {
      "SELECT i, f, g FROM t ORDER BY i",
      "SELECT i, f FROM t WHERE f > 0.3 ORDER BY i",
      "SELECT x FROM (SELECT f AS x FROM t UNION ALL SELECT CAST(1.5 AS DOUBLE)) u ORDER BY x",
      "SELECT count(*), sum(f), min(g), max(g) FROM t",
      "SELECT g, count(*) FROM t GROUP BY g ORDER BY g"
    };
    List<List<String>> expected = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE t AS SELECT i, CASE WHEN i % 5 = 4 THEN NULL ELSE CAST(i AS FLOAT) / 3 END"
              + " AS f, CAST(i % 3 AS FLOAT) + 0.1::FLOAT AS g FROM range(40) r(i)");
      s.execute("COPY t TO '" + file + "' (FORMAT PARQUET)");
      // Quiver's REAL is DOUBLE: DuckDB's answers over the same values widened.
      s.execute(
          "CREATE OR REPLACE TABLE t AS SELECT i, CAST(f AS DOUBLE) AS f, CAST(g AS DOUBLE) AS g"
              + " FROM t");
      for (String q : queries) {
        expected.add(rows(s.executeQuery(q)));
      }
    }
    try (SessionContext ctx = new SessionContext()) {
      ctx.registerParquet("t", file.toString());
      for (int i = 0; i < queries.length; i++) {
        List<String> actual = new ArrayList<>();
        for (Row r : ctx.sql(queries[i]).rows()) {
          StringBuilder line = new StringBuilder();
          for (int k = 0; k < r.size(); k++) {
            line.append(k == 0 ? "" : "|").append(text(r.get(k)));
          }
          actual.add(line.toString());
        }
        assertThat(actual).as(queries[i]).isEqualTo(expected.get(i));
      }
    }
  }

  @Test
  void aCsvColumnTypedRealReadsAsDouble() throws Exception {
    // It was a 4-byte float column, which the query (REAL is DOUBLE) failed to plan.
    Path csv = tmp.resolve("r.csv");
    java.nio.file.Files.writeString(csv, "a,b\n0.5,1\n2.25,2\n");
    try (SessionContext ctx = new SessionContext()) {
      List<String> actual = new ArrayList<>();
      for (Row r :
          ctx.sql("SELECT * FROM read_csv('" + csv + "', types => 'a:REAL') ORDER BY b").rows()) {
        actual.add(text(r.get(0)) + "|" + text(r.get(1)));
      }
      assertThat(actual).containsExactly("0.5|1", "2.25|2");
    }
  }

  private static List<String> rows(ResultSet r) throws Exception {
    List<String> out = new ArrayList<>();
    int n = r.getMetaData().getColumnCount();
    while (r.next()) {
      StringBuilder line = new StringBuilder();
      for (int k = 1; k <= n; k++) {
        line.append(k == 1 ? "" : "|").append(text(r.getObject(k)));
      }
      out.add(line.toString());
    }
    return out;
  }

  /** Numbers by value (DuckDB's JDBC returns doubles, longs and BigIntegers as it likes). */
  private static String text(Object o) {
    if (o == null) {
      return "NULL";
    }
    if (o instanceof Number n && !(o instanceof Double) && !(o instanceof Float)) {
      return Long.toString(n.longValue());
    }
    return o instanceof Number n ? Double.toString(n.doubleValue()) : o.toString();
  }
}
