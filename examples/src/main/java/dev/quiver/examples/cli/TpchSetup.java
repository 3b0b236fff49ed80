package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchIceberg;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the TPC-H commands share ({@code quiver tpch} and the benchmark harness's {@code bench}):
 * data preparation, query and thread choice, table registration.
 */
public final class TpchSetup {
  /** How the TPC-H tables are stored. */
  public enum TableFormat {
    /** The generated Parquet folders. */
    parquet,
    /** Iceberg tables written from them ({@link TpchIceberg}). */
    iceberg
  }

  /** The name the default warehouse folder is attached as. */
  public static final String WAREHOUSE_CATALOG = "tpch";

  private TpchSetup() {}

  /**
   * The data folder ({@code data}, or the default one for the scale factor), generated first unless
   * it is already complete.
   */
  public static Path prepareData(double scaleFactor, Path data, PrintWriter out) {
    Path dir = data != null ? data : TpchData.defaultDirectory(scaleFactor);
    if (!TpchData.isComplete(dir, scaleFactor)) {
      out.printf("generating TPC-H SF %s into %s ...%n", TpchData.formatScale(scaleFactor), dir);
      out.flush();
      long start = System.nanoTime();
      TpchData.generate(scaleFactor, dir);
      out.printf("generated in %.1f s%n", (System.nanoTime() - start) / 1e9);
      out.flush();
    }
    return dir;
  }

  /** The queries with the given numbers, or all 22 when {@code numbers} is null. */
  public static List<TpchQuery> selectQueries(List<Integer> numbers) {
    return numbers == null ? TpchQueries.all() : TpchQueries.select(numbers);
  }

  /** {@code threads}, or the number of cores when it is null. */
  public static int threadsOrCores(Integer threads) {
    return threads != null ? threads : Runtime.getRuntime().availableProcessors();
  }

  /** Registers every TPC-H table of {@code dir} with {@code engine}; closes it on failure. */
  public static Engine registerTables(Engine engine, Path dir) {
    return Engine.withTables(
        engine,
        e -> {
          for (String table : TpchData.TABLES) {
            e.registerParquet(table, TpchData.tableDirectory(dir, table));
          }
        });
  }

  /** Attaches the warehouse folder {@code data/iceberg} as catalog {@link #WAREHOUSE_CATALOG}. */
  public static void attachWarehouse(SessionContext ctx, Path data) {
    ctx.attachCatalog(
        WAREHOUSE_CATALOG,
        "iceberg",
        TpchIceberg.defaultWarehouse(data).toAbsolutePath().toString(),
        Map.of());
  }

  /**
   * Writes the Iceberg tables that catalog {@code catalog} of {@code ctx} lacks from the Parquet
   * folders of {@code data}, then registers the eight under their plain names.
   */
  public static void loadIceberg(
      SessionContext ctx, String catalog, double scaleFactor, Path data, PrintWriter out) {
    String namespace = TpchIceberg.namespace(scaleFactor);
    TpchIceberg.load(ctx, catalog, namespace, data, out);
    TpchIceberg.register(ctx, catalog, namespace);
  }

  /**
   * Writes the Iceberg tables missing from the warehouse folder {@code data/iceberg}, on a session
   * of its own with {@code threads} partitions; returns the warehouse.
   */
  public static Path prepareIceberg(double scaleFactor, Path data, int threads, PrintWriter out) {
    try (SessionContext ctx =
        new SessionContext(new SessionConfig().withTargetPartitions(threads))) {
      attachWarehouse(ctx, data);
      TpchIceberg.load(ctx, WAREHOUSE_CATALOG, TpchIceberg.namespace(scaleFactor), data, out);
    }
    return TpchIceberg.defaultWarehouse(data);
  }

  /**
   * Registers every TPC-H table of the warehouse folder {@code warehouse} (see {@link
   * #prepareIceberg}) with {@code engine}; closes it on failure.
   */
  public static Engine registerIcebergTables(Engine engine, Path warehouse, double scaleFactor) {
    String namespace = TpchIceberg.namespace(scaleFactor);
    return Engine.withTables(
        engine,
        e -> {
          for (String table : TpchData.TABLES) {
            e.registerIceberg(table, TpchIceberg.tableLocation(warehouse, namespace, table));
          }
        });
  }
}
