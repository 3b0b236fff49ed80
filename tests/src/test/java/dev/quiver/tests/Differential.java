package dev.quiver.tests;

import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Runs queries on the reference engine (DuckDB) and on the engine under test, and fails with the
 * first differing rows when they disagree. The engine under test is Quiver unless the system
 * property {@code quiver.tests.actual=duckdb} selects a second DuckDB (to check the harness).
 */
final class Differential {
  /** System property choosing the engine under test: {@code quiver} (default) or {@code duckdb}. */
  static final String ACTUAL_ENGINE = "quiver.tests.actual";

  /**
   * System property setting {@code quiver.optimizer.unnesting} for the Quiver engines the
   * differential tests open ({@code -Dquiver.tests.unnesting=quiver} runs them on Quiver's own
   * subquery unnesting); unset, the engine's default.
   */
  static final String UNNESTING = "quiver.tests.unnesting";

  private Differential() {}

  /** {@code config} with the unnesting that {@link #UNNESTING} selects, if any. */
  static SessionConfig configured(SessionConfig config) {
    String unnesting = System.getProperty(UNNESTING, "").strip();
    return unnesting.isEmpty() ? config : config.set(BindingSettings.UNNESTING.key(), unnesting);
  }

  /** Opens the engine under test over {@code dir} with {@code partitions} partitions (threads). */
  static RowEngine actual(Path dir, int partitions) {
    String engine = System.getProperty(ACTUAL_ENGINE, "quiver").trim().toLowerCase(Locale.ROOT);
    return switch (engine) {
      case "quiver" -> new QuiverRows(dir, partitions);
      case "duckdb" -> new DuckDbRows(dir, partitions);
      default ->
          throw new IllegalArgumentException(
              "-D" + ACTUAL_ENGINE + " must be quiver or duckdb, got " + engine);
    };
  }

  /** Opens the reference engine over {@code dir}. */
  static RowEngine reference(Path dir) {
    return new DuckDbRows(dir, 2);
  }

  /** Fails unless {@code actual} matches {@code expected} for {@code sql}. */
  static void check(
      String label, String sql, QueryResult expected, QueryResult actual, SortSpec sort) {
    String diff = ResultComparator.compare(expected, actual, sort);
    if (diff != null) {
      throw new AssertionError(
          label
              + ": results differ ("
              + (sort.ordered() ? "ordered by columns " + sort.keyColumns() : "unordered")
              + ")\n"
              + diff
              + "\nquery:\n"
              + sql);
    }
  }

  /** Sort spec of {@code sql} against the reference result's columns. */
  static SortSpec sortOf(String sql, QueryResult reference) {
    return SortSpec.of(sql, reference.columns());
  }

  /** Sort spec from explicitly known ordering columns. */
  static SortSpec sortOf(List<String> orderBy, QueryResult reference) {
    return SortSpec.ofColumns(orderBy, reference.columns());
  }
}
