package dev.quiver.examples.cli;

import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.engine.Engines;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** What the TPC-H commands share: data preparation, query and thread choice, engine setup. */
final class TpchSetup {
  private TpchSetup() {}

  /** The error for an engine name that {@link Engines} does not know. */
  static ParameterException unknownEngine(CommandSpec spec, String name) {
    return new ParameterException(spec.commandLine(), Engines.unavailableReason(name));
  }

  /**
   * The data folder ({@code data}, or the default one for the scale factor), generated first
   * unless it is already complete.
   */
  static Path prepareData(double scaleFactor, Path data, PrintWriter out) {
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
  static List<TpchQuery> selectQueries(List<Integer> numbers) {
    return numbers == null ? TpchQueries.all() : TpchQueries.select(numbers);
  }

  /** {@code threads}, or the number of cores when it is null. */
  static int threadsOrCores(Integer threads) {
    return threads != null ? threads : Runtime.getRuntime().availableProcessors();
  }

  /** Creates the engine {@code name} with every TPC-H table of {@code dir} registered. */
  static Engine openEngine(String name, int threads, Path dir) {
    return registerTables(Engines.create(name, threads), dir);
  }

  /** Registers every TPC-H table of {@code dir} with {@code engine}; closes it on failure. */
  static Engine registerTables(Engine engine, Path dir) {
    try {
      for (String table : TpchData.TABLES) {
        engine.registerParquet(table, TpchData.tableDirectory(dir, table));
      }
    } catch (RuntimeException e) {
      try {
        engine.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return engine;
  }
}
