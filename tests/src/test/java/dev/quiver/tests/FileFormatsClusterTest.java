package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.datasource.CsvOptionsTest;
import dev.quiver.binding.datasource.HivePartitionTest;
import dev.quiver.binding.datasource.PartitionedCopyTest;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.physical.scan.ParquetLateMaterializationTest;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.JobStatusUpdate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data as it comes, on an embedded cluster of 2 executors: Hive-partitioned Parquet folders and CSV
 * files with other delimiters, quoting, null strings, compression and bad values, each checked
 * against DuckDB reading the same files, at several partition counts and batch sizes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class FileFormatsClusterTest {
  @TempDir Path tmp;
  private ClusterLifecycle lifecycle;
  private SessionContext ctx;
  private final List<JobStatusUpdate> jobs = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  void startCluster() {
    Injector injector = Guice.createInjector(new EmbeddedClusterModule(2, new SessionConfig()));
    lifecycle = injector.getInstance(ClusterLifecycle.class);
    ClusterRuntime runtime = lifecycle.start();
    runtime.addJobListener((graph, status) -> jobs.add(status));
    ctx = injector.getInstance(SessionContext.class);
  }

  @AfterAll
  void stopCluster() {
    try {
      if (ctx != null) {
        ctx.close();
      }
    } finally {
      if (lifecycle != null) {
        lifecycle.close();
      }
    }
  }

  /** The queries since the last call ran as distributed jobs, together on both executors. */
  private void ranOnBothExecutors() {
    assertThat(jobs).as("ran as distributed jobs").isNotEmpty();
    java.util.Set<String> executors = new java.util.TreeSet<>();
    synchronized (jobs) {
      for (JobStatusUpdate job : jobs) {
        executors.addAll(ClusterFixture.executorsOf(job));
      }
      jobs.clear();
    }
    assertThat(executors).hasSize(2);
  }

  /** Splits scans into (at most) {@code tasks} tasks however small the files. */
  private void configure(int tasks, int batchSize) {
    ctx.config()
        .set(DistributedSettings.BYTES_PER_TASK, "1k")
        .set(DistributedSettings.MAX_TASKS, Integer.toString(tasks))
        .withBatchSize(batchSize);
  }

  @Test
  void hivePartitionsMatchDuckDb() throws Exception {
    Path dir = HivePartitionTest.write(java.nio.file.Files.createDirectories(tmp.resolve("hive")));
    ctx.registerParquet("events", dir.toString());
    try {
      for (int partitions : new int[] {2, 5}) {
        for (int batch : new int[] {64, 4096}) {
          configure(partitions, batch);
          for (String sql : HivePartitionTest.QUERIES) {
            SameRows.same(
                HivePartitionTest.duckdb(dir, sql), HivePartitionTest.quiver(ctx, sql), sql);
          }
          ranOnBothExecutors();
        }
      }
    } finally {
      ctx.deregisterTable("events");
    }
  }

  /**
   * COPY ... PARTITION_BY from a distributed session writes DuckDB's folders, which DuckDB and
   * Quiver's globs read back as DuckDB reads its own.
   */
  @Test
  void copyPartitionByAndGlobsMatchDuckDb() throws Exception {
    Path duck = HivePartitionTest.write(java.nio.file.Files.createDirectories(tmp.resolve("src")));
    Path out = tmp.resolve("copied");
    try {
      configure(3, 256);
      assertThat(PartitionedCopyTest.copyPartitioned(ctx, duck, out, "PARQUET")).isEqualTo(2000);
      ranOnBothExecutors();
      assertThat(PartitionedCopyTest.files(out)).isEqualTo(PartitionedCopyTest.files(duck));
      for (String sql : HivePartitionTest.QUERIES) {
        SameRows.same(HivePartitionTest.duckdb(duck, sql), HivePartitionTest.duckdb(out, sql), sql);
      }
      for (int partitions : new int[] {2, 5}) {
        configure(partitions, 128);
        for (String read : PartitionedCopyTest.globReads(out)) {
          SameRows.quiver(ctx, "CREATE OR REPLACE VIEW events AS " + read);
          for (String sql : HivePartitionTest.QUERIES) {
            SameRows.same(
                HivePartitionTest.duckdb(duck, sql),
                HivePartitionTest.quiver(ctx, sql),
                read + ": " + sql);
          }
        }
        ranOnBothExecutors();
      }
    } finally {
      SameRows.quiver(ctx, "DROP VIEW IF EXISTS events");
      SameRows.quiver(ctx, "DROP VIEW IF EXISTS source");
    }
  }

  @Test
  void csvLayoutMatchesDuckDb() throws Exception {
    Path dir =
        CsvOptionsTest.writeLayout(java.nio.file.Files.createDirectories(tmp.resolve("csv")));
    String view = "SELECT * FROM read_csv('" + dir + "/*', " + CsvOptionsTest.DUCKDB_LAYOUT + ")";
    ctx.registerCsv("t", dir.toString(), CsvOptionsTest.LAYOUT);
    try {
      List<List<String>> want = new ArrayList<>();
      for (String sql : CsvOptionsTest.LAYOUT_QUERIES) {
        want.add(SameRows.duckdb("t", view, sql));
      }
      for (int partitions : new int[] {2, 3, 8}) {
        for (int batch : new int[] {7, 1000}) {
          configure(partitions, batch);
          for (int q = 0; q < want.size(); q++) {
            String sql = CsvOptionsTest.LAYOUT_QUERIES[q];
            SameRows.same(want.get(q), SameRows.quiver(ctx, sql), sql);
          }
          ranOnBothExecutors();
        }
      }
    } finally {
      ctx.deregisterTable("t");
    }
  }

  /**
   * Filters evaluated by the executors' Parquet scans (late materialization) keep DuckDB's rows.
   */
  @Test
  void lateMaterializedParquetFiltersMatchDuckDb() throws Exception {
    Path dir =
        ParquetLateMaterializationTest.write(
            java.nio.file.Files.createDirectories(tmp.resolve("late")));
    for (String file : new String[] {"duckdb", "quiver"}) {
      Path files = dir.resolve(file);
      ctx.registerParquet("t", files.toString());
      try {
        List<List<String>> want = new ArrayList<>();
        for (String sql : ParquetLateMaterializationTest.QUERIES) {
          want.add(ParquetLateMaterializationTest.duckdb(files, sql));
        }
        for (int partitions : new int[] {2, 3}) {
          for (int batch : new int[] {100, 4096}) {
            configure(partitions, batch);
            for (int q = 0; q < want.size(); q++) {
              String sql = ParquetLateMaterializationTest.QUERIES[q];
              SameRows.same(want.get(q), SameRows.quiver(ctx, sql), file + ": " + sql);
            }
            ranOnBothExecutors();
          }
        }
      } finally {
        ctx.deregisterTable("t");
      }
    }
  }

  @Test
  void csvBadValuesFailNamingTheLineOrReadAsNull() throws Exception {
    Path f = CsvOptionsTest.badFile(java.nio.file.Files.createDirectories(tmp.resolve("bad")));
    configure(2, 1000);
    ctx.registerCsv("strict", f.toString(), CsvOptions.DEFAULT.withInferenceRows(5));
    ctx.registerCsv(
        "t", f.toString(), CsvOptions.DEFAULT.withInferenceRows(5).withIgnoreErrors(true));
    try {
      assertThatThrownBy(() -> SameRows.quiver(ctx, "SELECT * FROM strict"))
          .hasMessageContaining(f.toString())
          .hasMessageContaining("line 12")
          .hasMessageContaining("column 'id'");
      String view = CsvOptionsTest.badFileLikeIgnoreErrors(f);
      for (String sql : CsvOptionsTest.BAD_QUERIES) {
        SameRows.same(SameRows.duckdb("t", view, sql), SameRows.quiver(ctx, sql), sql);
      }
    } finally {
      ctx.deregisterTable("strict");
      ctx.deregisterTable("t");
    }
  }
}
