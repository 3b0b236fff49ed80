package dev.quiver.tests;

import dev.quiver.benchmarks.engine.DuckDbEngine;
import dev.quiver.examples.tpch.TpchData;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** DuckDB (in-memory, JDBC) with views over the TPC-H Parquet files: the reference engine. */
public final class DuckDbRows implements RowEngine {
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
      return JdbcRows.read(rs);
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB failed: " + e.getMessage() + "\n" + sql, e);
    }
  }

  /** Reads every row of {@code rs} as plain Java values (for the fuzzer's own DuckDB). */
  public static QueryResult read(ResultSet rs) throws SQLException {
    return JdbcRows.read(rs);
  }

  @Override
  public long execute(String sql) {
    try (Statement s = engine.connection().createStatement()) {
      if (s.execute(sql)) {
        return -1;
      }
      return s.getUpdateCount();
    } catch (SQLException e) {
      throw new IllegalStateException("DuckDB failed: " + e.getMessage() + "\n" + sql, e);
    }
  }

  @Override
  public void close() {
    engine.close();
  }
}
