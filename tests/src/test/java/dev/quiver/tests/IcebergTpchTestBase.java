package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchIceberg;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import dev.quiver.iceberg.catalog.FileSystemTables;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * TPC-H as Iceberg tables ({@link TpchIceberg}: written by Quiver's CREATE TABLE AS from the
 * generated Parquet files, lineitem and orders partitioned by month) in a warehouse folder: the 22
 * queries over them equal DuckDB's over the Parquet files, single node at two partition counts and
 * on {@code EmbeddedClusterModule(2)}; a filter on a partition column leaves one month's file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IcebergTpchTestBase {
  private static final String CATALOG = "tpch";
  private static final Pattern FILES = Pattern.compile("files=(\\d+)");

  @TempDir static Path warehouse;

  private final QueryThread queryThread = new QueryThread();
  private final List<RowEngine> engines = new ArrayList<>();
  private RowEngine reference;
  private Path data;

  /** The TPC-H scale factor. */
  abstract double scale();

  /** The time one query may take on one engine. */
  abstract Duration queryTimeout();

  private String namespace() {
    return TpchIceberg.namespace(scale());
  }

  @BeforeAll
  void open() {
    data = TpchFixture.data(scale());
    queryThread.run(
        queryTimeout().multipliedBy(20),
        "open",
        () -> {
          try (SessionContext ctx =
              new SessionContext(new SessionConfig().withTargetPartitions(4))) {
            attach(ctx);
            List<String> loaded =
                TpchIceberg.load(
                    ctx, CATALOG, namespace(), data, new PrintWriter(Writer.nullWriter()));
            assertThat(loaded).containsExactlyInAnyOrderElementsOf(TpchData.TABLES);
          }
          reference = Differential.reference(data);
          for (int partitions : new int[] {1, 4}) {
            engines.add(
                iceberg(
                    new QuiverRows(
                        new SessionContext(new SessionConfig().withTargetPartitions(partitions)),
                        data,
                        "quiver-iceberg partitions=" + partitions,
                        () -> {})));
          }
          ClusterFixture.ClusterRows cluster =
              ClusterFixture.embedded(2, data, new SessionConfig().withTargetPartitions(3));
          engines.add(iceberg(cluster.rows()));
        });
  }

  private void attach(SessionContext ctx) {
    ctx.attachCatalog(CATALOG, "iceberg", warehouse.toString(), Map.of());
  }

  /** {@code rows} with its TPC-H tables replaced by the Iceberg ones. */
  private QuiverRows iceberg(QuiverRows rows) {
    SessionContext ctx = rows.session();
    attach(ctx);
    TpchIceberg.register(ctx, CATALOG, namespace());
    for (String table : TpchData.TABLES) {
      assertThat(ctx.sql("SELECT count(*) FROM " + table).explain())
          .as(table)
          .contains("IcebergScanExec")
          .doesNotContain("ParquetScan");
    }
    return rows;
  }

  @AfterAll
  void close() {
    try {
      queryThread.run(
          Duration.ofSeconds(60),
          "close",
          () -> {
            engines.forEach(RowEngine::close);
            if (reference != null) {
              reference.close();
            }
          });
    } finally {
      queryThread.close();
    }
  }

  @TestFactory
  Stream<DynamicNode> tpch() {
    List<DynamicNode> perEngine = new ArrayList<>();
    for (RowEngine engine : engines) {
      List<DynamicNode> tests = new ArrayList<>();
      for (TpchQuery q : TpchQueries.all()) {
        tests.add(
            DynamicTest.dynamicTest(
                q.name(), () -> queryThread.run(queryTimeout(), q.name(), () -> run(engine, q))));
      }
      perEngine.add(DynamicContainer.dynamicContainer(engine.name(), tests));
    }
    return perEngine.stream();
  }

  private void run(RowEngine engine, TpchQuery q) {
    QueryResult expected = reference.query(q.sql());
    Differential.check(
        q.name() + " at SF " + scale() + " on " + engine.name() + " against DuckDB over Parquet",
        q.sql(),
        expected,
        engine.query(q.sql()),
        Differential.sortOf(q.orderBy(), expected));
  }

  @Test
  void partitionedByMonthAsTpchIcebergSays() {
    for (String table : TpchData.TABLES) {
      Table t =
          FileSystemTables.load(
              TpchIceberg.tableLocation(warehouse, namespace(), table).toString(), null);
      String partitioned = TpchIceberg.PARTITIONED_BY.get(table);
      if (partitioned == null) {
        assertThat(t.spec().isUnpartitioned()).as(table).isTrue();
      } else {
        assertThat(t.spec().fields()).as(table).hasSize(1);
        assertThat(t.spec().fields().get(0).transform().toString()).as(table).isEqualTo("month");
      }
    }
  }

  /**
   * A month's filter on l_shipdate leaves the files of that month only, on every engine, and counts
   * the rows DuckDB counts in the Parquet files.
   */
  @Test
  void aFilterOnThePartitionColumnPrunesFiles() {
    String month =
        "SELECT count(*) AS n FROM lineitem"
            + " WHERE l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01'";
    queryThread.run(
        queryTimeout(),
        "pruning",
        () -> {
          QueryResult months =
              reference.query(
                  "SELECT count(DISTINCT date_trunc('month', l_shipdate)) AS n FROM lineitem");
          long monthCount = ((Number) months.rows().get(0).get(0)).longValue();
          QueryResult expected = reference.query(month);
          for (RowEngine engine : engines) {
            SessionContext ctx = ((QuiverRows) engine).session();
            int all = files(ctx.sql("SELECT count(*) FROM lineitem").explain());
            int one = files(ctx.sql(month).explain());
            assertThat(all)
                .as(engine.name() + ": lineitem's files")
                .isGreaterThanOrEqualTo((int) monthCount);
            // A month's files only: one or two at SF 0.01 (where a month straddles the writer's
            // buffer), one per writing partition at SF 1, a small share of all of them either way.
            assertThat(one).as(engine.name() + ": files of one month").isBetween(1, all / 10);
            Differential.check(
                "one month's count on " + engine.name(),
                month,
                expected,
                engine.query(month),
                Differential.sortOf(month, expected));
          }
        });
  }

  private static int files(String plan) {
    Matcher m = FILES.matcher(plan);
    assertThat(m.find()).as(plan).isTrue();
    return Integer.parseInt(m.group(1));
  }
}
