package dev.quiver.examples.cli;

import dev.quiver.examples.cluster.ClusterTarget;
import picocli.CommandLine.Mixin;

import dev.quiver.binding.DataFrame;
import dev.quiver.decorators.DistributedDataFrame;
import dev.quiver.binding.SessionConfig;
import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.format.TableFormatter;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code quiver sql}: registers Parquet and CSV files as tables and prints a query's result. */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = "Runs one SQL statement over Parquet and CSV files and prints the result.")
public final class SqlCommand implements Callable<Integer> {
  /** Output formats of {@code quiver sql}. */
  public enum Format {
    table,
    csv
  }

  @Spec private CommandSpec spec;

  @Option(
      names = "--parquet",
      paramLabel = "NAME=PATH",
      description =
          "Registers a Parquet file or folder as table NAME (repeatable); PATH may be a local"
              + " path or s3://bucket/prefix.")
  private Map<String, String> parquet = new LinkedHashMap<>();

  @Option(
      names = "--csv",
      paramLabel = "NAME=PATH",
      description =
          "Registers a CSV file or folder as table NAME (repeatable); PATH may be a"
              + " local path or s3://bucket/prefix; .gz and .zst files are decompressed.")
  private Map<String, String> csv = new LinkedHashMap<>();

  @Option(
      names = "--csv-option",
      paramLabel = "NAME.KEY=VALUE",
      description =
          "A layout option of CSV table NAME (repeatable): delimiter, header (true/false), quote,"
              + " escape, null, ignore_errors (bad values read as NULL), sample_size, types"
              + " (e.g. id:BIGINT,price:DECIMAL(10,2)). Example: --csv-option sales.delimiter=';'")
  private Map<String, String> csvOptions = new LinkedHashMap<>();

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "Sets a session setting before the statement runs (repeatable), e.g."
              + " quiver.s3.endpoint=http://127.0.0.1:9000.")
  private Map<String, String> settings = new LinkedHashMap<>();

  @Option(
      names = "--format",
      defaultValue = "table",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  private Format format;

  @Option(names = "--partitions", description = "Target partitions (default: number of cores).")
  private Integer partitions;

  @Option(
      names = "--max-rows",
      defaultValue = "" + Integer.MAX_VALUE,
      description = "Rows shown by the table format (default: all).")
  private int maxRows;

  @Option(
      names = {"-e", "--execute"},
      required = true,
      paramLabel = "SQL",
      description = "The SQL statement to run.")
  private String sql;

  @Mixin private ClusterOptions cluster;

  @Override
  public Integer call() {
    SessionConfig config = new SessionConfig();
    if (partitions != null) {
      config.withTargetPartitions(partitions);
    }
    settings.forEach(config::set);
    PrintWriter out = spec.commandLine().getOut();
    try (ClusterTarget target = cluster.open();
        SessionContext ctx = target.newSession(config)) {
      parquet.forEach((name, path) -> ctx.registerParquet(name, existing(name, path)));
      Map<String, Map<String, String>> layouts = csvLayouts();
      csv.forEach(
          (name, path) ->
              ctx.registerCsv(
                  name,
                  existing(name, path),
                  CsvOptions.fromSettings(layouts.getOrDefault(name, Map.of()))));
      DataFrame df = ctx.sql(sql);
      List<VectorSchemaRoot> batches;
      try (ProgressLine line =
          ProgressLine.start(
              () -> DistributedDataFrame.progressOf(df),
              spec.commandLine().getErr(),
              cluster.progress())) {
        batches = df.collect();
      }
      try {
        if (format == Format.csv) {
          CsvFormatter.write(df.schema(), batches, out);
        } else {
          out.println(TableFormatter.format(df.schema(), batches, maxRows));
          out.flush();
        }
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
    }
    return 0;
  }

  /** The --csv-option values grouped by table; an option for a table not given by --csv fails. */
  private Map<String, Map<String, String>> csvLayouts() {
    Map<String, Map<String, String>> layouts = new LinkedHashMap<>();
    csvOptions.forEach(
        (key, value) -> {
          int dot = key.indexOf('.');
          String table = dot < 0 ? "" : key.substring(0, dot);
          if (dot <= 0 || dot == key.length() - 1 || !csv.containsKey(table)) {
            throw new ParameterException(
                spec.commandLine(),
                "--csv-option "
                    + key
                    + "="
                    + value
                    + ": write NAME.KEY=VALUE where NAME is a table given by --csv NAME=PATH");
          }
          layouts.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(key.substring(dot + 1), value);
        });
    return layouts;
  }

  private String existing(String name, String path) {
    if (path.contains("://") && !path.startsWith("file://")) {
      return path; // an object URI: the store says whether it exists
    }
    if (!Files.exists(dev.quiver.binding.io.LocalObjectStore.toPath(path))) {
      throw new ParameterException(
          spec.commandLine(),
          "Table " + name + ": no file or folder at " + path + "; check the path");
    }
    return path;
  }
}
