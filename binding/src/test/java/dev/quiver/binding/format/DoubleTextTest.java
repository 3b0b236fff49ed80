package dev.quiver.binding.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Doubles and floats as text ({@code CAST(x AS VARCHAR)}, CSV files) equal DuckDB's over special
 * values, powers of ten around the switch to exponent form and random bit patterns; Java's {@code
 * 1.0E10} once showed where DuckDB writes {@code 10000000000.0}.
 */
@Timeout(120)
class DoubleTextTest {
  @TempDir Path tmp;

  @Test
  void knownValues() {
    assertThat(DoubleText.of(1e10)).isEqualTo("10000000000.0");
    assertThat(DoubleText.of(1e15)).isEqualTo("1000000000000000.0");
    assertThat(DoubleText.of(1e16)).isEqualTo("1e+16");
    assertThat(DoubleText.of(1e20)).isEqualTo("1e+20");
    assertThat(DoubleText.of(1.5e-7)).isEqualTo("1.5e-07");
    assertThat(DoubleText.of(0.0001)).isEqualTo("0.0001");
    assertThat(DoubleText.of(-1e-5)).isEqualTo("-1e-05");
    assertThat(DoubleText.of(1e300)).isEqualTo("1e+300");
    assertThat(DoubleText.of(-0.0)).isEqualTo("-0.0");
    assertThat(DoubleText.of(Double.NaN)).isEqualTo("nan");
    assertThat(DoubleText.of(Double.NEGATIVE_INFINITY)).isEqualTo("-inf");
    // Java 17 prints 2.0E-3 as 0.0020 and some values with digits they do not need.
    assertThat(DoubleText.of(2e-3)).isEqualTo("0.002");
    assertThat(DoubleText.of(2.82879384806159E17)).isEqualTo("2.82879384806159e+17");
    assertThat(DoubleText.of(0.1f)).isEqualTo("0.1");
  }

  @Test
  void castAndCsvEqualDuckDb() throws Exception {
    List<Double> values = new ArrayList<>();
    for (double d :
        new double[] {
          0.0,
          -0.0,
          1,
          -1,
          0.1,
          1.0 / 3,
          2.5,
          100,
          1e10,
          1e15,
          1e16,
          1e17,
          1e20,
          1e21,
          1e22,
          1e23,
          1.5e-7,
          1e-4,
          1e-5,
          1.23e-5,
          0.000123,
          123456789012345678.0,
          12345678.9,
          9007199254740993.0,
          Double.MAX_VALUE,
          Double.MIN_VALUE,
          Double.MIN_NORMAL,
          1e300,
          1e-300,
          Double.NaN,
          Double.POSITIVE_INFINITY,
          Double.NEGATIVE_INFINITY,
          2.82879384806159E17
        }) {
      values.add(d);
    }
    Random random = new Random(38);
    for (int i = 0; i < 200; i++) {
      double d = Double.longBitsToDouble(random.nextLong());
      if (!Double.isNaN(d)) {
        values.add(d);
      }
      values.add((random.nextInt(2_000_001) - 1_000_000) * Math.pow(10, random.nextInt(50) - 25));
      values.add(random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20));
      values.add((double) Float.intBitsToFloat(random.nextInt()));
    }
    // INSERTs of 50 rows each: the planner's predicates over one VALUES of thousands are slow.
    List<String> inserts = new ArrayList<>();
    StringBuilder rows = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      double d = values.get(i);
      String text =
          Double.isNaN(d)
              ? "nan"
              : Double.isInfinite(d) ? (d > 0 ? "inf" : "-inf") : Double.toString(d);
      boolean fitsFloat = Double.isNaN(d) || Double.isInfinite(d) || (float) d == d;
      rows.append(rows.length() == 0 ? "" : ", ")
          .append("(")
          .append(i)
          .append(", CAST('")
          .append(text)
          .append("' AS DOUBLE), ")
          .append(fitsFloat ? "CAST(CAST('" + text + "' AS DOUBLE) AS REAL)" : "NULL")
          .append(")");
      if (i % 50 == 49 || i == values.size() - 1) {
        inserts.add("INSERT INTO d VALUES " + rows);
        rows.setLength(0);
      }
    }
    String create = "CREATE TABLE d (i INTEGER, x DOUBLE, f REAL)";
    String query =
        "SELECT i, CAST(x AS VARCHAR) AS x, CAST(f AS VARCHAR) AS f, CAST(-x AS VARCHAR) AS nx"
            + " FROM d ORDER BY i";
    // Quiver computes REAL as DOUBLE and reads a Parquet FLOAT column widened (exactly): its text
    // is the double's, which DuckDB writes for CAST(f AS DOUBLE).
    String duckQuery = query.replace("CAST(f AS VARCHAR)", "CAST(CAST(f AS DOUBLE) AS VARCHAR)");
    Path quiverCsv = tmp.resolve("quiver.csv");
    Path duckCsv = tmp.resolve("duck.csv");
    // Quiver reads DuckDB's table from Parquet: its SQL has no 4-byte float type (REAL and FLOAT
    // are DOUBLE, as in Calcite), but a Parquet FLOAT column is one.
    Path parquet = tmp.resolve("d.parquet");
    List<String> expected = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(create);
      for (String insert : inserts) {
        s.execute(insert);
      }
      try (ResultSet r = s.executeQuery(duckQuery)) {
        while (r.next()) {
          expected.add(
              r.getInt(1) + "|" + r.getString(2) + "|" + r.getString(3) + "|" + r.getString(4));
        }
      }
      s.execute(
          "COPY (SELECT x, CAST(f AS DOUBLE) AS f FROM d ORDER BY i) TO '"
              + duckCsv
              + "' (HEADER)");
      s.execute("COPY d TO '" + parquet + "' (FORMAT PARQUET)");
    }
    List<String> actual = new ArrayList<>();
    try (SessionContext ctx = new SessionContext()) {
      ctx.registerParquet("d", parquet.toString());
      for (Row row : ctx.sql(query).rows()) {
        actual.add(row.get(0) + "|" + row.get(1) + "|" + row.get(2) + "|" + row.get(3));
      }
      ctx.sql("COPY (SELECT x, f FROM d ORDER BY i) TO '" + quiverCsv + "' (FORMAT CSV, HEADER)")
          .rows();
    }
    assertThat(actual).hasSize(values.size());
    List<String> differences = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      if (!actual.get(i).equals(expected.get(i))) {
        differences.add(
            values.get(i) + ": quiver " + actual.get(i) + ", duckdb " + expected.get(i));
      }
    }
    assertThat(differences).isEmpty();
    // COPY of the Parquet FLOAT column once wrote wrong values (its schema said DOUBLE while its
    // vector held 4-byte floats), and SELECT f failed planning.
    assertThat(Files.readAllLines(quiverCsv)).isEqualTo(Files.readAllLines(duckCsv));
  }
}
