package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.iceberg.catalog.FileSystemTables;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE TABLE AS and INSERT into Iceberg tables on an embedded cluster of 2 executors: the job's
 * final stage ends in the table write, so its tasks (on both executors) write the data files and
 * the session commits them once; Iceberg's own reader reads what DuckDB computes over the same
 * rows, at several task counts. A job that fails in the middle commits nothing and leaves no file.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class IcebergClusterWriteTest {
  @TempDir static Path tmp;
  private ClusterLifecycle lifecycle;
  private SessionContext ctx;
  private Connection duck;
  private IcebergModel events;
  private String source;

  /** The final stage's plan and status of every job that succeeded. */
  record Job(int finalStage, String finalPlan, JobStatusUpdate status) {
    /** A listener adding each job that succeeds to {@code jobs}. */
    static JobListener into(List<Job> jobs) {
      return (graph, status) ->
          jobs.add(
              new Job(
                  graph.finalStage().id(), StageGraph.planText(graph.finalStage().root()), status));
    }
  }

  private final List<Job> jobs = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  void start() throws Exception {
    events = IcebergTables.events(tmp.resolve("events").toString());
    source = "iceberg_scan('" + events.table.location() + "')";
    Injector injector = Guice.createInjector(new EmbeddedClusterModule(2, new SessionConfig()));
    lifecycle = injector.getInstance(ClusterLifecycle.class);
    ClusterRuntime runtime = lifecycle.start();
    runtime.addJobListener(Job.into(jobs));
    ctx = injector.getInstance(SessionContext.class);
    ctx.sql("ATTACH '" + tmp.resolve("warehouse") + "' AS lake (TYPE iceberg)");
    duck = DriverManager.getConnection("jdbc:duckdb:");
    IcebergModel.load(duck, "t", events.table.schema(), events.live);
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

  /**
   * The statement just run was one job whose final stage wrote the table: its tasks, on the
   * executors, ran the write node; returns the executors they ran on.
   */
  static Set<String> wroteOnExecutors(List<Job> jobs) {
    Set<String> executors = new TreeSet<>();
    synchronized (jobs) {
      assertThat(jobs).as("one distributed job").hasSize(1);
      Job job = jobs.get(0);
      assertThat(job.finalPlan()).contains("IcebergWriteExec");
      StageStatus stage =
          job.status().getStagesList().stream()
              .filter(s -> s.getStageId() == job.finalStage())
              .findFirst()
              .orElseThrow();
      for (TaskSummary t : stage.getTasksList()) {
        executors.add(t.getExecutorId());
      }
      jobs.clear();
    }
    assertThat(executors).isNotEmpty();
    return executors;
  }

  @Test
  void createAndInsertWriteTheFilesOnTheExecutors() throws Exception {
    for (int tasks : new int[] {1, 3, 6}) {
      ctx.config()
          .set(DistributedSettings.BYTES_PER_TASK, "1k")
          .set(DistributedSettings.MAX_TASKS, Integer.toString(tasks))
          .withBatchSize(40);
      jobs.clear();
      Set<String> writers =
          createAndInsert(ctx, duck, jobs, source, "w" + tasks, tmp.resolve("warehouse"));
      if (tasks > 1) {
        assertThat(writers).as("writers at %d tasks", tasks).hasSize(2);
      }
    }
  }

  /**
   * CREATE TABLE lake.db.{@code table} PARTITIONED BY AS and an INSERT from {@code source} (the
   * events table, which DuckDB holds as t), each one job whose final stage writes the files and one
   * commit; Iceberg's reader reads DuckDB's rows. Returns the executors that wrote.
   */
  static Set<String> createAndInsert(
      SessionContext ctx,
      Connection duck,
      List<Job> jobs,
      String source,
      String table,
      Path warehouse)
      throws Exception {
    String name = "lake.db." + table;
    try {
      ctx.sql(
          "CREATE TABLE "
              + name
              + " PARTITIONED BY (month(d), bucket(4, id)) AS SELECT * FROM "
              + source);
      Set<String> writers = wroteOnExecutors(jobs);
      ctx.sql("INSERT INTO " + name + " SELECT * FROM " + source + " WHERE id % 2 = 0");
      writers.addAll(wroteOnExecutors(jobs));
      Table t = FileSystemTables.load(warehouse.resolve("db/" + table).toString(), null);
      // One commit per statement.
      assertThat(t.snapshots()).hasSize(2);
      assertThat(IcebergWriteTest.icebergRows(t))
          .as("Iceberg's reader of %s", name)
          .containsExactlyInAnyOrderElementsOf(
              IcebergReadTest.duckdb(
                  duck, "SELECT * FROM t UNION ALL SELECT * FROM t WHERE id % 2 = 0"));
      IcebergWriteTest.filesHoldOnlyTheirPartition(t);
      return writers;
    } finally {
      ctx.sql("DROP TABLE IF EXISTS " + name);
    }
  }

  @Test
  void aJobFailingInTheMiddleCommitsNothingAndLeavesNoFile() throws Exception {
    ctx.config()
        .set(DistributedSettings.BYTES_PER_TASK, "1k")
        .set(DistributedSettings.MAX_TASKS, "4")
        .withBatchSize(20);
    Path location = tmp.resolve("warehouse/db/f");
    ctx.sql("CREATE TABLE lake.db.f AS SELECT * FROM " + source);
    try {
      Table table = FileSystemTables.load(location.toString(), null);
      // A file per batch: the tasks write files before the failing row.
      table.updateProperties().set(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, "1").commit();
      long snapshot = table.currentSnapshot().snapshotId();
      Set<Path> before = IcebergWriteTest.files(location.resolve("data"));
      long last = Long.parseLong(SameRows.quiver(ctx, "SELECT max(id) FROM " + source).get(0));
      jobs.clear();
      // The row with the largest id divides by zero; the other tasks succeed.
      assertThatThrownBy(
              () ->
                  ctx.sql(
                      "INSERT INTO lake.db.f SELECT name, id + 1 / (id - "
                          + last
                          + "), category, amount, quantity, ratio, d, note FROM "
                          + source))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("zero");
      assertThat(jobs).as("no job succeeded").isEmpty();
      // Cancelled tasks delete their own files as they stop: wait for the folder to settle.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!IcebergWriteTest.files(location.resolve("data")).equals(before)
          && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(IcebergWriteTest.files(location.resolve("data"))).isEqualTo(before);
      table.refresh();
      assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
      assertThat(IcebergWriteTest.icebergRows(table))
          .containsExactlyInAnyOrderElementsOf(IcebergReadTest.duckdb(duck, "SELECT * FROM t"));
    } finally {
      ctx.sql("DROP TABLE IF EXISTS lake.db.f");
    }
  }
}
