package dev.quiver.benchmarks.bench;

import dev.quiver.examples.engine.Engine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A query suite of one's own ({@code bench --queries DIR --data DIR}): every {@code *.sql} file of
 * the query folder is one query, named after its file and timed in file-name order; every entry of
 * the data folder is one table named after it: a folder of {@code .parquet} files or of {@code
 * .csv} files (with a header row), or a single {@code NAME.parquet} / {@code NAME.csv} file.
 */
final class QueryFolder implements Workload {
  /** How a table's files are read. */
  enum Format {
    PARQUET,
    CSV
  }

  /** A table: its name, its file or folder, and its format. */
  record Table(String name, Path path, Format format) {}

  private final List<NamedQuery> queries;
  private final List<Table> tables;

  private QueryFolder(List<NamedQuery> queries, List<Table> tables) {
    this.queries = queries;
    this.tables = tables;
  }

  /**
   * Reads the queries of {@code queryDir} and finds the tables of {@code dataDir}.
   *
   * @throws IllegalArgumentException naming the folder or file when either has nothing to time or a
   *     table's format cannot be told
   */
  static QueryFolder load(Path queryDir, Path dataDir) {
    return new QueryFolder(readQueries(queryDir), findTables(dataDir));
  }

  @Override
  public List<NamedQuery> queries() {
    return queries;
  }

  /** The tables found in the data folder, by name. */
  List<Table> tables() {
    return tables;
  }

  @Override
  public Engine registerTables(Engine engine) {
    return Engine.withTables(
        engine,
        e -> {
          for (Table t : tables) {
            switch (t.format()) {
              case PARQUET -> e.registerParquet(t.name(), t.path());
              case CSV -> e.registerCsv(t.name(), t.path());
            }
          }
        });
  }

  private static List<NamedQuery> readQueries(Path dir) {
    List<NamedQuery> out = new ArrayList<>();
    for (Path file : entries(dir)) {
      String name = file.getFileName().toString();
      if (!Files.isRegularFile(file) || !name.toLowerCase(Locale.ROOT).endsWith(".sql")) {
        continue;
      }
      String sql = withoutTrailingSemicolons(read(file));
      if (sql.isBlank()) {
        throw new IllegalArgumentException("Query file " + file + " is empty");
      }
      out.add(new NamedQuery(name.substring(0, name.length() - ".sql".length()), sql));
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("Query folder " + dir + " holds no .sql file");
    }
    return List.copyOf(out);
  }

  private static List<Table> findTables(Path dir) {
    List<Table> out = new ArrayList<>();
    for (Path entry : entries(dir)) {
      String name = entry.getFileName().toString();
      if (name.startsWith(".")) {
        continue;
      }
      if (Files.isDirectory(entry)) {
        out.add(new Table(name, entry, folderFormat(entry)));
      } else {
        Format format = fileFormat(name);
        if (format != null) {
          out.add(new Table(name.substring(0, name.lastIndexOf('.')), entry, format));
        }
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "Data folder "
              + dir
              + " holds no table: give each table a sub-folder of .parquet or .csv files, or a"
              + " NAME.parquet or NAME.csv file");
    }
    return List.copyOf(out);
  }

  /** The format of a table folder's files; they must all have one. */
  private static Format folderFormat(Path folder) {
    Format found = null;
    for (Path file : entries(folder)) {
      Format f = fileFormat(file.getFileName().toString());
      if (f == null || !Files.isRegularFile(file)) {
        continue;
      }
      if (found != null && found != f) {
        throw new IllegalArgumentException(
            "Table folder " + folder + " mixes .parquet and .csv files: a table has one format");
      }
      found = f;
    }
    if (found == null) {
      throw new IllegalArgumentException(
          "Table folder " + folder + " holds no .parquet or .csv file");
    }
    return found;
  }

  private static Format fileFormat(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".parquet")) {
      return Format.PARQUET;
    }
    return lower.endsWith(".csv") ? Format.CSV : null;
  }

  /** The folder's entries sorted by name. */
  private static List<Path> entries(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("Not a folder: " + dir);
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + dir + ": " + e.getMessage(), e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** The text without the semicolons (and blanks) that end it, as a query file often has. */
  static String withoutTrailingSemicolons(String sql) {
    String s = sql.strip();
    while (s.endsWith(";")) {
      s = s.substring(0, s.length() - 1).strip();
    }
    return s;
  }
}
