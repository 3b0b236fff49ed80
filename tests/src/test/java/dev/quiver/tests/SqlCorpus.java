package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQL corpus resource: named queries, each introduced by {@code -- name: X} and ending in ';'.
 * Before its query an entry may hold one-line statements run before and after it:
 *
 * <ul>
 *   <li>{@code -- setup: S} runs S on both engines (in order); for INSERT, UPDATE and DELETE the
 *       counts of rows they report must agree;
 *   <li>{@code -- fails: S} runs S on both engines, and both must refuse it (e.g. a constraint
 *       violation; the query after it then shows nothing was written);
 *   <li>{@code -- quiver-setup: S} / {@code -- duckdb-setup: S} run S on one engine only (e.g. a
 *       SET where the engines' defaults differ on purpose);
 *   <li>{@code -- teardown: S}, {@code -- quiver-teardown: S}, {@code -- duckdb-teardown: S} run
 *       after the query, also when it failed (e.g. DROP TABLE, SET back to the default);
 *   <li>{@code -- reference: Q} gives DuckDB an equivalent query Q in place of the entry's, where
 *       DuckDB 1.4.4 answers the entry's own form wrongly (the entry's comment shows it).
 * </ul>
 */
final class SqlCorpus {
  /** What a statement line of an entry does. */
  enum StepKind {
    SETUP("-- setup:"),
    FAILS("-- fails:"),
    QUIVER_SETUP("-- quiver-setup:"),
    DUCKDB_SETUP("-- duckdb-setup:"),
    TEARDOWN("-- teardown:"),
    QUIVER_TEARDOWN("-- quiver-teardown:"),
    DUCKDB_TEARDOWN("-- duckdb-teardown:");

    final String prefix;

    StepKind(String prefix) {
      this.prefix = prefix;
    }
  }

  /** One statement run around an entry's query. */
  record Step(StepKind kind, String sql) {}

  /**
   * One corpus query with the statements run before and after it, and the query the reference
   * engine runs for it ({@code sql} unless the entry gives an equivalent with {@code --
   * reference:}).
   */
  record Entry(String name, String sql, List<Step> before, List<Step> after, String reference) {
    Entry(String name, String sql) {
      this(name, sql, List.of(), List.of(), sql);
    }
  }

  private static final String REFERENCE = "-- reference:";

  private SqlCorpus() {}

  /**
   * Runs {@code step} of an entry on the engines it is for; {@code label} names the entry and
   * engine in failures.
   */
  static void run(Step step, RowEngine reference, RowEngine actual, String label) {
    String what = label + ": " + step.sql();
    switch (step.kind()) {
      case SETUP, TEARDOWN -> {
        long expected = reference.execute(step.sql());
        long written = actual.execute(step.sql());
        if (step.sql().matches("(?is)\\s*(INSERT|UPDATE|DELETE)\\b.*")) {
          assertThat(written).as(what + " (rows written)").isEqualTo(expected);
        }
      }
      case QUIVER_SETUP, QUIVER_TEARDOWN -> actual.execute(step.sql());
      case DUCKDB_SETUP, DUCKDB_TEARDOWN -> reference.execute(step.sql());
      case FAILS -> {
        assertThatThrownBy(() -> reference.execute(step.sql())).as("DuckDB: " + what);
        assertThatThrownBy(() -> actual.execute(step.sql()))
            .as(what)
            .satisfies(t -> assertThat(t.getMessage()).isNotBlank());
      }
    }
  }

  /** Loads the entries of resource {@code resource}, in file order. */
  static List<Entry> load(String resource) {
    String text;
    try (InputStream in = SqlCorpus.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + resource);
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Entry> entries = new ArrayList<>();
    String name = null;
    StringBuilder sql = new StringBuilder();
    List<Step> before = new ArrayList<>();
    List<Step> after = new ArrayList<>();
    String reference = null;
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      StepKind step = null;
      for (StepKind k : StepKind.values()) {
        if (trimmed.startsWith(k.prefix)) {
          step = k;
        }
      }
      if (trimmed.startsWith("-- name:")) {
        if (name != null) {
          throw new IllegalStateException("Corpus entry " + name + " does not end with ';'");
        }
        name = trimmed.substring("-- name:".length()).strip();
        sql.setLength(0);
        before = new ArrayList<>();
        after = new ArrayList<>();
        reference = null;
      } else if (name != null && trimmed.startsWith(REFERENCE)) {
        reference = trimmed.substring(REFERENCE.length()).strip();
        if (reference.endsWith(";")) {
          reference = reference.substring(0, reference.length() - 1).strip();
        }
      } else if (name != null && step != null) {
        String statement = trimmed.substring(step.prefix.length()).strip();
        if (statement.endsWith(";")) {
          statement = statement.substring(0, statement.length() - 1).strip();
        }
        boolean late =
            step == StepKind.TEARDOWN
                || step == StepKind.QUIVER_TEARDOWN
                || step == StepKind.DUCKDB_TEARDOWN;
        (late ? after : before).add(new Step(step, statement));
      } else if (name != null && !trimmed.isEmpty()) {
        sql.append(line).append('\n');
        if (trimmed.endsWith(";")) {
          String q = sql.toString().strip();
          q = q.substring(0, q.length() - 1).strip();
          entries.add(
              new Entry(
                  name,
                  q,
                  List.copyOf(before),
                  List.copyOf(after),
                  reference == null ? q : reference));
          name = null;
        }
      }
    }
    if (name != null) {
      throw new IllegalStateException("Corpus entry " + name + " does not end with ';'");
    }
    return entries;
  }
}
