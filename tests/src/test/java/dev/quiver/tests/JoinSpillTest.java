package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hash joins whose build side is several times the memory pool spill (grace hash join) and give
 * DuckDB's rows, for every join type (inner, left, right, full, semi, anti, null-aware anti, IS NOT
 * DISTINCT FROM keys, residual filters): in process at several partition counts, batch sizes and
 * spill fan-outs, and on an embedded cluster of 2 executors. TPC-H SF 0.1 under a memory limit of a
 * few MB (the pool a third of it), where orders and lineitem's join columns take tens of MB; the
 * spill shows in EXPLAIN ANALYZE and the tasks' metrics, and its files are gone after each query.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JoinSpillTest {
  private static final double SCALE = 0.1;
  private static final long MEMORY_LIMIT = 12L << 20;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(120);

  /** Name and SQL of each join; results are small (grouped) so the limit binds the joins. */
  private static final Map<String, String> QUERIES =
      new java.util.LinkedHashMap<>(
          Map.of(
              "inner",
              "SELECT o_orderpriority, count(*) AS n, sum(l_extendedprice) AS price"
                  + " FROM orders JOIN lineitem ON o_orderkey = l_orderkey"
                  + " GROUP BY o_orderpriority",
              "inner with residual filter",
              "SELECT l_returnflag, count(*) AS n FROM orders JOIN lineitem"
                  + " ON o_orderkey = l_orderkey AND l_extendedprice * 4 > o_totalprice"
                  + " GROUP BY l_returnflag",
              "left with residual filter",
              "SELECT count(*) AS n, count(l_orderkey) AS matched, sum(o_totalprice) AS total"
                  + " FROM orders LEFT JOIN lineitem ON o_orderkey = l_orderkey"
                  + " AND l_quantity > 45",
              "right",
              "SELECT count(*) AS n, count(o_orderkey) AS matched FROM"
                  + " (SELECT * FROM orders WHERE o_orderkey % 3 = 0) o"
                  + " RIGHT JOIN lineitem ON o_orderkey = l_orderkey",
              "full",
              "SELECT count(*) AS n, count(o_orderkey) AS o_rows, count(l_orderkey) AS l_rows,"
                  + " sum(o_totalprice) AS total FROM"
                  + " (SELECT * FROM orders WHERE o_orderkey % 5 <> 0) o FULL JOIN"
                  + " (SELECT * FROM lineitem WHERE l_orderkey % 7 <> 0) l"
                  + " ON o_orderkey = l_orderkey",
              "semi",
              "SELECT o_orderstatus, count(*) AS n FROM orders WHERE EXISTS"
                  + " (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey"
                  + " AND l_commitdate < l_receiptdate) GROUP BY o_orderstatus",
              "anti",
              "SELECT o_orderstatus, count(*) AS n FROM orders WHERE NOT EXISTS"
                  + " (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey"
                  + " AND l_commitdate < l_receiptdate) GROUP BY o_orderstatus",
              "null-aware anti (NOT IN)",
              "SELECT count(*) AS n FROM orders WHERE o_orderkey NOT IN"
                  + " (SELECT CASE WHEN l_orderkey % 11 = 0 THEN l_orderkey + 1 ELSE l_orderkey END"
                  + " FROM lineitem WHERE l_linenumber = 1)",
              "is not distinct from",
              "SELECT count(*) AS n, sum(l_quantity) AS q FROM"
                  + " (SELECT CASE WHEN o_orderkey % 97 = 0 THEN NULL ELSE o_orderkey END AS k"
                  + " FROM orders) o JOIN"
                  + " (SELECT CASE WHEN l_orderkey % 97 = 0 THEN NULL ELSE l_orderkey END AS k,"
                  + " l_quantity FROM lineitem WHERE l_linenumber <= 2) l"
                  + " ON o.k IS NOT DISTINCT FROM l.k"));

  @TempDir Path spillDir;
  private final QueryThread queryThread = new QueryThread();
  private Path data;
  private RowEngine duckdb;

  @BeforeAll
  void open() {
    data = TpchFixture.data(SCALE);
    queryThread.run(Duration.ofSeconds(120), "open", () -> duckdb = Differential.reference(data));
  }

  @AfterAll
  void close() {
    try {
      queryThread.run(Duration.ofSeconds(60), "close", () -> duckdb.close());
    } finally {
      queryThread.close();
    }
  }

  private SessionConfig config(int partitions, int batchSize, int fanout) {
    SessionConfig config =
        new SessionConfig()
            .withTargetPartitions(partitions)
            .withBatchSize(batchSize)
            .withMemoryLimit(MEMORY_LIMIT)
            .withSpillDirectory(spillDir);
    config.set(BindingSettings.JOIN_SPILL_PARTITIONS.key(), Integer.toString(fanout));
    return config;
  }

  private void checkAll(RowEngine quiver, String label) {
    for (Map.Entry<String, String> q : QUERIES.entrySet()) {
      String sql = q.getValue();
      queryThread.run(
          QUERY_TIMEOUT,
          q.getKey(),
          () -> {
            QueryResult expected = duckdb.query(sql);
            QueryResult actual = quiver.query(sql);
            Differential.check(
                q.getKey() + " " + label,
                sql,
                expected,
                actual,
                Differential.sortOf(sql, expected));
          });
      assertThat(spillFiles()).as("spill files left by " + q.getKey() + " " + label).isZero();
    }
  }

  private long spillFiles() {
    try (Stream<Path> files = Files.list(spillDir)) {
      return files.count();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void inProcess() {
    runInProcess(3, 1000, 4);
  }

  /** More partition counts, batch sizes and fan-outs (minutes; run with the slow suites). */
  @Test
  @Tag("slow")
  void inProcessAtSeveralPartitionCountsBatchSizesAndFanOuts() {
    runInProcess(1, 8192, 16);
    runInProcess(4, 4096, 2);
    runInProcess(2, 777, 3);
  }

  private void runInProcess(int partitions, int batchSize, int fanout) {
    SessionContext ctx = new SessionContext(config(partitions, batchSize, fanout));
    try (QuiverRows quiver = new QuiverRows(ctx, data, "quiver", () -> {})) {
      String label =
          String.format(
              "(partitions %d, batch size %d, fan-out %d)", partitions, batchSize, fanout);
      checkAll(quiver, label);
      String[] plan = new String[1];
      queryThread.run(
          QUERY_TIMEOUT,
          "explain analyze",
          () -> plan[0] = ctx.sql(QUERIES.get("inner")).explain(true));
      assertThat(plan[0])
          .as("EXPLAIN ANALYZE " + label)
          .containsPattern("HashJoinExec[^\\n]*\\n?[^\\n]*spilled_bytes=[1-9]");
    }
  }

  @Test
  void onAnEmbeddedClusterOfTwoExecutors() {
    ClusterFixture.ClusterRows[] cluster = new ClusterFixture.ClusterRows[1];
    queryThread.run(
        Duration.ofSeconds(120),
        "start cluster",
        () -> cluster[0] = ClusterFixture.embedded(2, data, config(4, 4096, 8)));
    try {
      checkAll(cluster[0].rows(), "on an embedded cluster");
      long spilled = 0;
      for (JobStatusUpdate job : List.copyOf(cluster[0].jobs())) {
        for (StageStatus stage : job.getStagesList()) {
          for (TaskSummary task : stage.getTasksList()) {
            spilled += task.getMetrics().getSpilledBytes();
          }
        }
      }
      assertThat(spilled).as("bytes the cluster's tasks spilled").isPositive();
    } finally {
      queryThread.run(Duration.ofSeconds(60), "stop cluster", () -> cluster[0].rows().close());
    }
  }
}
