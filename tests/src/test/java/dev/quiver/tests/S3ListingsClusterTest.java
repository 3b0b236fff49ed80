package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.HivePartitionTest;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.S3ProxyServer;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.client.JobHandle;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobStatusUpdate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tables in S3 (S3Proxy, recording the requests it receives) on an embedded cluster of 2 executors:
 * a registered Hive-partitioned table is listed once, when registered, and neither the planner nor
 * any task lists it again; a statement reading one prefix three times through {@code read_parquet}
 * lists it once; an object replaced after its table was listed fails the tasks with a typed error
 * (its ETag travels in the plan) instead of being read through the old footer. Answers checked
 * against DuckDB on the same files, at 2 and 5 tasks a stage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class S3ListingsClusterTest {
  @TempDir static Path tmp;
  private S3ProxyServer s3;
  private ClusterLifecycle lifecycle;
  private SessionContext ctx;
  private Path dir;
  private String uri;
  private final List<JobStatusUpdate> jobs = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger submitted = new AtomicInteger();

  @BeforeAll
  void start() throws Exception {
    dir = HivePartitionTest.write(tmp);
    s3 = S3ProxyServer.startRecordingRequests();
    s3.createBucket("lake");
    uri = s3.put(dir, "lake", "events");
    Injector injector =
        Guice.createInjector(new EmbeddedClusterModule(2, s3.configure(new SessionConfig())));
    lifecycle = injector.getInstance(ClusterLifecycle.class);
    ClusterRuntime runtime = lifecycle.start();
    runtime.addJobListener(
        new JobListener() {
          @Override
          public void jobSucceeded(StageGraph graph, JobStatusUpdate status) {
            jobs.add(status);
          }

          @Override
          public void jobSubmitted(StageGraph graph, JobHandle job) {
            submitted.incrementAndGet();
          }
        });
    ctx = injector.getInstance(SessionContext.class);
  }

  @AfterAll
  void stop() {
    try {
      if (ctx != null) {
        ctx.close();
      }
    } finally {
      try {
        if (lifecycle != null) {
          lifecycle.close();
        }
      } finally {
        if (s3 != null) {
          s3.close();
        }
      }
    }
  }

  private void configure(int tasks) {
    ctx.config()
        .set(DistributedSettings.BYTES_PER_TASK, "1k")
        .set(DistributedSettings.MAX_TASKS, Integer.toString(tasks))
        .withBatchSize(100);
  }

  /** The LIST requests {@code action} made. */
  private List<String> listsOf(Runnable action) {
    int before = s3.requests().size();
    action.run();
    List<String> all = s3.requests();
    return S3ProxyServer.lists(all.subList(before, all.size()));
  }

  private void ranOnBothExecutors() {
    Set<String> executors = new TreeSet<>();
    synchronized (jobs) {
      for (JobStatusUpdate job : jobs) {
        executors.addAll(ClusterFixture.executorsOf(job));
      }
      jobs.clear();
    }
    assertThat(executors).as("tasks ran on both executors").hasSize(2);
  }

  @Test
  void registeredTableIsListedOnceAndStatementsListEachPrefixOnce() throws Exception {
    assertThat(listsOf(() -> ctx.registerParquet("events", uri)))
        .containsExactly("GET /lake?list-type=2&prefix=events");
    String three =
        "SELECT a.cat, count(*) AS n, sum(b.v) AS s FROM events a JOIN events b ON a.id = b.id"
            + " WHERE a.id IN (SELECT id FROM events WHERE cat = 'b' OR dt = DATE '2026-01-01')"
            + " GROUP BY a.cat";
    String files = three.replace("events", "read_parquet('" + uri + "')");
    try {
      for (int tasks : new int[] {2, 5}) {
        configure(tasks);
        jobs.clear();
        for (String sql : HivePartitionTest.QUERIES) {
          AtomicReference<List<String>> got = new AtomicReference<>();
          assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, sql))))
              .as("planning and tasks list nothing: " + sql)
              .isEmpty();
          SameRows.same(HivePartitionTest.duckdb(dir, sql), got.get(), sql);
        }
        List<String> want = HivePartitionTest.duckdb(dir, three);
        AtomicReference<List<String>> got = new AtomicReference<>();
        assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, three)))).isEmpty();
        SameRows.same(want, got.get(), three);
        assertThat(listsOf(() -> got.set(SameRows.quiver(ctx, files))))
            .as("three reads of one prefix in one statement")
            .containsExactly("GET /lake?list-type=2&prefix=events");
        SameRows.same(want, got.get(), three);
        ranOnBothExecutors();
      }
    } finally {
      ctx.deregisterTable("events");
    }
  }

  /**
   * Tasks are sized from the sizes the listing gave (quiver.distributed.bytes_per_task), not from
   * local file sizes, which objects in a store do not have: a table of a few kilobytes is one task
   * when a task may read a gigabyte (it was one per slot), and several when it may read a kilobyte.
   */
  @Test
  void tasksAreSizedFromTheListedObjectSizes() {
    ctx.registerParquet("sized", uri);
    try {
      String sql = "SELECT cat, count(*) FROM sized GROUP BY cat";
      configure(5);
      ctx.config().set(DistributedSettings.BYTES_PER_TASK, "1g");
      jobs.clear();
      SameRows.quiver(ctx, sql);
      assertThat(maxTasksOfLastJob()).as("one task reads the whole small table").isEqualTo(1);
      configure(5);
      SameRows.quiver(ctx, sql);
      assertThat(maxTasksOfLastJob()).as("1 KiB a task").isGreaterThan(1);
    } finally {
      ctx.deregisterTable("sized");
    }
  }

  private int maxTasksOfLastJob() {
    synchronized (jobs) {
      JobStatusUpdate last = jobs.get(jobs.size() - 1);
      jobs.clear();
      return last.getStagesList().stream().mapToInt(s -> s.getTaskCount()).max().orElseThrow();
    }
  }

  @Test
  void objectReplacedAfterListingFailsTyped() throws Exception {
    Path a = tmp.resolve("a.parquet");
    Path b = tmp.resolve("b.parquet");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT i::BIGINT AS v FROM range(5000) t(i)) TO '"
              + a
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 1000)");
      s.execute(
          "COPY (SELECT (i + 1000000)::BIGINT AS v FROM range(5000) t(i)) TO '"
              + b
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 1000)");
    }
    String file = s3.put(a, "lake", "replaced/f.parquet");
    configure(2);
    ctx.registerParquet("snap", file);
    try {
      jobs.clear();
      assertThat(SameRows.quiver(ctx, "SELECT count(*), sum(v) FROM snap"))
          .containsExactly("5000|12497500");
      ranOnBothExecutors();
      s3.put(b, "lake", "replaced/f.parquet");
      int before = submitted.get();
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT count(*), sum(v) FROM snap"))
          .isInstanceOf(ObjectStoreException.class)
          .hasMessageContaining(file)
          .hasMessageContaining("replaced");
      assertThat(submitted.get()).as("the query ran as a job on the cluster").isGreaterThan(before);
      // Registered again, the table reads the new content.
      ctx.deregisterTable("snap");
      ctx.registerParquet("snap", file);
      assertThat(SameRows.quiver(ctx, "SELECT count(*), sum(v) FROM snap"))
          .containsExactly("5000|5012497500");
    } finally {
      ctx.deregisterTable("snap");
      Files.deleteIfExists(a);
    }
  }
}
