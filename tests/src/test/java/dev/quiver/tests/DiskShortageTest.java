package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One executor out of disk does not fail the job (issue 39): of three executor processes, one has a
 * disk limit far below what its share of the shuffle needs. Its tasks fail with ResourcesExhausted;
 * the scheduler runs them again on the others, places no task there while it reports itself low on
 * disk, and the answers match DuckDB's. Once the job's output is released it takes tasks again.
 */
@Tag("slow")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DiskShortageTest {
  @TempDir Path tmp;

  @Test
  void aTaskThatRanOutOfDiskRunsAgainOnAnotherExecutor() throws Exception {
    Path tpch = TpchFixture.data(0.01);
    try (ProcessCluster processes =
            ProcessCluster.start(
                Files.createDirectories(tmp.resolve("cluster")), 2, ProcessCluster.Options.of(1));
        RowEngine duckdb = Differential.reference(tpch)) {
      String small =
          processes.startExecutor(List.of("--shuffle-memory", "64k", "--disk-limit", "256k"));
      ClusterFixture.ClusterRows cluster =
          ClusterFixture.remote(
              ClusterConfig.remote(processes.target()),
              tpch,
              new SessionConfig().set(DistributedSettings.BYTES_PER_TASK, "32k"));
      try {
        int retried = 0;
        for (TpchQuery q : TpchQueries.select(List.of(9, 18))) {
          QueryResult expected = duckdb.query(q.sql());
          cluster.jobs().clear();
          Differential.check(
              q.name() + " with one executor short of disk",
              q.sql(),
              expected,
              cluster.rows().query(q.sql()),
              Differential.sortOf(q.orderBy(), expected));
          JobStatusUpdate last = cluster.jobs().get(cluster.jobs().size() - 1);
          assertThat(last.getState()).isEqualTo(JobState.JOB_STATE_SUCCEEDED);
          retried += FaultCluster.tasksRunAgain(last);
        }
        assertThat(retried).as("task attempts run again after running out of disk").isPositive();
        String log = Files.readString(processes.dir().resolve(small + ".log"));
        assertThat(log).contains("would pass the executor's disk limit").contains("low on disk");
        // With the jobs' output released it has room, and takes tasks again.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        ExecutorStatus status = null;
        while (System.nanoTime() < deadline) {
          status =
              processes.statuses().stream()
                  .filter(s -> s.getInfo().getExecutorId().equals(small))
                  .findFirst()
                  .orElseThrow();
          if (!status.getNotReady()) {
            break;
          }
          Thread.sleep(200);
        }
        assertThat(status.getNotReady()).as(String.valueOf(status)).isFalse();
      } finally {
        cluster.rows().close();
      }
    }
  }
}
