package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.Row;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A negated approximate zero literal is -0.0 as in DuckDB, its text too (issue 38). */
@Timeout(60)
class NegativeZerosTest {
  // Values, then their text; 1e10's text once was Java's 1.0E10 (issue 38 item 3).
  private static final String QUERY =
      "SELECT -0.0E0 AS a, -(0.0E0) AS b, - -0.0E0 AS c, 1 - 0.0E0 AS d, 0.0E0 AS e,"
          + " (-0E0) * 2 AS f, CAST(-0.0E0 AS VARCHAR) AS g, CAST(1e10 AS DOUBLE) AS h,"
          + " CAST(CAST(1e10 AS DOUBLE) AS VARCHAR) AS i, CAST(x AS VARCHAR) AS j"
          + " FROM (VALUES (-0.0E0), (0.5E0)) AS t(x) ORDER BY x";

  @Test
  void negatedApproximateZeroLiteralsEqualDuckDb() throws Exception {
    List<String> expected = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(QUERY)) {
      while (r.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= 10; i++) {
          Object v = r.getObject(i);
          row.append(i == 1 ? "" : "|").append(v instanceof Double d ? Double.toString(d) : v);
        }
        expected.add(row.toString());
      }
    }
    List<String> actual = new ArrayList<>();
    try (SessionContext ctx = new SessionContext()) {
      for (Row row : ctx.sql(QUERY).rows()) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < 10; i++) {
          line.append(i == 0 ? "" : "|").append(row.get(i));
        }
        actual.add(line.toString());
      }
    }
    assertThat(expected)
        .containsExactly(
            "-0.0|-0.0|0.0|1.0|0.0|-0.0|-0.0|1.0E10|10000000000.0|-0.0",
            "-0.0|-0.0|0.0|1.0|0.0|-0.0|-0.0|1.0E10|10000000000.0|0.5");
    assertThat(actual).isEqualTo(expected);
  }
}
