package dev.quiver.tests.fuzz;

import dev.quiver.tests.DuckDbRows;
import dev.quiver.tests.QueryResult;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * DuckDB in memory over JDBC: the reference engine. It reads the fuzzer's Parquet files with their
 * FLOAT columns cast to DOUBLE, as Quiver reads them (README, Parquet types).
 */
final class DuckDbFuzzEngine implements FuzzEngine {
  private static final Pattern READ_PARQUET = Pattern.compile("read_parquet\\('(?:[^']|'')*'\\)");
  private static final String AS_DOUBLE =
      FuzzTables.FILE_TYPES.entrySet().stream()
          .filter(e -> e.getValue().equals("FLOAT"))
          .map(e -> "CAST(" + e.getKey() + " AS DOUBLE) AS " + e.getKey())
          .sorted()
          .collect(Collectors.joining(", "));

  private final Connection connection;

  DuckDbFuzzEngine() {
    try {
      connection = DriverManager.getConnection("jdbc:duckdb:");
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot open DuckDB", e);
    }
  }

  @Override
  public String name() {
    return "duckdb";
  }

  @Override
  public void execute(String sql) {
    try (Statement s = connection.createStatement()) {
      s.execute(floatsAsDoubles(sql));
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public QueryResult query(String sql) {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(floatsAsDoubles(sql))) {
      return DuckDbRows.read(rs);
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** {@code sql} with every {@code read_parquet('f')} reading FLOAT columns as DOUBLE. */
  static String floatsAsDoubles(String sql) {
    return READ_PARQUET
        .matcher(sql)
        .replaceAll(
            m ->
                Matcher.quoteReplacement(
                    "(SELECT * REPLACE (" + AS_DOUBLE + ") FROM " + m.group() + ")"));
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot close DuckDB", e);
    }
  }
}
