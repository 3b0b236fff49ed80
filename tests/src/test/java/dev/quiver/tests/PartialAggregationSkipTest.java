package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.BindingSettings;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A partial aggregation that does not reduce rows (about as many groups as rows when it checks)
 * stops keeping its table across batches and aggregates each batch on its own
 * (quiver.execution.partial_aggregation_*): answers against DuckDB over TPC-H SF 0.1 with keys that
 * hardly repeat, NULL keys, string keys, every accumulator kind and DISTINCT aggregates, at several
 * partition counts and batch sizes, with the check early and never, in one process and on an
 * embedded cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("slow") // about 5 minutes on a shared 2-core machine
class PartialAggregationSkipTest {
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(60);

  private static final String SUPPLIERS =
      "select l_suppkey, count(*) as n, sum(l_quantity) as q from lineitem group by l_suppkey";

  private static final List<String> QUERIES =
      List.of(
          // One group per line item: the partial aggregate cannot reduce anything.
          "select l_orderkey, l_linenumber, count(*) as n, count(l_shipinstruct) as ns,"
              + " sum(l_quantity) as q, sum(l_suppkey) as s, sum(l_tax * 1.0e0) as t,"
              + " avg(l_extendedprice) as p, avg(l_partkey) as ap, min(l_shipdate) as d0,"
              + " max(l_comment) as c, min(l_discount) as m, bool_or(l_returnflag = 'R') as r,"
              + " bool_and(l_linestatus = 'O') as o, stddev_samp(l_quantity) as sd,"
              + " var_pop(l_tax) as vp, covar_pop(l_quantity, l_tax) as cv"
              + " from lineitem group by l_orderkey, l_linenumber",
          // NULL keys (every first line), nearly unique otherwise, with a filtered aggregate.
          "select case when l_linenumber = 1 then null else l_orderkey end as k, l_suppkey,"
              + " count(*) as n, sum(l_quantity) filter (where l_discount > 0.05) as fq,"
              + " max(case when l_linenumber = 2 then null else l_shipmode end) as sm"
              + " from lineitem group by 1, 2",
          // A string key that hardly repeats, and a HAVING over the merged groups.
          "select l_comment, count(*) as n, sum(l_extendedprice) as p from lineitem"
              + " group by l_comment having count(*) > 1",
          // DISTINCT aggregates next to ordinary ones (planned without a partial phase).
          "select o_custkey, count(distinct o_orderpriority) as pr, count(*) as n,"
              + " sum(o_totalprice) as t from orders group by o_custkey",
          // Keys that do reduce: the check passes and the table is kept.
          "select l_returnflag, l_linestatus, count(*) as n, sum(l_quantity) as q"
              + " from lineitem group by l_returnflag, l_linestatus",
          SUPPLIERS);

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
  void inProcessAtSeveralPartitionCountsBatchSizesAndProbes() {
    // Whether the partial aggregate by l_suppkey gives up: the first batch of 8,192 rows holds
    // about 1,000 suppliers (12%), the first 1,000 rows about 632 (63%), 100,000 rows 1%.
    check(2, 8192, 1_000, 10, true);
    check(3, 1000, 1_000, 50, true);
    check(4, 777, 100_000, 80, false);
    check(2, 4096, 1_000, 100, false);
    check(2, 4096, 0, 80, false);
  }

  @Test
  void onAnEmbeddedClusterOfTwoExecutors() {
    ClusterFixture.ClusterRows[] cluster = new ClusterFixture.ClusterRows[1];
    queryThread.run(
        Duration.ofSeconds(120),
        "start cluster",
        () -> cluster[0] = ClusterFixture.embedded(2, data, config(2, 4096, 2_000, 80)));
    try {
      for (String sql : QUERIES) {
        compare(cluster[0].rows(), sql, "on an embedded cluster of 2");
      }
    } finally {
      queryThread.run(QUERY_TIMEOUT, "close cluster", () -> cluster[0].rows().close());
    }
  }

  private static SessionConfig config(int partitions, int batchSize, long probeRows, int percent) {
    return new SessionConfig()
        .withTargetPartitions(partitions)
        .withBatchSize(batchSize)
        .set(BindingSettings.PARTIAL_AGGREGATION_PROBE_ROWS.key(), Long.toString(probeRows))
        .set(BindingSettings.PARTIAL_AGGREGATION_SKIP_PERCENT.key(), Integer.toString(percent));
  }

  private void check(int partitions, int batchSize, long probeRows, int percent, boolean skips) {
    SessionContext ctx = new SessionContext(config(partitions, batchSize, probeRows, percent));
    try (QuiverRows quiver = new QuiverRows(ctx, data, "quiver", () -> {})) {
      String label =
          partitions
              + " partitions, batch size "
              + batchSize
              + ", probe rows "
              + probeRows
              + ", skip percent "
              + percent;
      for (String sql : QUERIES) {
        compare(quiver, sql, label);
      }
      // l_suppkey (1,000 suppliers) repeats all over lineitem: a partial aggregate that keeps
      // its table emits each supplier at most once per partition, one that gave up at the
      // check emits them once per batch.
      String[] plan = new String[1];
      queryThread.run(
          QUERY_TIMEOUT, "explain analyze", () -> plan[0] = ctx.sql(SUPPLIERS).explain(true));
      Matcher m =
          Pattern.compile("HashAggregateExec: mode=PARTIAL[^\\n]*output_rows=(\\d+)")
              .matcher(plan[0]);
      assertThat(m.find()).as("partial aggregate in\n%s", plan[0]).isTrue();
      long partialRows = Long.parseLong(m.group(1));
      if (skips) {
        assertThat(partialRows).as(label).isGreaterThan(10_000L);
      } else {
        assertThat(partialRows).as(label).isLessThanOrEqualTo(1_000L * partitions);
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
