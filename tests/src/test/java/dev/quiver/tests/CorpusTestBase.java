package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Over 200 further queries on the TPC-H tables (SF 0.01), each checked against DuckDB on the engine
 * a subclass opens.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CorpusTestBase {
  static final double SCALE = 0.01;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(30);
  private static final List<SqlCorpus.Entry> CORPUS = SqlCorpus.load("sql-corpus.sql");

  // Engines are created and queried on this one thread.
  private final QueryThread queryThread = new QueryThread();
  private RowEngine reference;
  private volatile RowEngine actual;

  /** Opens the engine under test over the TPC-H data in {@code dir}. */
  abstract RowEngine openActual(Path dir);

  @BeforeAll
  void open() {
    Path dir = TpchFixture.data(SCALE);
    queryThread.run(
        Duration.ofSeconds(60),
        "open",
        () -> {
          reference = Differential.reference(dir);
          actual = openActual(dir);
        });
  }

  @AfterAll
  void close() {
    queryThread.run(
        Duration.ofSeconds(60),
        "close",
        () -> {
          if (actual != null) {
            actual.close();
          }
          if (reference != null) {
            reference.close();
          }
        });
    queryThread.close();
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void corpusHasAtLeast200UniquelyNamedQueries() {
    Set<String> names = new HashSet<>();
    for (SqlCorpus.Entry e : CORPUS) {
      assertThat(names.add(e.name())).as("duplicate name " + e.name()).isTrue();
      assertThat(e.sql()).as(e.name()).doesNotContain(";");
    }
    assertThat(CORPUS).hasSizeGreaterThanOrEqualTo(200);
  }

  @TestFactory
  Stream<DynamicTest> corpus() {
    return CORPUS.stream()
        .map(
            e ->
                DynamicTest.dynamicTest(
                    e.name(),
                    () ->
                        queryThread.run(
                            QUERY_TIMEOUT, e.name(), () -> check(e), this::dropActual)));
  }

  private void check(SqlCorpus.Entry e) {
    if (actual == null) {
      actual = openActual(TpchFixture.data(SCALE));
    }
    try {
      for (SqlCorpus.Step step : e.before()) {
        runStep(e, step);
      }
      compare(e);
    } finally {
      for (SqlCorpus.Step step : e.after()) {
        runStep(e, step);
      }
    }
  }

  private void runStep(SqlCorpus.Entry e, SqlCorpus.Step step) {
    SqlCorpus.run(step, reference, actual, e.name() + " on " + actual.name());
  }

  private void compare(SqlCorpus.Entry e) {
    QueryResult expected = reference.query(e.reference());
    QueryResult result = actual.query(e.sql());
    Differential.check(
        e.name() + " on " + actual.name(),
        e.sql(),
        expected,
        result,
        Differential.sortOf(e.sql(), expected));
    if (e.name().startsWith("names_")) {
      // Column names derived from the query's text match DuckDB's.
      assertThat(result.columns()).as(e.name() + " column names").isEqualTo(expected.columns());
    }
  }

  /** Closes the engine under test, cancelling a query that timed out; the next check reopens it. */
  private void dropActual() {
    RowEngine engine = actual;
    actual = null;
    if (engine != null) {
      engine.close();
    }
  }
}
