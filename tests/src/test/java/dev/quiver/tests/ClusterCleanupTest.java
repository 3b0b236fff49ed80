package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.DistributedExtension;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Cancelling a job, closing its result stream early, closing its session and abandoning its output
 * all leave the executor processes with no task, no Arrow memory and no shuffle or spill file (as
 * their heartbeats report and their work directories show). Executors spill shuffle output beyond
 * 256 KiB to disk and expire output unread for 5 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterCleanupTest {
  private static final String LONG_QUERY = TpchQueries.get(9).sql();
  private static final String GROUPS =
      "SELECT l_orderkey, count(*) AS n FROM lineitem GROUP BY l_orderkey";

  private Path data;
  private FaultCluster faults;

  /** Each submitted job's capability, which cancelling it needs. */
  private final java.util.Map<String, com.google.protobuf.ByteString> capabilities =
      new java.util.concurrent.ConcurrentHashMap<>();

  @BeforeAll
  void start() throws Exception {
    data = TpchFixture.data(0.1);
    faults =
        FaultCluster.start(
            2,
            ProcessCluster.Options.of(2)
                .withExecutorArgs("--shuffle-memory", "256k", "--shuffle-ttl", "5s"),
            data,
            new SessionConfig());
    faults
        .cluster
        .runtime()
        .addJobListener(
            new dev.quiver.distributed.client.JobListener() {
              @Override
              public void jobSucceeded(
                  dev.quiver.distributed.planner.StageGraph graph,
                  dev.quiver.distributed.proto.JobStatusUpdate status) {}

              @Override
              public void jobSubmitted(
                  dev.quiver.distributed.planner.StageGraph graph,
                  dev.quiver.distributed.client.JobHandle job) {
                capabilities.put(job.jobId(), job.capability());
              }
            });
  }

  @AfterAll
  void stop() {
    if (faults != null) {
      faults.close();
    }
  }

  @AfterEach
  void noListener() {
    faults.onUpdate((g, s) -> {});
  }

  /** Waits until every executor reports nothing running, held or allocated, and has no files. */
  private void assertExecutorsClean(String after) throws Exception {
    List<ExecutorStatus> statuses =
        faults.processes.awaitAllExecutors(
            "idle and empty after " + after,
            s ->
                s.getActiveTasks() == 0
                    && s.getRunningTasks() == 0
                    && s.getShuffleBytes() == 0
                    && s.getAllocatedBytes() == 0,
            20_000);
    assertThat(statuses).hasSize(2);
    for (String id : faults.processes.executorIds()) {
      assertThat(faults.processes.filesIn(id))
          .as("files left in " + id + " after " + after)
          .isEmpty();
    }
  }

  @Test
  void cancellingARunningJobStopsItsTasksAndFreesTheExecutors() throws Exception {
    AtomicInteger runningAtCancel = new AtomicInteger();
    faults.onUpdate(
        (graph, status) -> {
          if (runningAtCancel.get() == 0
              && status.getState() == JobState.JOB_STATE_RUNNING
              && !FaultCluster.runningStages(status).isEmpty()) {
            runningAtCancel.set(FaultCluster.runningStages(status).size());
            assertThat(
                    faults
                        .cluster
                        .runtime()
                        .scheduler()
                        .cancel(status.getJobId(), capabilities.get(status.getJobId())))
                .isTrue();
          }
        });
    assertThatThrownBy(() -> faults.cluster.rows().query(LONG_QUERY))
        .isInstanceOf(QueryCancelledException.class);
    assertThat(runningAtCancel.get()).isPositive();
    assertExecutorsClean("a cancel");
  }

  @Test
  void closingTheResultStreamAfterOneBatchReleasesTheJob() throws Exception {
    SessionContext ctx = faults.cluster.rows().session();
    faults.cluster.jobs().clear();
    try (ArrowReader reader = ctx.sql(GROUPS).executeStream()) {
      assertThat(reader.loadNextBatch()).isTrue();
      assertThat(reader.getVectorSchemaRoot().getRowCount()).isPositive();
    }
    assertThat(faults.cluster.jobs()).hasSize(1);
    assertExecutorsClean("closing the stream early");
  }

  @Test
  void closingTheSessionStopsItsRunningJob() throws Exception {
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try (DistributedExtension cluster = DistributedExtension.over(faults.cluster.runtime())) {
      SessionContext ctx = new SessionContext().withExtensions(cluster);
      for (String table : TpchData.TABLES) {
        ctx.registerParquet(table, TpchData.tableDirectory(data, table).toString());
      }
      CountDownLatch running = new CountDownLatch(1);
      AtomicReference<String> job = new AtomicReference<>();
      faults.onUpdate(
          (graph, status) -> {
            if (status.getState() == JobState.JOB_STATE_RUNNING
                && !FaultCluster.runningStages(status).isEmpty()) {
              job.compareAndSet(null, status.getJobId());
              running.countDown();
            }
          });
      Future<?> query = runner.submit(() -> ctx.sql(LONG_QUERY).collect());
      assertThat(running.await(60, TimeUnit.SECONDS)).isTrue();
      ctx.close();
      assertThatThrownBy(() -> query.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(QuiverException.class);
      assertThat(
              faults.cluster.runtime().scheduler().cancel(job.get(), capabilities.get(job.get())))
          .as("the job had already ended")
          .isFalse();
    } finally {
      runner.shutdownNow();
    }
    assertExecutorsClean("closing the session");
  }

  @Test
  void outputAClientNeverReleasesExpiresOnTheExecutors() throws Exception {
    SessionContext ctx = faults.cluster.rows().session();
    faults.cluster.jobs().clear();
    // Q1's result is one small batch: read it and keep the stream (and the job) open.
    ArrowReader abandoned = ctx.sql(TpchQueries.get(1).sql()).executeStream();
    try {
      assertThat(abandoned.loadNextBatch()).isTrue();
      String jobId = faults.cluster.jobs().get(0).getJobId();
      long start = System.nanoTime();
      long deadline = start + TimeUnit.SECONDS.toNanos(30);
      while (!expiredSomewhere(jobId) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(expiredSomewhere(jobId)).as("an executor expired the job's output").isTrue();
      assertThat(millis).as("expiry waits for the 5 s TTL").isGreaterThanOrEqualTo(3_000);
      assertExecutorsClean("the shuffle TTL");
      System.out.println("abandoned output of " + jobId + " gone after " + millis + " ms");
    } finally {
      abandoned.close();
    }
  }

  private boolean expiredSomewhere(String jobId) throws Exception {
    for (String id : faults.processes.executorIds()) {
      if (faults.processes.executorLog(id).contains("expired the shuffle output of job " + jobId)) {
        return true;
      }
    }
    return false;
  }
}
