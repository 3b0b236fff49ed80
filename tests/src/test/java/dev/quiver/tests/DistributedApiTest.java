package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.ConstraintViolationException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.BindingModule;
import dev.quiver.decorators.DistributedDataFrame;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.DistributedExtension;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.examples.app.RevenueReport;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The user-facing promise on an embedded cluster of 2: app code typed against the binding gives the
 * same answers with a decorated session; explain shows the stages; several clients at once; clear
 * errors for what cannot run on the cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DistributedApiTest {
  private Path dir;
  private Injector injector;

  @BeforeAll
  void start() {
    dir = TpchFixture.data(0.01);
    injector =
        Guice.createInjector(
            new EmbeddedClusterModule(
                2, new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, "64k")));
  }

  @AfterAll
  void stop() {
    injector.getInstance(ClusterLifecycle.class).close();
  }

  private SessionContext distributed() {
    SessionContext ctx = injector.getInstance(SessionContext.class);
    for (String table : TpchData.TABLES) {
      ctx.registerParquet(table, TpchData.tableDirectory(dir, table).toString());
    }
    return ctx;
  }

  /** Plain application code: it only knows the binding's API. */
  static long countLineitems(SessionContext ctx) {
    return ctx.sql("SELECT * FROM lineitem WHERE l_quantity > 10").count();
  }

  @Test
  void sameMethodSameAnswerOnPlainAndDecoratedSessions() {
    try (SessionContext plain = new SessionContext();
        SessionContext decorated = distributed()) {
      for (String table : TpchData.TABLES) {
        plain.registerParquet(table, TpchData.tableDirectory(dir, table).toString());
      }
      assertThat(decorated).isInstanceOf(DistributedSessionContext.class);
      long expected = countLineitems(plain);
      assertThat(expected).isPositive();
      assertThat(countLineitems(decorated)).isEqualTo(expected);
    }
  }

  @Test
  void guiceServiceRunsUnchangedWithEitherModule() {
    RevenueReport local =
        Guice.createInjector(new BindingModule()).getInstance(RevenueReport.class);
    RevenueReport onCluster = injector.getInstance(RevenueReport.class);
    local.registerTpch(dir.toString());
    onCluster.registerTpch(dir.toString());
    assertThat(onCluster.countLineitems()).isEqualTo(local.countLineitems());
    assertThat(onCluster.topRevenue(1995)).isEqualByComparingTo(local.topRevenue(1995));
  }

  @Test
  void withExtensionsGivesTheSameWithoutGuice() {
    ClusterLifecycle lifecycle = injector.getInstance(ClusterLifecycle.class);
    try (SessionContext ctx =
            new SessionContext().withExtensions(DistributedExtension.over(lifecycle.start()));
        SessionContext plain = new SessionContext()) {
      for (String table : TpchData.TABLES) {
        ctx.registerParquet(table, TpchData.tableDirectory(dir, table).toString());
        plain.registerParquet(table, TpchData.tableDirectory(dir, table).toString());
      }
      ctx.sql("SET quiver.distributed.bytes_per_task = '64k'");
      String sql = "SELECT l_returnflag, count(*) AS n FROM lineitem GROUP BY l_returnflag";
      assertThat(ctx.sql(sql).explain()).contains("DistributedQueryExec");
      assertThat(countLineitems(ctx)).isEqualTo(countLineitems(plain));
    }
  }

  @Test
  void explainShowsStagesAndAnalyzeShowsTaskMetrics() {
    try (SessionContext ctx = distributed()) {
      DataFrame df =
          ctx.sql(
              "SELECT o_orderpriority, count(*) AS n FROM orders JOIN lineitem ON o_orderkey ="
                  + " l_orderkey GROUP BY o_orderpriority ORDER BY o_orderpriority");
      String plan = df.explain();
      assertThat(plan)
          .contains("DistributedQueryExec")
          .contains("Stage 1: tasks=")
          .contains("boundary=HASH_SHUFFLE")
          .contains("boundary=RESULT")
          .contains("ShuffleReaderExec");
      String analyzed = df.explain(true);
      assertThat(analyzed).contains("succeeded: rows=").contains("task 0 #0 on ");
      String dot = ((DistributedDataFrame) df).explainDot().orElseThrow();
      assertThat(dot).startsWith("digraph stages {").contains("-> client");
    }
  }

  @Test
  void rollupRunsAsPartialAndFinalAggregatesAcrossStages() {
    String sql =
        "SELECT l_returnflag, l_linestatus, GROUPING(l_returnflag, l_linestatus) AS g,"
            + " sum(l_quantity) AS qty, count(*) AS n FROM lineitem"
            + " GROUP BY ROLLUP(l_returnflag, l_linestatus) ORDER BY g, l_returnflag, l_linestatus";
    try (SessionContext ctx = distributed();
        SessionContext plain = new SessionContext()) {
      for (String table : TpchData.TABLES) {
        plain.registerParquet(table, TpchData.tableDirectory(dir, table).toString());
      }
      assertThat(ctx.sql(sql).explain())
          .contains("DistributedQueryExec")
          .contains("boundary=HASH_SHUFFLE")
          .contains("mode=PARTIAL")
          .contains("mode=FINAL")
          .contains("$gid");
      String rows = QuiverRowsText.allColumns(ctx.sql(sql));
      assertThat(rows).isEqualTo(QuiverRowsText.allColumns(plain.sql(sql)));
      // 4 (flag, status) groups, 3 flag subtotals and the grand total, 5 columns each.
      assertThat(rows.split("\n")).hasSize(8 * 5);
    }
  }

  @Test
  void sqlExplainShowsStagesToo() {
    try (SessionContext ctx = distributed()) {
      String text =
          QuiverRowsText.allColumns(
              ctx.sql("EXPLAIN SELECT l_returnflag, sum(l_quantity) FROM lineitem GROUP BY 1"));
      assertThat(text).contains("Stage ").contains("HASH_SHUFFLE");
    }
  }

  @Test
  void fourConcurrentClientsGetCorrectRows() throws Exception {
    List<TpchQuery> queries = TpchQueries.select(List.of(1, 3, 5, 6, 10, 12, 14, 19));
    List<QueryResult> expected = new ArrayList<>();
    try (QuiverRows local = new QuiverRows(dir, 2)) {
      for (TpchQuery q : queries) {
        expected.add(local.query(q.sql()));
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> clients = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        int offset = c;
        clients.add(
            pool.submit(
                () -> {
                  try (QuiverRows rows =
                      new QuiverRows(
                          injector.getInstance(SessionContext.class), dir, "client", () -> {})) {
                    for (int i = 0; i < queries.size(); i++) {
                      int k = (i + offset) % queries.size();
                      TpchQuery q = queries.get(k);
                      QueryResult actual = rows.query(q.sql());
                      Differential.check(
                          "client " + offset + " " + q.name(),
                          q.sql(),
                          expected.get(k),
                          actual,
                          Differential.sortOf(q.orderBy(), expected.get(k)));
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : clients) {
        f.get(100, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void providerTheExecutorsCannotRebuildIsRefusedByName() {
    try (SessionContext ctx = distributed()) {
      assertThatThrownBy(() -> ctx.registerTable("opaque", new OpaqueTable()))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("opaque")
          .hasMessageContaining(OpaqueScan.class.getSimpleName());
    }
  }

  /** Runs {@code statements} in order and returns the count each reported (-1 for none). */
  private static List<Object> run(SessionContext ctx, List<String> statements) {
    List<Object> out = new ArrayList<>();
    for (String sql : statements) {
      DataFrame df = ctx.sql(sql);
      boolean count =
          df.schema().getFields().size() == 1
              && df.schema().getFields().get(0).getName().equals("count");
      out.add(count ? df.rows().get(0).get(0) : -1L);
    }
    return out;
  }

  @Test
  void dmlAndConstraintsOnMemoryTablesGiveTheSameCountsAndRowsOnTheCluster() {
    List<String> statements =
        List.of(
            "CREATE TABLE dml_orders (o_orderkey BIGINT PRIMARY KEY, o_custkey BIGINT NOT NULL,"
                + " o_totalprice DECIMAL(15, 2), o_orderstatus VARCHAR DEFAULT 'N')",
            "INSERT INTO dml_orders SELECT o_orderkey, o_custkey, o_totalprice, o_orderstatus"
                + " FROM orders WHERE o_orderkey < 3000",
            "INSERT INTO dml_orders (o_orderkey, o_custkey) VALUES (-1, 1), (-2, 2)",
            "UPDATE dml_orders SET o_totalprice = o_totalprice * 2, o_orderstatus = 'X' WHERE"
                + " o_custkey IN (SELECT c_custkey FROM customer WHERE c_mktsegment = 'BUILDING')",
            "UPDATE dml_orders AS d SET o_totalprice = (SELECT max(o.o_totalprice) FROM orders o"
                + " WHERE o.o_custkey = d.o_custkey) WHERE d.o_orderstatus = 'N'",
            "DELETE FROM dml_orders WHERE o_totalprice > (SELECT avg(o_totalprice) FROM"
                + " dml_orders)",
            "DESCRIBE dml_orders");
    String check =
        "SELECT o_orderstatus, count(*), sum(o_totalprice), min(o_orderkey) FROM dml_orders"
            + " GROUP BY o_orderstatus ORDER BY o_orderstatus";
    try (SessionContext plain = new SessionContext();
        SessionContext cluster = distributed()) {
      for (String table : TpchData.TABLES) {
        plain.registerParquet(table, TpchData.tableDirectory(dir, table).toString());
      }
      List<Object> expected = run(plain, statements);
      assertThat(expected.subList(1, 6)).allSatisfy(c -> assertThat((Long) c).isPositive());
      assertThat(run(cluster, statements)).isEqualTo(expected);
      assertThat(cluster.sql(check).rows()).isEqualTo(plain.sql(check).rows());
      assertThat(cluster.sql("DESCRIBE dml_orders").rows())
          .isEqualTo(plain.sql("DESCRIBE dml_orders").rows());
      // Broken keys and NOT NULL fail with the typed error on the cluster too; nothing is written.
      Object before = cluster.sql("SELECT count(*) FROM dml_orders").rows().get(0).get(0);
      assertThatThrownBy(
              () ->
                  cluster.sql(
                      "INSERT INTO dml_orders SELECT o_orderkey, 1, 0, 'D' FROM orders WHERE o_orderkey < 20"))
          .isInstanceOf(ConstraintViolationException.class)
          .hasMessageContaining("dml_orders");
      assertThatThrownBy(
              () -> cluster.sql("UPDATE dml_orders SET o_custkey = NULL WHERE o_orderkey = -1"))
          .isInstanceOf(ConstraintViolationException.class)
          .hasMessageContaining("o_custkey");
      assertThat(cluster.sql("SELECT count(*) FROM dml_orders").rows().get(0).get(0))
          .isEqualTo(before);
      // The new contents are computed by a job on the cluster: it ships the memory table to the
      // executors, which the shipping limit refuses.
      cluster.sql("SET quiver.distributed.max_memory_table_bytes = '1k'");
      assertThatThrownBy(() -> cluster.sql("DELETE FROM dml_orders WHERE o_custkey = 1"))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("quiver.distributed.max_memory_table_bytes");
      cluster.sql("SET quiver.distributed.max_memory_table_bytes = '256MB'");
      assertThat(cluster.sql("SELECT count(*) FROM dml_orders").rows().get(0).get(0))
          .isEqualTo(before);
    }
  }

  @Test
  void memoryTableAboveTheShippingLimitFailsClearly() {
    try (SessionContext ctx = distributed()) {
      ctx.sql("SET quiver.distributed.max_memory_table_bytes = '1k'");
      ctx.sql("CREATE TABLE big AS SELECT * FROM lineitem LIMIT 5000");
      assertThatThrownBy(() -> ctx.sql("SELECT count(*) FROM big GROUP BY l_returnflag").collect())
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("quiver.distributed.max_memory_table_bytes");
    }
  }

  /** A provider whose scan node no codec knows. */
  private static final class OpaqueTable implements TableProvider {
    @Override
    public Schema schema() {
      return new Schema(List.of());
    }

    @Override
    public ExecutionPlan scan(ScanRequest request) {
      return new OpaqueScan();
    }
  }

  private static final class OpaqueScan extends BaseExecutionPlan {
    OpaqueScan() {
      super(new Schema(List.of()), List.of());
    }

    @Override
    public Partitioning outputPartitioning() {
      return Partitioning.single();
    }

    @Override
    public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
      return this;
    }

    @Override
    protected BatchStream doExecute(int partition, TaskContext context) {
      throw new UnsupportedOperationException("never executed by this test");
    }

    @Override
    public String displayDetails() {
      return "";
    }
  }
}
