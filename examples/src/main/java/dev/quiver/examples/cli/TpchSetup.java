package dev.quiver.examples.cli;

import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * What the TPC-H commands share ({@code quiver tpch} and the benchmark harness's {@code bench}):
 * data preparation, query and thread choice, table registration.
 */
public final class TpchSetup {
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
}
