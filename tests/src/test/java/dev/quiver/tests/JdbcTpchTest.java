package dev.quiver.tests;

import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The 22 TPC-H queries at SF 0.1 through the Arrow Flight SQL JDBC driver against {@code quiver
 * serve --embedded 2}, each checked against DuckDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcTpchTest {
  private static final double SCALE = 0.1;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(90);

  private final QueryThread queryThread = new QueryThread();
  private RowEngine reference;
  private RowEngine jdbc;

  @BeforeAll
  void open() {
    Path dir = TpchFixture.data(SCALE);
    queryThread.run(
        Duration.ofSeconds(150),
        "open",
        () -> {
          reference = Differential.reference(dir);
          jdbc = openJdbc(dir);
        });
  }

  private static RowEngine openJdbc(Path dir) {
    ServeProcess server = null;
    try {
      server = ServeProcess.start(dir, "--embedded", "2");
      return new JdbcRows(server.jdbcUrl(), new Properties(), server);
    } catch (Exception e) {
      if (server != null) {
        server.close();
      }
      throw new IllegalStateException("starting quiver serve failed", e);
    }
  }

  @AfterAll
  void close() {
    try {
      queryThread.run(
          Duration.ofSeconds(60),
          "close",
          () -> {
            if (jdbc != null) {
              jdbc.close();
            }
            if (reference != null) {
              reference.close();
            }
          });
    } finally {
      queryThread.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> tpch() {
    return TpchQueries.all().stream()
        .map(
            q ->
                DynamicTest.dynamicTest(
                    q.name(),
                    () -> queryThread.run(QUERY_TIMEOUT, q.name(), () -> check(q), this::drop)));
  }

  private void check(TpchQuery q) {
    if (jdbc == null) {
      jdbc = openJdbc(TpchFixture.data(SCALE));
    }
    QueryResult expected = reference.query(q.sql());
    QueryResult actual = jdbc.query(q.sql());
    Differential.check(
        q.name() + " over JDBC",
        q.sql(),
        expected,
        actual,
        Differential.sortOf(q.orderBy(), expected));
  }

  /** Closes the server after a query timed out (cancelling it); the next check starts another. */
  private void drop() {
    RowEngine engine = jdbc;
    jdbc = null;
    if (engine != null) {
      engine.close();
    }
  }
}
