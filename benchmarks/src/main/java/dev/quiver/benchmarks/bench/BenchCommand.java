package dev.quiver.benchmarks.bench;

import dev.quiver.benchmarks.engine.Engines;
import dev.quiver.examples.cli.QuiverCli;
import dev.quiver.examples.cli.TpchSetup;
import dev.quiver.examples.engine.EmbeddedQuiverEngine;
import dev.quiver.examples.engine.Engine;
import dev.quiver.examples.engine.QuiverEngine;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code bench}: runs TPC-H queries, or the {@code .sql} files of a folder ({@link QueryFolder}),
 * on several engines in this process over the same files and compares the median times: per query
 * the median of {@code --runs} runs after one warm-up, in total the sum of the per-query medians,
 * and the ratios of the totals.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Times TPC-H queries, or a folder of .sql files, on several engines over the same files.")
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
      description =
          "Data folder (default: ./data/tpch-sf<sf>). With --queries DIR: the tables, one"
              + " sub-folder of .parquet or .csv files (or one NAME.parquet / NAME.csv file)"
              + " per table.")
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
      names = "--table-formats",
      split = ",",
      defaultValue = "parquet",
      paramLabel = "FORMAT",
      description =
          "How the TPC-H tables are stored, each a column per engine: parquet (the generated"
              + " files), iceberg (Iceberg tables in the warehouse folder <data>/iceberg, written"
              + " from the Parquet files when missing; lineitem and orders partitioned by month;"
              + " its column is ENGINE+iceberg) (default: ${DEFAULT-VALUE}).")
  private List<TpchSetup.TableFormat> tableFormats;

  @Option(
      names = "--interleave",
      description =
          "Opens every engine (and table format) at once and alternates each query's runs between"
              + " them, so that a machine whose load changes during the run slows all alike"
              + " (default: one engine after the other).")
  private boolean interleave;

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
      paramLabel = "N|DIR",
      description =
          "TPC-H query numbers, e.g. 1,3,5 (default: all 22), or a folder of .sql files, each"
              + " timed as one query over the tables of --data.")
  private List<String> queries;

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

  /** The table's columns, engine by engine and format by format: ENGINE or ENGINE+FORMAT. */
  private final List<String> columns = new ArrayList<>();

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
    if (tableFormats.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--table-formats needs at least one");
    }
    PrintWriter out = spec.commandLine().getOut();
    int n = TpchSetup.threadsOrCores(threads);
    Map<TpchSetup.TableFormat, Workload> workloads = new LinkedHashMap<>();
    for (TpchSetup.TableFormat format : tableFormats) {
      workloads.put(format, workload(out, format, n));
    }
    List<String> columnEngines = new ArrayList<>();
    List<Workload> columnWorkloads = new ArrayList<>();
    for (String e : engines) {
      for (var w : workloads.entrySet()) {
        columnEngines.add(e);
        columnWorkloads.add(w.getValue());
        columns.add(w.getKey() == TpchSetup.TableFormat.parquet ? e : e + "+" + w.getKey());
      }
    }
    List<Workload.NamedQuery> selected = columnWorkloads.get(0).queries();

    // medians[c][q] in milliseconds; NaN when the query failed in that column.
    double[][] medians = new double[columns.size()][selected.size()];
    // rows[c][q]: the row count of the last run, -1 when it failed; columns must agree.
    long[][] rows = new long[columns.size()][selected.size()];
    List<String> errors = new ArrayList<>();
    // Interleaved, all columns are open at once and each query's runs alternate between them, so
    // that a machine whose load changes over the run slows every column alike.
    List<List<Integer>> groups = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      if (interleave && c > 0) {
        groups.get(0).add(c);
      } else {
        groups.add(new ArrayList<>(List.of(c)));
      }
    }
    for (List<Integer> group : groups) {
      List<Engine> open = new ArrayList<>();
      try {
        for (int c : group) {
          Engine engine =
              columnWorkloads.get(c).registerTables(Engines.create(columnEngines.get(c), n));
          open.add(engine);
          if (columnEngines.get(c).startsWith(QuiverEngine.NAME)) {
            settings.forEach(engine::set);
          }
        }
        for (Engine engine : open) {
          warmUp(engine, selected);
        }
        for (int q = 0; q < selected.size(); q++) {
          time(group, open, selected.get(q), q, medians, rows, errors);
        }
      } finally {
        open.forEach(Engine::close);
      }
    }
    double[] totals = print(out, selected, medians);
    errors.forEach(msg -> out.println("failed: " + msg));
    errors.addAll(rowCountDifferences(out, selected, rows));
    printRatios(out, totals);
    out.flush();
    return errors.isEmpty() ? 0 : QuiverCli.EXIT_FAILURE;
  }

  /**
   * The TPC-H suite (its data generated first when missing, and for {@code format} iceberg its
   * Iceberg tables written with {@code threads} partitions), or the query folder given as {@code
   * --queries DIR} over the tables of {@code --data}.
   */
  private Workload workload(PrintWriter out, TpchSetup.TableFormat format, int threads) {
    List<Integer> numbers = null;
    if (queries != null) {
      List<String> given = queries.stream().map(String::strip).toList();
      if (given.stream().allMatch(q -> q.matches("[0-9]+"))) {
        numbers = given.stream().map(Integer::valueOf).toList();
      } else if (given.size() == 1 && Files.isDirectory(Path.of(given.get(0)))) {
        if (data == null) {
          throw new ParameterException(
              spec.commandLine(),
              "--queries " + given.get(0) + " needs --data DIR, the folder of the tables");
        }
        if (format != TpchSetup.TableFormat.parquet) {
          throw new ParameterException(
              spec.commandLine(),
              "--table-formats " + format + " is for the TPC-H queries, not a folder of queries");
        }
        try {
          return QueryFolder.load(Path.of(given.get(0)), data);
        } catch (IllegalArgumentException ex) {
          throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
      } else {
        throw new ParameterException(
            spec.commandLine(),
            "--queries takes TPC-H query numbers (1,3,5) or a folder of .sql files; '"
                + String.join(",", given)
                + "' is neither");
      }
    }
    List<TpchQuery> selected = TpchSetup.selectQueries(numbers);
    Path dir = TpchSetup.prepareData(scaleFactor, data, out);
    if (format == TpchSetup.TableFormat.iceberg) {
      Path warehouse = TpchSetup.prepareIceberg(scaleFactor, dir, threads, out);
      return Workload.tpchIceberg(warehouse, scaleFactor, selected);
    }
    return Workload.tpch(dir, selected);
  }

  /**
   * Runs every selected query {@code --warmup-passes} times, untimed; failures are reported later.
   */
  private void warmUp(Engine engine, List<Workload.NamedQuery> selected) {
    for (int pass = 0; pass < warmupPasses; pass++) {
      for (Workload.NamedQuery query : selected) {
        try {
          engine.execute(query.sql());
        } catch (RuntimeException ex) {
          // The timed runs report the failure.
        }
      }
    }
  }

  /**
   * Times query {@code q} on the columns of {@code group} ({@code open} their engines): a warm-up
   * run on each, then {@code --runs} rounds of one run on each; records each column's median time
   * and its last run's row count, or NaN and -1 and an error when the query failed there.
   */
  private void time(
      List<Integer> group,
      List<Engine> open,
      Workload.NamedQuery query,
      int q,
      double[][] medians,
      long[][] rows,
      List<String> errors) {
    double[][] times = new double[group.size()][runs];
    boolean[] failed = new boolean[group.size()];
    for (int r = -1; r < runs; r++) {
      for (int i = 0; i < group.size(); i++) {
        if (failed[i]) {
          continue;
        }
        int c = group.get(i);
        try {
          long start = System.nanoTime();
          rows[c][q] = open.get(i).execute(query.sql());
          if (r >= 0) {
            times[i][r] = (System.nanoTime() - start) / 1e6;
          }
        } catch (RuntimeException ex) {
          failed[i] = true;
          rows[c][q] = -1;
          errors.add(columns.get(c) + " " + query.name() + ": " + QuiverCli.oneLine(ex));
        }
      }
    }
    for (int i = 0; i < group.size(); i++) {
      medians[group.get(i)][q] = failed[i] ? Double.NaN : median(times[i]);
    }
  }

  private static double median(double[] times) {
    Arrays.sort(times);
    int n = times.length;
    return n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  }

  /**
   * Prints a line for each query whose engines returned different row counts (a timing of a wrong
   * answer compares nothing); returns them as errors.
   */
  private List<String> rowCountDifferences(
      PrintWriter out, List<Workload.NamedQuery> selected, long[][] rows) {
    List<String> differences = new ArrayList<>();
    for (int q = 0; q < selected.size(); q++) {
      long first = -1;
      boolean differ = false;
      StringBuilder counts = new StringBuilder();
      for (int e = 0; e < columns.size(); e++) {
        if (rows[e][q] < 0) {
          continue;
        }
        differ |= first >= 0 && rows[e][q] != first;
        first = first >= 0 ? first : rows[e][q];
        counts.append(counts.length() == 0 ? "" : ", ").append(columns.get(e)).append(' ');
        counts.append(rows[e][q]);
      }
      if (differ) {
        String msg = selected.get(q).name() + " returned different row counts: " + counts;
        out.println("rows differ: " + msg);
        differences.add(msg);
      }
    }
    return differences;
  }

  /**
   * The total ratios to print, numerator first: Quiver against DuckDB and Spark, the embedded
   * cluster against in-process Quiver, and each ENGINE+FORMAT column against its engine's Parquet
   * column, for the columns there are; else the first two columns.
   */
  private List<String[]> ratioPairs() {
    List<String[]> pairs = new ArrayList<>();
    String[][] wanted = {
      {QuiverEngine.NAME, "duckdb"},
      {QuiverEngine.NAME, Engines.SPARK},
      {EmbeddedQuiverEngine.NAME, QuiverEngine.NAME}
    };
    for (String[] pair : wanted) {
      if (columns.contains(pair[0]) && columns.contains(pair[1])) {
        pairs.add(pair);
      }
    }
    for (String c : columns) {
      int plus = c.indexOf('+');
      if (plus > 0 && columns.contains(c.substring(0, plus))) {
        pairs.add(new String[] {c, c.substring(0, plus)});
      }
    }
    if (pairs.isEmpty() && columns.size() >= 2) {
      pairs.add(new String[] {columns.get(0), columns.get(1)});
    }
    return pairs;
  }

  /** Prints the table and its total line; returns the totals per engine. */
  private double[] print(PrintWriter out, List<Workload.NamedQuery> selected, double[][] medians) {
    boolean ratio = columns.size() >= 2;
    int width = 12;
    for (String e : columns) {
      width = Math.max(width, e.length() + 3);
    }
    String text = "  %" + width + "s";
    String number = "  %" + width + ".1f";
    String ratioName = ratio ? columns.get(0) + "/" + columns.get(1) : "";
    int nameWidth = 6;
    for (Workload.NamedQuery q : selected) {
      nameWidth = Math.max(nameWidth, q.name().length());
    }
    String nameColumn = "%-" + nameWidth + "s";
    StringBuilder header = new StringBuilder(String.format(nameColumn, "query"));
    for (String e : columns) {
      header.append(String.format(text, e + " ms"));
    }
    if (ratio) {
      header.append(String.format("  %14s", ratioName));
    }
    out.println(header);
    double[] totals = new double[columns.size()];
    for (int q = 0; q < selected.size(); q++) {
      StringBuilder line = new StringBuilder(String.format(nameColumn, selected.get(q).name()));
      boolean allOk = true;
      for (int e = 0; e < columns.size(); e++) {
        double ms = medians[e][q];
        allOk &= !Double.isNaN(ms);
        line.append(Double.isNaN(ms) ? String.format(text, "failed") : String.format(number, ms));
      }
      if (allOk) {
        // Totals only count queries every engine finished, so that they stay comparable.
        for (int e = 0; e < columns.size(); e++) {
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
    StringBuilder total = new StringBuilder(String.format(nameColumn, "total"));
    for (double t : totals) {
      total.append(String.format(number, t));
    }
    out.println(total);
    return totals;
  }

  /** The final lines: one per total ratio. */
  private void printRatios(PrintWriter out, double[] totals) {
    for (String[] pair : ratioPairs()) {
      int num = columns.indexOf(pair[0]);
      int den = columns.indexOf(pair[1]);
      String value = totals[den] > 0 ? String.format("%.2f", totals[num] / totals[den]) : "n/a";
      out.println("total ratio " + pair[0] + "/" + pair[1] + ": " + value);
    }
  }
}
