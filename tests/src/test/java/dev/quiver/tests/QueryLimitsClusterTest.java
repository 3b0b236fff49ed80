package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.limits.QueryMemoryExceededException;
import dev.quiver.distributed.limits.QueryTimeoutException;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Limits per query on a scheduler and two executor jars with little memory (--memory 160m each):
 * four concurrent queries that together need more than the cluster has, of which the largest is
 * stopped with {@link QueryMemoryExceededException} by the scheduler's low-memory killer while the
 * other three answer as DuckDB does and both executors live on; and {@code
 * quiver.query.max_run_time} and {@code max_queued_time} stopping queries with {@link
 * QueryTimeoutException}.
 */
@Tag("slow")
@Timeout(600)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryLimitsClusterTest {
  private static final String EXECUTOR_MEMORY = "160m";

  /**
   * Holds rows of 20,000 bytes, 2,048 a batch: about 40 MB a vector per task, and the vector grows
   * by doubling, so two such tasks need more than an executor's 160 MB. Nothing reserves this
   * memory (a projection does not spill), so only the executor's memory bounds it.
   */
  private static final String HOG =
      "SELECT sum(length(rpad(l_comment, 20000, 'x'))) AS n FROM lineitem";

  /**
   * Runs for hours, cancellable at any time: every lineitem row meets a seventh of the others (the
   * join key is the line number), and the join hands out batches of matches all along.
   */
  private static final String ENDLESS =
      "SELECT count(*) FROM lineitem a JOIN lineitem b ON a.l_linenumber = b.l_linenumber";

  private Path data;
  private Path logs;
  private ProcessCluster cluster;
  private final List<ClusterFixture.ClusterRows> engines = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    logs = Files.createTempDirectory("quiver-query-limits-");
    Path groups = logs.resolve("groups.json");
    Files.writeString(
        groups,
        """
        {"groups": [
           {"name": "main", "maxRunning": 8, "maxQueued": 20, "weight": 1, "memoryShare": 0.9},
           {"name": "single", "maxRunning": 1, "maxQueued": 5, "weight": 1, "memoryShare": 0.1}],
         "default": "main"}
        """);
    cluster =
        ProcessCluster.start(
            logs,
            2,
            ProcessCluster.Options.of(2)
                .withSchedulerArgs("--resource-groups", groups.toString())
                .withExecutorArgs("--memory", EXECUTOR_MEMORY));
  }

  @AfterAll
  void stop() {
    try {
      for (ClusterFixture.ClusterRows e : engines) {
        e.rows().close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
      if (logs != null) {
        ProcessCluster.deleteTree(logs);
      }
    }
  }

  private ClusterFixture.ClusterRows engine(SessionConfig config) {
    ClusterFixture.ClusterRows e = ClusterFixture.remote(cluster.target(), data, config);
    engines.add(e);
    return e;
  }

  @Test
  void theLargestOfFourQueriesIsStoppedWhenTheClusterRunsOutOfMemory() throws Exception {
    List<TpchQuery> others = List.of(TpchQueries.get(1), TpchQueries.get(3), TpchQueries.get(6));
    List<QueryResult> want = new ArrayList<>();
    try (DuckDbRows duckdb = new DuckDbRows(data, 2)) {
      for (TpchQuery q : others) {
        want.add(duckdb.query(q.sql()));
      }
    }
    ClusterFixture.ClusterRows hog =
        engine(new SessionConfig().set(SessionConfig.BATCH_SIZE, "2048"));
    List<ClusterFixture.ClusterRows> small = new ArrayList<>();
    for (int i = 0; i < others.size(); i++) {
      small.add(engine(new SessionConfig()));
    }
    long start = System.nanoTime();
    CompletableFuture<QueryResult> hogRun =
        CompletableFuture.supplyAsync(() -> hog.rows().query(HOG));
    List<CompletableFuture<QueryResult>> runs = new ArrayList<>();
    for (int i = 0; i < others.size(); i++) {
      ClusterFixture.ClusterRows e = small.get(i);
      String sql = others.get(i).sql();
      runs.add(CompletableFuture.supplyAsync(() -> e.rows().query(sql)));
    }
    Throwable stopped = failure(hogRun);
    long stoppedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(stopped)
        .as("the query holding the most is stopped with the typed error")
        .isInstanceOf(QueryMemoryExceededException.class);
    assertThat(stopped.getMessage())
        .contains("ran out of memory")
        .contains("held the most")
        .contains("quiver.query.max_memory");
    for (int i = 0; i < others.size(); i++) {
      TpchQuery q = others.get(i);
      QueryResult got = runs.get(i).get(300, TimeUnit.SECONDS);
      Differential.check(
          "q" + q.number(),
          q.sql(),
          want.get(i),
          got,
          Differential.sortOf(q.orderBy(), want.get(i)));
    }
    long allMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(cluster.executors()).hasSize(2).allSatisfy(p -> assertThat(p.isAlive()).isTrue());
    for (String id : cluster.executorIds()) {
      assertThat(cluster.executorLog(id)).doesNotContain("OutOfMemoryError");
    }
    System.out.printf(
        "query memory: executors --memory %s; the hog stopped after %d ms (%s); q1, q3, q6"
            + " answered right, all done in %d ms%n",
        EXECUTOR_MEMORY, stoppedMillis, stopped.getMessage(), allMillis);
  }

  @Test
  void aQueryOverItsRunTimeIsStopped() throws Exception {
    ClusterFixture.ClusterRows e =
        engine(new SessionConfig().set("quiver.query.max_run_time", "2s"));
    long start = System.nanoTime();
    assertThatThrownBy(() -> e.rows().query(ENDLESS))
        .isInstanceOf(QueryTimeoutException.class)
        .hasMessageContaining("quiver.query.max_run_time")
        .hasMessageContaining("over its limit of 2000 ms");
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("query limits: max_run_time 2s stopped the query after %d ms%n", millis);
    assertThat(millis).isLessThan(30_000);
  }

  @Test
  void aQueryOverItsQueuedTimeIsStopped() throws Exception {
    // The group runs one job: a long one holds it while the next waits past its limit.
    ClusterFixture.ClusterRows running =
        engine(
            new SessionConfig()
                .set("quiver.resource_group", "single")
                .set("quiver.query.max_run_time", "20s"));
    ClusterFixture.ClusterRows waiting =
        engine(
            new SessionConfig()
                .set("quiver.resource_group", "single")
                .set("quiver.query.max_queued_time", "1s"));
    java.util.concurrent.CountDownLatch firstRuns = new java.util.concurrent.CountDownLatch(1);
    running
        .runtime()
        .addJobListener(
            new JobListener() {
              @Override
              public void jobSucceeded(StageGraph graph, JobStatusUpdate status) {}

              @Override
              public void jobUpdated(StageGraph graph, JobStatusUpdate status) {
                if (status.getState() == JobState.JOB_STATE_RUNNING) {
                  firstRuns.countDown();
                }
              }
            });
    CompletableFuture<QueryResult> first =
        CompletableFuture.supplyAsync(() -> running.rows().query(ENDLESS));
    assertThat(firstRuns.await(60, TimeUnit.SECONDS)).as("the first query runs").isTrue();
    long start = System.nanoTime();
    assertThatThrownBy(() -> waiting.rows().query(TpchQueries.get(6).sql()))
        .isInstanceOf(QueryTimeoutException.class)
        .hasMessageContaining("quiver.query.max_queued_time")
        .hasMessageContaining("resource group 'single'");
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf("query limits: max_queued_time 1s stopped the query after %d ms%n", millis);
    assertThat(millis).isLessThan(20_000);
    assertThat(failure(first)).isInstanceOf(QueryTimeoutException.class);
  }

  /** The failure {@code run} ended with (unwrapped), failing the test if it answered. */
  private static Throwable failure(CompletableFuture<QueryResult> run) throws Exception {
    try {
      QueryResult r = run.get(300, TimeUnit.SECONDS);
      throw new AssertionError("expected the query to fail, but it answered " + r);
    } catch (ExecutionException e) {
      Throwable t = e.getCause();
      while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
        t = t.getCause();
      }
      return t;
    }
  }
}
