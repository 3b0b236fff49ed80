package dev.quiver.benchmarks.bench;

import dev.quiver.benchmarks.engine.Engines;
import dev.quiver.examples.cli.QuiverCli;
import dev.quiver.examples.cli.TpchSetup;
import dev.quiver.examples.engine.EmbeddedQuiverEngine;
import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.engine.QuiverEngine;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bench}: runs TPC-H queries on several engines in this process over the same Parquet
 * files and compares the median times: per query the median of {@code --runs} runs after one
 * warm-up, in total the sum of the per-query medians, and the ratios of the totals.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Times TPC-H queries on several engines over the same Parquet files.")
public final class BenchCommand implements Callable<Integer> {
  @Spec private CommandSpec spec;

  @Option(
      names = "--sf",
      defaultValue = "1",
      description = "Scale factor (default: ${DEFAULT-VALUE}).")
  private double scaleFactor;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Data folder (default: ./data/tpch-sf<sf>).")
  private Path data;

  @Option(
      names = "--engines",
      split = ",",
      defaultValue = "quiver,duckdb",
      description =
          "Engines to compare: quiver, quiver-embedded2 (a cluster of 2 executors in this"
              + " process), duckdb, spark (builds with the spark profile) (default:"
              + " ${DEFAULT-VALUE}).")
  private List<String> engines;

  @Option(
      names = "--runs",
      defaultValue = "3",
      description =
          "Timed runs per query after one warm-up; the median is reported (default:"
              + " ${DEFAULT-VALUE}).")
  private int runs;

  @Option(
      names = "--warmup-passes",
      defaultValue = "1",
      description =
          "Untimed passes over all selected queries on each engine before any is timed, so that"
              + " a JVM engine's shared kernels are compiled (default: ${DEFAULT-VALUE}).")
  private int warmupPasses;

  @Option(
      names = "--queries",
      split = ",",
      paramLabel = "N",
      description = "Query numbers, e.g. 1,3,5 (default: all 22).")
  private List<Integer> queries;

