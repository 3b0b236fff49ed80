package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.NestedParquetTest;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.JobStatusUpdate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structs, lists, maps, TIME and zoned timestamps from Parquet on an embedded cluster of 2
 * executors: the scans, field accesses, element lookups and the nested columns carried through
 * shuffles (Arrow IPC), joins and sorts travel in the plan codec and come back as DuckDB reads the
 * same files, at 1 task a stage (batches of 4096 rows) and 4 (batches of 7); unsupported uses fail
 * typed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NestedTypesClusterTest {
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

  @Test
  void nestedColumnsMatchDuckDbOnTheCluster() throws Exception {
    Path dir = NestedParquetTest.write(Files.createDirectories(tmp.resolve("data")));
    ctx.registerParquet("n", dir.toString());
    try {
      // One task a stage with large batches, four with tiny ones (many batches per shuffle).
      for (int[] config : new int[][] {{1, 4096}, {4, 7}}) {
        int tasks = config[0];
        ctx.config()
            .set(DistributedSettings.BYTES_PER_TASK, "1k")
            .set(DistributedSettings.MAX_TASKS, Integer.toString(tasks))
            .withBatchSize(config[1]);
        jobs.clear();
        NestedParquetTest.checkAll(ctx, dir);
        assertThat(jobs).as("ran as distributed jobs").isNotEmpty();
        if (tasks > 1) {
          Set<String> executors = new TreeSet<>();
          synchronized (jobs) {
            for (JobStatusUpdate job : jobs) {
              executors.addAll(ClusterFixture.executorsOf(job));
            }
          }
          assertThat(executors).as("both executors ran tasks").hasSize(2);
        }
      }
      NestedParquetTest.checkRefused(ctx);
      assertThat(dev.quiver.binding.datasource.SameRows.quiver(ctx, "SELECT count(*) FROM n"))
          .containsExactly("2000");
    } finally {
      ctx.deregisterTable("n");
    }
  }
}
