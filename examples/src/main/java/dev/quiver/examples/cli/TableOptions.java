package dev.quiver.examples.cli;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.io.LocalObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --parquet NAME=PATH} and {@code --csv NAME=PATH}: files a command registers as tables;
 * with the catalogs of {@link CatalogOptions}.
 */
public final class TableOptions {
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

  @Mixin private CatalogOptions catalogs;

  /**
   * Registers the tables and attaches the catalogs in {@code ctx}; a missing path or a malformed
   * catalog is a usage error of {@code spec}.
   */
  public void register(SessionContext ctx, CommandSpec spec) {
    registerTables(ctx, spec);
    catalogs.attach(ctx, spec);
  }

  private void registerTables(SessionContext ctx, CommandSpec spec) {
    parquet.forEach((name, path) -> ctx.registerParquet(name, existing(spec, name, path)));
    Map<String, Map<String, String>> layouts = csvLayouts(spec);
    csv.forEach(
        (name, path) ->
            ctx.registerCsv(
                name,
                existing(spec, name, path),
                CsvOptions.fromSettings(layouts.getOrDefault(name, Map.of()))));
  }

  /** The --csv-option values grouped by table; an option for a table not given by --csv fails. */
  private Map<String, Map<String, String>> csvLayouts(CommandSpec spec) {
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
          layouts
              .computeIfAbsent(table, t -> new LinkedHashMap<>())
              .put(key.substring(dot + 1), value);
        });
    return layouts;
  }

  /**
   * The local files and folders given here (tables and warehouse catalogs): what a server reads
   * through SQL by default ({@code --allowed-paths}).
   */
  public List<Path> localPaths() {
    List<Path> out = new ArrayList<>();
    for (String path : parquet.values()) {
      addLocal(out, path);
    }
    for (String path : csv.values()) {
      addLocal(out, path);
    }
    for (String warehouse : catalogs.warehouses()) {
      addLocal(out, warehouse);
    }
    return out;
  }

  private static void addLocal(List<Path> out, String path) {
    if (!path.contains("://") || path.startsWith("file://")) {
      out.add(LocalObjectStore.toPath(path));
    }
  }

  private static String existing(CommandSpec spec, String name, String path) {
    if (path.contains("://") && !path.startsWith("file://")) {
      return path; // an object URI: the store says whether it exists
    }
    if (!Files.exists(LocalObjectStore.toPath(path))) {
      throw new ParameterException(
          spec.commandLine(),
          "Table " + name + ": no file or folder at " + path + "; check the path");
    }
    return path;
  }
}
