package dev.quiver.examples.engine;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * A SQL engine the benchmark and the TPC-H runner can drive: register Parquet and CSV tables, run
 * queries.
 */
public interface Engine extends AutoCloseable {
  /** The engine's name as given on the command line ({@code quiver}, {@code duckdb}). */
  String name();

  /** Registers a Parquet file, or a folder of Parquet files, as table {@code table}. */
  void registerParquet(String table, Path path);

  /**
   * Registers a CSV file with a header row, or a folder of such files, as table {@code table},
   * column types inferred from the data.
   */
  void registerCsv(String table, Path path);

  /**
   * Registers the Apache Iceberg table at {@code location} (its folder) as table {@code table}, at
   * its current snapshot.
   *
   * @throws IllegalArgumentException if the engine reads no Iceberg tables
   */
  default void registerIceberg(String table, Path location) {
    throw new IllegalArgumentException(
        name() + " reads no Iceberg tables here (table " + table + ")");
  }

  /**
   * Applies a session setting ({@code key=value}); engines without such settings refuse it.
   *
   * @throws IllegalArgumentException if the engine has no settings of its own
   */
  default void set(String key, String value) {
    throw new IllegalArgumentException(name() + " takes no Quiver setting such as " + key);
  }

  /** Runs a query to completion, fetching every row; returns the row count. */
  long execute(String sql);

  /** Frees everything the engine holds. */
  @Override
  void close();

  /**
   * Runs {@code registration} (which registers tables) on {@code engine} and returns the engine;
   * closes it and rethrows when registration fails, so that a half-set-up engine never leaks.
   */
  static Engine withTables(Engine engine, Consumer<Engine> registration) {
    try {
      registration.accept(engine);
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
