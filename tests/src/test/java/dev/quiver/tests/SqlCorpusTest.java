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
import org.junit.jupiter.api.Timeout;

/** Over 200 further queries on the TPC-H tables (SF 0.01), each checked against DuckDB. */
class SqlCorpusTest {
  private static final double SCALE = 0.01;
  private static final int PARTITIONS = 4;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(30);
  private static final List<SqlCorpus.Entry> CORPUS = SqlCorpus.load("sql-corpus.sql");

  // Engines are created and queried on this one thread.
  private static final QueryThread QUERY_THREAD = new QueryThread();
  private static RowEngine reference;
  private static volatile RowEngine actual;

  @BeforeAll
  static void open() {
    Path dir = TpchFixture.data(SCALE);
    QUERY_THREAD.run(
        QUERY_TIMEOUT,
        "open",
        () -> {
          reference = Differential.reference(dir);
          actual = Differential.actual(dir, PARTITIONS);
        });
  }

  @AfterAll
  static void close() {
    QUERY_THREAD.run(
        QUERY_TIMEOUT,
        "close",
        () -> {
          if (actual != null) {
            actual.close();
          }
          if (reference != null) {
            reference.close();
          }
        });
    QUERY_THREAD.close();
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
                    e.name(), () ->
                    QUERY_THREAD.run(
                        QUERY_TIMEOUT, e.name(), () -> check(e), SqlCorpusTest::dropActual)));
  }

  private static void check(SqlCorpus.Entry e) {
    if (actual == null) {
      actual = Differential.actual(TpchFixture.data(SCALE), PARTITIONS);
    }
    QueryResult expected = reference.query(e.sql());
    QueryResult result = actual.query(e.sql());
    Differential.check(
        e.name() + " on " + actual.name(),
        e.sql(),
        expected,
        result,
        Differential.sortOf(e.sql(), expected));
  }

  /** Closes the engine under test, cancelling a query that timed out; the next check reopens it. */
  private static void dropActual() {
    RowEngine engine = actual;
    actual = null;
    if (engine != null) {
      engine.close();
    }
  }
}
