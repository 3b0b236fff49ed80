package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Partial aggregation over input stored in key order (TPC-H lineitem by l_orderkey, 150,000 orders
 * at SF 0.1) starts its table over when it fills (ClusteredKeys), and the final aggregation merges
 * the keys split at a restart: answers against DuckDB at several partition counts and batch sizes,
 * in one process and on an embedded cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusteredAggregationTest {
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(60);

  private static final List<String> QUERIES =
      List.of(
          "select l_orderkey, count(*) as n, sum(l_quantity) as q, avg(l_extendedprice) as p,"
              + " min(l_shipdate) as first_ship, max(l_comment) as c, bool_or(l_returnflag = 'R')"
              + " as returned from lineitem group by l_orderkey",
          "select l_orderkey, l_linestatus, sum(l_extendedprice * (1 - l_discount)) as revenue,"
              + " count(l_receiptdate) as received from lineitem where l_quantity > 5"
              + " group by l_orderkey, l_linestatus having count(*) > 1",
          "select o.o_orderpriority, count(*) as orders, sum(t.q) as q from orders o join (select"
              + " l_orderkey, sum(l_quantity) as q from lineitem group by l_orderkey) t on"
              + " o.o_orderkey = t.l_orderkey group by o.o_orderpriority");

  private final QueryThread queryThread = new QueryThread();
  private final Map<String, QueryResult> expected = new HashMap<>();
  private Path data;
  private DuckDbRows duckdb;

  @BeforeAll
  void open() {
    data = TpchFixture.data(0.1);
    duckdb = new DuckDbRows(data, 2);
  }

  @AfterAll
  void close() {
    duckdb.close();
    queryThread.close();
  }

  @Test
  void inProcessAtSeveralPartitionCountsAndBatchSizes() {
    check(2, 8192, true);
    check(4, 1000, false);
  }

  @Test
  void onAnEmbeddedClusterOfTwoExecutors() {
    ClusterFixture.ClusterRows[] cluster = new ClusterFixture.ClusterRows[1];
    queryThread.run(
        Duration.ofSeconds(120),
        "start cluster",
        () ->
            cluster[0] =
                ClusterFixture.embedded(
                    2, data, new SessionConfig().withTargetPartitions(2).withBatchSize(4096)));
    try {
      for (String sql : QUERIES) {
        compare(cluster[0].rows(), sql, "on an embedded cluster of 2");
      }
    } finally {
      queryThread.run(QUERY_TIMEOUT, "close cluster", () -> cluster[0].rows().close());
    }
  }

  private void check(int partitions, int batchSize, boolean showsRestart) {
    SessionContext ctx =
        new SessionContext(
            new SessionConfig().withTargetPartitions(partitions).withBatchSize(batchSize));
    try (QuiverRows quiver = new QuiverRows(ctx, data, "quiver", () -> {})) {
      String label = partitions + " partitions, batch size " + batchSize;
      for (String sql : QUERIES) {
        compare(quiver, sql, label);
      }
      if (showsRestart) {
        // Each partition's partial aggregation sees about 75,000 orders, more than a table of
        // ClusteredKeys.CHECK_GROUPS holds, so it emits more rows than there are orders.
        String[] plan = new String[1];
        queryThread.run(
            QUERY_TIMEOUT,
            "explain analyze",
            () -> plan[0] = ctx.sql(QUERIES.get(0)).explain(true));
        Matcher m =
            Pattern.compile("HashAggregateExec: mode=PARTIAL[^\\n]*output_rows=(\\d+)")
                .matcher(plan[0]);
        assertThat(m.find()).as("partial aggregate in\n%s", plan[0]).isTrue();
        assertThat(Long.parseLong(m.group(1))).isGreaterThan(150_000L).isLessThan(150_100L);
      }
    }
  }

  private void compare(RowEngine quiver, String sql, String label) {
    QueryResult expected = this.expected.computeIfAbsent(sql, duckdb::query);
    QueryResult[] actual = new QueryResult[1];
    queryThread.run(QUERY_TIMEOUT, label, () -> actual[0] = quiver.query(sql));
    Differential.check(label, sql, expected, actual[0], Differential.sortOf(sql, expected));
  }
}
