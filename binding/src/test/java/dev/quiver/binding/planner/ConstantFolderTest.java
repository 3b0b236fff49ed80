package dev.quiver.binding.planner;

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

/** Constants folded at planning time equal what DuckDB computes for them. */
@Timeout(60)
class ConstantFolderTest {
  @Test
  void negativeZeroKeepsItsSign() throws Exception {
    // A BigDecimal literal has no -0.0: folded to one, CAST('-0.0' AS DOUBLE) showed 0.0.
    String query =
        "SELECT CAST('-0.0' AS DOUBLE) AS a, -CAST(0 AS DOUBLE) AS b, 0.0E0 * -1 AS c,"
            + " CAST('0.0' AS DOUBLE) AS d";
    List<String> expected = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(query)) {
      r.next();
      for (int i = 1; i <= 4; i++) {
        expected.add(Double.toString(r.getDouble(i)));
      }
    }
    List<String> actual = new ArrayList<>();
    try (SessionContext ctx = new SessionContext()) {
      Row row = ctx.sql(query).rows().get(0);
      for (int i = 0; i < 4; i++) {
        actual.add(Double.toString((Double) row.get(i)));
      }
    }
    assertThat(expected).containsExactly("-0.0", "-0.0", "-0.0", "0.0");
    assertThat(actual).isEqualTo(expected);
  }
}
