package dev.quiver.tests;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * A view answers as its query (issue 38): the 22 TPC-H queries and a sample of the SQL corpus, each
 * made a view ({@code CREATE VIEW v AS <query>; SELECT * FROM v}), against DuckDB's answer to the
 * query itself, in one process and on an embedded cluster of 2 executors. Views used to be
 * converted with other options than queries, so every wrong answer those options prevent came back
 * through a view.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueriesAsViewsTest {
  private static final double SCALE = 0.01;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(60);

  /** Every how many-th corpus query without setup statements is checked as a view. */
  private static final int CORPUS_STRIDE = 8;

  private final DifferentialEngines engines =
      new DifferentialEngines(TpchFixture.data(SCALE), engines());

  /** A query to check as a view: its name, text and ORDER BY items (for ties under LIMIT). */
  private record Query(String name, String sql, SortSpecFor sort) {}

  private interface SortSpecFor {
    SortSpec of(QueryResult reference);
  }

  /** One process at 4 partitions and an embedded cluster of 2 executors. */
  private static Map<String, Function<Path, RowEngine>> engines() {
    Map<String, Function<Path, RowEngine>> all =
        DifferentialEngines.processesAndCluster(
            new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, "64KB"));
    all.remove("1 partition");
    return all;
  }

  @AfterAll
  void close() {
    engines.close();
  }

  static List<Query> queries() {
    List<Query> out = new ArrayList<>();
    for (TpchQuery q : TpchQueries.all()) {
      out.add(new Query(q.name(), q.sql(), ref -> Differential.sortOf(q.orderBy(), ref)));
    }
    int i = 0;
    for (SqlCorpus.Entry e : SqlCorpus.load("sql-corpus.sql")) {
      boolean plain =
          e.before().isEmpty()
              && e.after().isEmpty()
              && e.reference().equals(e.sql())
              && e.sql().matches("(?is)\\s*(SELECT|WITH)\\b.*");
      if (plain && i++ % CORPUS_STRIDE == 0) {
        out.add(new Query(e.name(), e.sql(), ref -> Differential.sortOf(e.sql(), ref)));
      }
    }
    return out;
  }

  @TestFactory
  Stream<DynamicNode> queriesAsViews() {
    List<Query> queries = queries();
    List<DynamicNode> perEngine = new ArrayList<>();
    for (int engine = 0; engine < engines.names().size(); engine++) {
      int index = engine;
      List<DynamicNode> tests = new ArrayList<>();
      for (int q = 0; q < queries.size(); q++) {
        Query query = queries.get(q);
        String view = "as_view_" + q;
        tests.add(
            DynamicTest.dynamicTest(
                query.name(),
                () ->
                    engines.check(
                        index,
                        query.name(),
                        QUERY_TIMEOUT,
                        (reference, actual) -> check(reference, actual, query, view))));
      }
      perEngine.add(DynamicContainer.dynamicContainer(engines.names().get(engine), tests));
    }
    return perEngine.stream();
  }

  private static void check(RowEngine reference, RowEngine actual, Query q, String view) {
    QueryResult expected = reference.query(q.sql());
    // A view's columns need distinct names (DuckDB numbers repeated ones, Quiver refuses to read
    // them); such a query stays out of the check rather than being renamed here.
    Assumptions.assumeTrue(
        new java.util.HashSet<>(expected.columns()).size() == expected.columns().size(),
        q.name() + " repeats an output column name");
    actual.execute("CREATE VIEW " + view + " AS " + q.sql());
    try {
      QueryResult result = actual.query("SELECT * FROM " + view);
      // The view keeps its query's ORDER BY (Quiver, as DuckDB, returns its rows in that order).
      Differential.check(
          q.name() + " as a view on " + actual.name(),
          q.sql(),
          expected,
          result,
          q.sort().of(expected));
    } finally {
      actual.execute("DROP VIEW " + view);
    }
  }
}
