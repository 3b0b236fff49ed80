package dev.quiver.tests;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Quiver through {@code quiver serve} and the Arrow Flight SQL JDBC driver: the engine under test
 * when the differential suites run over JDBC. Closing closes the connection, then the owner (e.g.
 * the server process).
 */
final class JdbcRows implements RowEngine {
  private final Connection connection;
  private final AutoCloseable owner;

  JdbcRows(String url, Properties properties, AutoCloseable owner) throws SQLException {
    this.connection = DriverManager.getConnection(url, properties);
    this.owner = owner;
  }

  Connection connection() {
    return connection;
  }

  @Override
  public String name() {
    return "quiver-jdbc";
  }

  @Override
  public QueryResult query(String sql) {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      return read(rs);
    } catch (SQLException e) {
      throw new IllegalStateException("JDBC query failed: " + e.getMessage() + "\n" + sql, e);
    }
  }

  @Override
  public long execute(String sql) {
    try (Statement s = connection.createStatement()) {
      return s.executeUpdate(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("JDBC statement failed: " + e.getMessage() + "\n" + sql, e);
    }
  }

  /** Every row of {@code rs} as the comparator's plain values (any JDBC driver). */
  static QueryResult read(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    int n = md.getColumnCount();
    List<String> columns = new ArrayList<>(n);
    List<Boolean> floating = new ArrayList<>(n);
    boolean[] date = new boolean[n];
    for (int c = 1; c <= n; c++) {
      columns.add(md.getColumnLabel(c));
      int type = md.getColumnType(c);
      floating.add(type == Types.DOUBLE || type == Types.FLOAT || type == Types.REAL);
      date[c - 1] = type == Types.DATE;
    }
    List<List<Object>> rows = new ArrayList<>();
    boolean any = rs.next();
    if (!any && n % 2 == 0 && columns.subList(0, n / 2).equals(columns.subList(n / 2, n))) {
      // The 18.3 Flight SQL driver lists an empty result's columns twice (apache/arrow-java
      // GH-44, fixed in later drivers): it appends the prepared statement's columns to its own
      // signature and only replaces them when a batch with rows arrives. No server can avoid it.
      return new QueryResult(columns.subList(0, n / 2), floating.subList(0, n / 2), rows);
    }
    for (; any; any = rs.next()) {
      List<Object> row = new ArrayList<>(n);
      for (int c = 1; c <= n; c++) {
        Object v = rs.getObject(c);
        if (v != null && date[c - 1]) {
          v = rs.getObject(c, LocalDate.class); // the Flight SQL driver throws for a NULL date
        }
        row.add(Values.fromJdbc(v));
      }
      rows.add(row);
    }
    return new QueryResult(columns, floating, rows);
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IllegalStateException("closing the JDBC connection failed", e);
    } finally {
      try {
        owner.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the server failed", e);
      }
    }
  }
}
