package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.JobStatusUpdate;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Iceberg tables of {@link IcebergReadTest} on an embedded cluster of 2 executors: the scans
 * ship as plan nodes and each executor reads its splits, deletes applied, at several task counts
 * and batch sizes; every answer equals DuckDB's over the rows the table should hold.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class IcebergClusterTest {
  @TempDir static Path tmp;
  private ClusterLifecycle lifecycle;
  private SessionContext ctx;
  private Connection duck;
  private IcebergModel events;
  private IcebergModel times;
  private final List<JobStatusUpdate> jobs = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  void start() throws Exception {
    events = IcebergTables.events(tmp.resolve("events").toString());
    times = IcebergTables.times(tmp.resolve("times").toString());
    Injector injector = Guice.createInjector(new EmbeddedClusterModule(2, new SessionConfig()));
    lifecycle = injector.getInstance(ClusterLifecycle.class);
    ClusterRuntime runtime = lifecycle.start();
    runtime.addJobListener((graph, status) -> jobs.add(status));
    ctx = injector.getInstance(SessionContext.class);
    duck = DriverManager.getConnection("jdbc:duckdb:");
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (duck != null) {
        duck.close();
      }
      if (ctx != null) {
        ctx.close();
      }
    } finally {
      if (lifecycle != null) {
        lifecycle.close();
      }
    }
  }

  private void ranOnBothExecutors() {
    Set<String> executors = new TreeSet<>();
    synchronized (jobs) {
      assertThat(jobs).as("ran as distributed jobs").isNotEmpty();
      for (JobStatusUpdate job : jobs) {
        executors.addAll(ClusterFixture.executorsOf(job));
      }
      jobs.clear();
    }
    assertThat(executors).hasSize(2);
  }

  @Test
  void tablesMatchDuckDbOnTwoExecutors() throws Exception {
    ctx.registerIceberg("events", events.table.location());
    try {
      for (int tasks : new int[] {2, 5}) {
        for (int batch : new int[] {50, 4096}) {
          ctx.config()
              .set(DistributedSettings.BYTES_PER_TASK, "1k")
              .set(DistributedSettings.MAX_TASKS, Integer.toString(tasks))
              .withBatchSize(batch);
          IcebergReadTest.compare(
              ctx,
              duck,
              "events",
              events.table.schema(),
              events.live,
              IcebergReadTest.EVENT_QUERIES);
          IcebergReadTest.compare(
              ctx,
              duck,
              "iceberg_scan('" + times.table.location() + "')",
              times.table.schema(),
              times.live,
              IcebergReadTest.TIME_QUERIES);
          ranOnBothExecutors();
        }
      }
    } finally {
      ctx.deregisterTable("events");
    }
  }

  @Test
  void tablesWrittenFromTheClusterMatchDuckDb() throws Exception {
    ctx.config()
        .set(DistributedSettings.BYTES_PER_TASK, "1k")
        .set(DistributedSettings.MAX_TASKS, "4")
        .withBatchSize(100);
    ctx.sql("ATTACH '" + tmp.resolve("warehouse") + "' AS lake (TYPE iceberg)");
    try {
      String source = "iceberg_scan('" + events.table.location() + "')";
      ctx.sql(
          "CREATE TABLE lake.db.copy PARTITIONED BY (month(d), bucket(4, id)) AS SELECT * FROM "
              + source);
      ranOnBothExecutors();
      IcebergReadTest.compare(
          ctx,
          duck,
          "lake.db.copy",
          events.table.schema(),
          events.live,
          IcebergReadTest.EVENT_QUERIES);
      ranOnBothExecutors();
      ctx.sql("DELETE FROM lake.db.copy WHERE id % 3 = 0");
      ctx.sql("INSERT INTO lake.db.copy SELECT * FROM " + source + " WHERE id % 3 = 0 AND id < 50");
      for (String q :
          new String[] {
            "SELECT count(*), sum(id), sum(amount), min(d), max(name) FROM t",
            "SELECT * FROM t WHERE id < 60"
          }) {
        String kept = "(SELECT * FROM " + source + " WHERE id % 3 <> 0 OR id < 50)";
        SameRows.same(
            SameRows.quiver(ctx, q.replace(" FROM t", " FROM " + kept + " AS k")),
            SameRows.quiver(ctx, q.replace(" FROM t", " FROM lake.db.copy")),
            q);
      }
      ranOnBothExecutors();
    } finally {
      ctx.sql("DROP TABLE IF EXISTS lake.db.copy");
      ctx.sql("DETACH lake");
    }
  }

  @Test
  void earlierSnapshotsOnTwoExecutors() throws Exception {
    ctx.config()
        .set(DistributedSettings.BYTES_PER_TASK, "1k")
        .set(DistributedSettings.MAX_TASKS, "4")
        .withBatchSize(100);
    for (Map.Entry<Long, List<IcebergModel.Row>> s : events.bySnapshot.entrySet()) {
      IcebergReadTest.compare(
          ctx,
          duck,
          "iceberg_scan('" + events.table.location() + "', snapshot_id => " + s.getKey() + ")",
          SnapshotUtil.schemaFor(events.table, s.getKey()),
          s.getValue(),
          "SELECT * FROM t",
          "SELECT count(*), sum(id) FROM t");
    }
    ranOnBothExecutors();
  }

  /**
   * One table on S3 (S3Proxy) behind the REST catalog, read by both executors with their own S3
   * settings: as {@code cat.ns.t}, now and at its first snapshot. Every query of {@link
   * IcebergReadTest} runs against local tables in the tests above; here a few cover the S3 and
   * catalog paths, whose requests make each query slow.
   */
  @Test
  void restCatalogTableInS3ReadByBothExecutors() throws Exception {
    try (S3ProxyServer s3 = S3ProxyServer.start()) {
      s3.createBucket("lake");
      try (RestCatalogServer server = IcebergRestCatalogTest.server(s3, null);
          org.apache.iceberg.rest.RESTCatalog writer =
              IcebergRestCatalogTest.writer(s3, server, null)) {
        writer.createNamespace(org.apache.iceberg.catalog.Namespace.of("db"));
        IcebergModel inRest =
            IcebergTables.events(
                writer, org.apache.iceberg.catalog.TableIdentifier.of("db", "events"));
        s3.configure(ctx.config())
            .set(DistributedSettings.BYTES_PER_TASK, "1k")
            .set(DistributedSettings.MAX_TASKS, "4")
            .withBatchSize(100);
        ctx.sql("ATTACH '" + server.uri() + "' AS rest (TYPE iceberg_rest)");
        try {
          IcebergReadTest.compare(
              ctx,
              duck,
              "rest.db.events",
              inRest.table.schema(),
              inRest.live,
              IcebergReadTest.S3_EVENT_QUERIES);
          ranOnBothExecutors();
          long first = inRest.bySnapshot.keySet().iterator().next();
          IcebergReadTest.compare(
              ctx,
              duck,
              "rest.db.events FOR VERSION AS OF " + first,
              SnapshotUtil.schemaFor(inRest.table, first),
              inRest.bySnapshot.get(first),
              "SELECT * FROM t");
          ranOnBothExecutors();
        } finally {
          ctx.sql("DETACH rest");
        }
      }
    }
  }
}
