package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The 22 TPC-H queries at SF 0.1 on a cluster a subclass provides, each compared with the
 * single-node binding, and each shown by the scheduler's job status to have run at least two stages
 * with tasks on at least two executors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ClusterTpchTestBase {
  static final double SCALE = 0.1;
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(90);

  private final QueryThread queryThread = new QueryThread();
  private RowEngine local;
  private ClusterFixture.ClusterRows cluster;

  /** Starts the cluster and opens the distributed engine over {@code dir}. */
  abstract ClusterFixture.ClusterRows openCluster(Path dir) throws Exception;

  /** Stops what {@link #openCluster} started beyond the engine (e.g. processes). */
  void stopCluster() {}

  @BeforeAll
  void open() throws Exception {
    Path dir = TpchFixture.data(SCALE);
    queryThread.run(
        Duration.ofSeconds(120),
        "open",
        () -> {
          local = new QuiverRows(dir, 4);
          try {
            cluster = openCluster(dir);
          } catch (Exception e) {
            throw new IllegalStateException("starting the cluster failed", e);
          }
        });
  }

  @AfterAll
  void close() {
    try {
      queryThread.run(
          Duration.ofSeconds(60),
          "close",
          () -> {
            if (cluster != null) {
              cluster.rows().close();
            }
            if (local != null) {
              local.close();
            }
          });
    } finally {
      queryThread.close();
      stopCluster();
    }
  }

  /** The cluster engine (for subclasses' extra tests). */
  ClusterFixture.ClusterRows cluster() {
    return cluster;
  }

  /** Runs {@code task} on the query thread with the per-query timeout. */
  void onQueryThread(String label, Runnable task) {
    queryThread.run(QUERY_TIMEOUT, label, task);
  }

  @TestFactory
  Stream<DynamicTest> tpch() {
    return TpchQueries.all().stream()
        .map(q -> DynamicTest.dynamicTest(q.name(), () -> onQueryThread(q.name(), () -> run(q))));
  }

  private void run(TpchQuery q) {
    QueryResult expected = local.query(q.sql());
    cluster.jobs().clear();
    QueryResult actual = cluster.rows().query(q.sql());
    Differential.check(
        q.name() + " at SF " + SCALE + " on " + cluster.rows().name(),
        q.sql(),
        expected,
        actual,
        Differential.sortOf(q.orderBy(), expected));
    List<JobStatusUpdate> jobs = List.copyOf(cluster.jobs());
    assertThat(jobs).as(q.name() + " ran as a distributed job").isNotEmpty();
    JobStatusUpdate job = jobs.get(jobs.size() - 1);
    assertThat(job.getStagesCount()).as(q.name() + " stages").isGreaterThanOrEqualTo(2);
    assertThat(ClusterFixture.executorsOf(job))
        .as(q.name() + " executors that ran tasks")
        .hasSizeGreaterThanOrEqualTo(2);
  }
}
