package dev.quiver.benchmarks.bench;

import dev.quiver.examples.cli.TpchSetup;
import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What {@code bench} times: named queries over tables it registers with each engine. Either the
 * TPC-H suite or a folder of {@code .sql} files over a folder of tables ({@link QueryFolder}).
 */
interface Workload {
  /** One timed query: a short name for the table's first column, and its SQL text. */
  record NamedQuery(String name, String sql) {}

  /** The queries, in the order they are timed and printed. */
  List<NamedQuery> queries();

  /** Registers every table with {@code engine}; closes it and rethrows on failure. */
  Engine registerTables(Engine engine);

  /** TPC-H queries over the eight tables' Parquet folders in {@code dir}. */
  static Workload tpch(Path dir, List<TpchQuery> selected) {
    return tpch(selected, engine -> TpchSetup.registerTables(engine, dir));
  }

  /**
   * TPC-H queries over the eight Iceberg tables of scale factor {@code scaleFactor} in the
   * warehouse folder {@code warehouse} ({@link TpchSetup#prepareIceberg}).
   */
  static Workload tpchIceberg(Path warehouse, double scaleFactor, List<TpchQuery> selected) {
    return tpch(
        selected, engine -> TpchSetup.registerIcebergTables(engine, warehouse, scaleFactor));
  }

  private static Workload tpch(List<TpchQuery> selected, UnaryOperator<Engine> registration) {
    List<NamedQuery> queries =
        selected.stream().map(q -> new NamedQuery(q.name(), q.sql())).toList();
    return new Workload() {
      @Override
      public List<NamedQuery> queries() {
        return queries;
      }

      @Override
      public Engine registerTables(Engine engine) {
        return registration.apply(engine);
      }
    };
  }
}
