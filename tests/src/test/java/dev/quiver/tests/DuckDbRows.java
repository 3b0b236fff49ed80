package dev.quiver.tests;

import dev.quiver.examples.engine.DuckDbEngine;
import dev.quiver.examples.tpch.TpchData;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** DuckDB (in-memory, JDBC) with views over the TPC-H Parquet files: the reference engine. */
final class DuckDbRows implements RowEngine {
  private final DuckDbEngine engine;

  DuckDbRows(Path tpchDir, int threads) {
    this.engine = new DuckDbEngine(threads);
    for (String table : TpchData.TABLES) {
      engine.registerParquet(table, TpchData.tableDirectory(tpchDir, table));
    }
  }

  @Override
  public String name() {
    return "duckdb";
  }

  @Override
  public QueryResult query(String sql) {
    try (Statement s = engine.connection().createStatement();
        ResultSet rs = s.executeQuery(sql)) {
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
      while (rs.next()) {
        List<Object> row = new ArrayList<>(n);
        for (int c = 1; c <= n; c++) {
          Object v = date[c - 1] ? rs.getObject(c, LocalDate.class) : rs.getObject(c);
          row.add(Values.fromJdbc(v));
        }
        rows.add(row);
      }
      return new QueryResult(columns, floating, rows);
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB failed: " + e.getMessage() + "\n" + sql, e);
    }
  }

  @Override
  public void close() {
    engine.close();
  }
}
