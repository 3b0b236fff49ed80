package dev.quiver.tests.fuzz;

import dev.quiver.tests.DuckDbRows;
import dev.quiver.tests.QueryResult;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** DuckDB in memory over JDBC: the reference engine. */
final class DuckDbFuzzEngine implements FuzzEngine {
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
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  @Override
  public QueryResult query(String sql) {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return DuckDbRows.read(rs);
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
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