  @Option(
      names = "--threads",
      description = "Threads (Quiver partitions) for every engine (default: number of cores).")
  private Integer threads;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "A session setting for the Quiver engines, e.g. quiver.shuffle.compression=zstd"
              + " (repeatable).")
  private Map<String, String> settings = new LinkedHashMap<>();

  @Override
  public Integer call() {
    if (runs < 1) {
      throw new ParameterException(spec.commandLine(), "--runs must be at least 1, got " + runs);
    }
    if (warmupPasses < 0) {
      throw new ParameterException(
          spec.commandLine(), "--warmup-passes must be at least 0, got " + warmupPasses);
    }
    if (engines.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--engines needs at least one engine");
    }
    for (String e : engines) {
      if (Engines.unavailableReason(e) != null) {
        throw new ParameterException(spec.commandLine(), Engines.unavailableReason(e));
      }
    }
    engines = engines.stream().map(e -> e.trim().toLowerCase(Locale.ROOT)).toList();
    PrintWriter out = spec.commandLine().getOut();
    Path dir = TpchSetup.prepareData(scaleFactor, data, out);
    int n = TpchSetup.threadsOrCores(threads);
    List<TpchQuery> selected = TpchSetup.selectQueries(queries);

    // medians[e][q] in milliseconds; NaN when the query failed on that engine.
    double[][] medians = new double[engines.size()][selected.size()];
    List<String> errors = new ArrayList<>();
    for (int e = 0; e < engines.size(); e++) {
      try (Engine engine = TpchSetup.registerTables(Engines.create(engines.get(e), n), dir)) {
        if (engines.get(e).startsWith(QuiverEngine.NAME)) {
          settings.forEach(engine::set);
        }
        for (int pass = 0; pass < warmupPasses; pass++) {
          for (TpchQuery query : selected) {
            try {
              engine.execute(query.sql());
            } catch (RuntimeException ex) {
              // The timed runs below report the failure.
            }
          }
        }
        for (int q = 0; q < selected.size(); q++) {
          TpchQuery query = selected.get(q);
          try {
            medians[e][q] = median(engine, query.sql(), runs);
          } catch (RuntimeException ex) {
            medians[e][q] = Double.NaN;
            errors.add(engine.name() + " " + query.name() + ": " + QuiverCli.oneLine(ex));
          }
        }
      }
    }
    double[] totals = print(out, selected, medians);
    errors.forEach(msg -> out.println("failed: " + msg));
    printRatios(out, totals);
    out.flush();
    return errors.isEmpty() ? 0 : QuiverCli.EXIT_FAILURE;
  }

  private static double median(Engine engine, String sql, int runs) {
    engine.execute(sql); // warm-up
    double[] times = new double[runs];
    for (int i = 0; i < runs; i++) {
      long start = System.nanoTime();
      engine.execute(sql);
      times[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(times);
    return runs % 2 == 1 ? times[runs / 2] : (times[runs / 2 - 1] + times[runs / 2]) / 2;
  }

  /**
   * The total ratios to print, numerator first: Quiver against DuckDB and Spark, and the embedded
   * cluster against in-process Quiver, for the engines that ran; else the first two engines.
   */
  private List<String[]> ratioPairs() {
    List<String[]> pairs = new ArrayList<>();
    String[][] wanted = {
      {QuiverEngine.NAME, "duckdb"},
      {QuiverEngine.NAME, Engines.SPARK},
      {EmbeddedQuiverEngine.NAME, QuiverEngine.NAME}
    };
    for (String[] pair : wanted) {
      if (engines.contains(pair[0]) && engines.contains(pair[1])) {
        pairs.add(pair);
      }
    }
    if (pairs.isEmpty() && engines.size() >= 2) {
      pairs.add(new String[] {engines.get(0), engines.get(1)});
    }
    return pairs;
  }

  /** Prints the table and its total line; returns the totals per engine. */
  private double[] print(PrintWriter out, List<TpchQuery> selected, double[][] medians) {
    boolean ratio = engines.size() >= 2;
    int width = 12;
    for (String e : engines) {
      width = Math.max(width, e.length() + 3);
    }
    String text = "  %" + width + "s";
    String number = "  %" + width + ".1f";
    String ratioName = ratio ? engines.get(0) + "/" + engines.get(1) : "";
    StringBuilder header = new StringBuilder(String.format("%-6s", "query"));
    for (String e : engines) {
      header.append(String.format(text, e + " ms"));
    }
    if (ratio) {
      header.append(String.format("  %14s", ratioName));
    }
    out.println(header);
    double[] totals = new double[engines.size()];
    for (int q = 0; q < selected.size(); q++) {
      StringBuilder line = new StringBuilder(String.format("%-6s", selected.get(q).name()));
      boolean allOk = true;
      for (int e = 0; e < engines.size(); e++) {
        double ms = medians[e][q];
        allOk &= !Double.isNaN(ms);
        line.append(
            Double.isNaN(ms) ? String.format(text, "failed") : String.format(number, ms));
      }
      if (allOk) {
        // Totals only count queries every engine finished, so that they stay comparable.
        for (int e = 0; e < engines.size(); e++) {
          totals[e] += medians[e][q];
        }
      }
      if (ratio) {
        line.append(
            allOk
                ? String.format("  %14.2f", medians[0][q] / medians[1][q])
                : String.format("  %14s", "-"));
      }
      out.println(line);
    }
    StringBuilder total = new StringBuilder(String.format("%-6s", "total"));
    for (double t : totals) {
      total.append(String.format(number, t));
    }
    out.println(total);
    return totals;
  }

  /** The final lines: one per total ratio. */
  private void printRatios(PrintWriter out, double[] totals) {
    for (String[] pair : ratioPairs()) {
      int num = engines.indexOf(pair[0]);
      int den = engines.indexOf(pair[1]);
      String value = totals[den] > 0 ? String.format("%.2f", totals[num] / totals[den]) : "n/a";
      out.println("total ratio " + pair[0] + "/" + pair[1] + ": " + value);
    }
  }
}
