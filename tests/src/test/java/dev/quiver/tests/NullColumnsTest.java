package dev.quiver.tests;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * Untyped NULL columns (Arrow's {@code Null} type: {@code SELECT NULL AS n}) through every
 * operator, against DuckDB, in one process at 1 and 4 partitions and on an embedded cluster of 2
 * executors (shuffles and the plan codec). Sorting one failed with a bare
 * UnsupportedOperationException (issue 38): Arrow's NullVector copies no values and has no validity
 * buffer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NullColumnsTest {
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(60);
  private static final String NULLS =
      "(SELECT n_nationkey AS k, n_regionkey AS g, NULL AS z FROM nation)";

  /** An operator and a query that takes an untyped NULL column through it. */
  private record Case(String operator, String sql) {}

  private static final List<Case> CASES =
      List.of(
          new Case("sort", "SELECT a, NULL AS n FROM (VALUES (2), (1)) t(a) ORDER BY a"),
          new Case("sort of many batches", "SELECT k, z FROM " + NULLS + " s ORDER BY g, k"),
          new Case("top-k", "SELECT k, z FROM " + NULLS + " s ORDER BY g DESC, k LIMIT 7"),
          new Case("sort on the NULL column", "SELECT k, z FROM " + NULLS + " s ORDER BY z, k"),
          new Case(
              "hash join payload",
              "SELECT n.n_name, s.z FROM nation n JOIN " + NULLS + " s ON n.n_nationkey = s.k"),
          new Case(
              "hash join on the NULL column",
              "SELECT a.k, b.k FROM "
                  + NULLS
                  + " a JOIN "
                  + NULLS
                  + " b"
                  + " ON a.z IS NOT DISTINCT FROM b.z AND a.g = b.g"),
          new Case(
              "outer join padding",
              "SELECT r.r_name, s.z FROM region r LEFT JOIN "
                  + NULLS
                  + " s ON r.r_regionkey = s.k"),
          new Case(
              "nested loop join",
              "SELECT r.r_regionkey, s.k, s.z FROM region r JOIN "
                  + NULLS
                  + " s ON s.k < r.r_regionkey"),
          new Case("group by", "SELECT z, COUNT(*) AS c FROM " + NULLS + " s GROUP BY z"),
          new Case(
              "group by with other keys",
              "SELECT g, z, COUNT(*) AS c FROM " + NULLS + " s GROUP BY g, z"),
          new Case(
              "aggregates of it",
              "SELECT g, MIN(z) AS lo, MAX(z) AS hi, COUNT(z) AS c FROM "
                  + NULLS
                  + " s GROUP BY g"),
          new Case("distinct", "SELECT DISTINCT g, z FROM " + NULLS + " s"),
          new Case(
              "window",
              "SELECT k, z, ROW_NUMBER() OVER (PARTITION BY z ORDER BY k) AS r,"
                  + " LAG(z) OVER (PARTITION BY g ORDER BY k) AS l FROM "
                  + NULLS
                  + " s"),
          new Case(
              "union all",
              "SELECT k, z FROM " + NULLS + " s UNION ALL SELECT r_regionkey, NULL FROM region"),
          new Case(
              "union",
              "SELECT g, z FROM " + NULLS + " s UNION SELECT r_regionkey, NULL FROM region"),
          new Case(
              "in a filter's output",
              "SELECT k, z FROM " + NULLS + " s WHERE k % 3 = 0 AND z IS NULL"));

  private final DifferentialEngines engines =
      new DifferentialEngines(
          TpchFixture.data(0.01),
          DifferentialEngines.processesAndCluster(
              new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, "1KB")));

  @AfterAll
  void close() {
    engines.close();
  }

  @TestFactory
  Stream<DynamicNode> untypedNullColumns() {
    List<DynamicNode> perEngine = new ArrayList<>();
    for (int e = 0; e < engines.names().size(); e++) {
      int index = e;
      List<DynamicNode> tests = new ArrayList<>();
      for (Case c : CASES) {
        tests.add(
            DynamicTest.dynamicTest(
                c.operator(),
                () ->
                    engines.check(
                        index,
                        c.operator(),
                        QUERY_TIMEOUT,
                        (reference, actual) -> {
                          QueryResult expected = reference.query(c.sql());
                          Differential.check(
                              c.operator() + " on " + actual.name(),
                              c.sql(),
                              expected,
                              actual.query(c.sql()),
                              Differential.sortOf(c.sql(), expected));
                        })));
      }
      perEngine.add(DynamicContainer.dynamicContainer(engines.names().get(e), tests));
    }
    return perEngine.stream();
  }
}
