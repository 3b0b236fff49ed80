package dev.quiver.benchmarks.engine;

import dev.quiver.examples.engine.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * DuckDB in process over JDBC ({@code jdbc:duckdb:} in memory), with views over Parquet and CSV
 * files.
 */
public final class DuckDbEngine implements Engine {
  private final Connection connection;

  /** Opens an in-memory database limited to {@code threads} threads. */
  public DuckDbEngine(int threads) {
    try {
      this.connection = DriverManager.getConnection("jdbc:duckdb:");
      try (Statement s = connection.createStatement()) {
        s.execute("SET threads TO " + Math.max(1, threads));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot start DuckDB: " + e.getMessage(), e);
    }
  }

  /** The JDBC connection, for callers that read values rather than count rows. */
  public Connection connection() {
    return connection;
  }

  /** The DuckDB table expression reading a Parquet file or every Parquet file of a folder. */
  public static String parquetSource(Path path) {
    String p = path.toAbsolutePath().toString();
    if (Files.isDirectory(path)) {
      p = p + "/*.parquet";
    }
    return "read_parquet('" + p.replace("'", "''") + "')";
  }

  /** The DuckDB table expression reading a CSV file or every CSV file of a folder. */
  static String csvSource(Path path) {
    String p = path.toAbsolutePath().toString();
    if (Files.isDirectory(path)) {
      p = p + "/*.csv";
    }
    return "read_csv('" + p.replace("'", "''") + "', header = true)";
  }

  @Override
  public String name() {
    return "duckdb";
  }

  @Override
  public void registerParquet(String table, Path path) {
    createView(table, path, parquetSource(path));
  }

  @Override
  public void registerCsv(String table, Path path) {
    createView(table, path, csvSource(path));
  }

  private void createView(String table, Path path, String source) {
    try (Statement s = connection.createStatement()) {
      s.execute(
          "CREATE OR REPLACE VIEW \""
              + table.replace("\"", "\"\"")
              + "\" AS SELECT * FROM "
              + source);
    } catch (SQLException e) {
      throw new IllegalArgumentException(
          "DuckDB cannot register " + path + " as " + table + ": " + e.getMessage(), e);
    }
  }

  @Override
  public long execute(String sql) {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      // next() fetches DuckDB's result chunks into the JVM, as collect() does for Quiver.
      long rows = 0;
      while (rs.next()) {
        rows++;
      }
      return rows;
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB query failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot close DuckDB: " + e.getMessage(), e);
    }
  }
}
