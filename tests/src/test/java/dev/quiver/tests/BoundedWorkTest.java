package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Work is bounded on a cluster of a scheduler and three executor processes (TPC-H SF 0.1): a LIMIT
 * over a cross join of lineitem and orders (9 * 10^10 rows) writes about the limit's rows of
 * shuffle, not the whole product (it once wrote 47 GB until the disk was full), and a query whose
 * shuffle and spill files grow without bound fails with ResourcesExhausted at the executors'
 * --disk-limit. A watchdog stops the cluster if its work directories ever pass 4 GB, so a
 * regression fails the test instead of filling the disk.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class BoundedWorkTest {
  private static final long DISK_LIMIT = 512L << 20;
  private static final long WATCHDOG_BYTES = 4L << 30;

  private final QueryThread queryThread = new QueryThread();
  private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
  private final AtomicReference<String> overflow = new AtomicReference<>();
  private Path logs;
  private ProcessCluster processes;
  private ClusterFixture.ClusterRows cluster;

  @BeforeAll
  void start() throws Exception {
    Path data = TpchFixture.data(0.1);
    logs = Files.createTempDirectory("quiver-bounded-");
    processes =
        ProcessCluster.start(
            logs,
            3,
            ProcessCluster.Options.of(2)
                .withExecutorArgs(
                    "--disk-limit", Long.toString(DISK_LIMIT), "--shuffle-memory", "32m"));
    cluster = ClusterFixture.remote(processes.target(), data, new SessionConfig());
    watchdog.scheduleWithFixedDelay(this::watch, 200, 200, TimeUnit.MILLISECONDS);
  }

  private void watch() {
    long bytes = 0;
    try (Stream<Path> files = Files.walk(logs)) {
      bytes =
          files
              .filter(Files::isRegularFile)
              .mapToLong(
                  f -> {
                    try {
                      return Files.size(f);
                    } catch (IOException e) {
                      return 0;
                    }
                  })
              .sum();
    } catch (IOException | RuntimeException e) {
      return; // files come and go while tasks run
    }
    if (bytes > WATCHDOG_BYTES && overflow.compareAndSet(null, bytes + " bytes")) {
      processes.close();
    }
  }

  @AfterAll
  void stop() {
    watchdog.shutdownNow();
    try {
      queryThread.run(
          Duration.ofSeconds(60),
          "stop",
          () -> {
            if (cluster != null) {
              cluster.rows().close();
            }
            if (processes != null) {
              processes.close();
            }
          });
    } finally {
      queryThread.close();
      if (logs != null) {
        ProcessCluster.deleteTree(logs);
      }
    }
    assertThat(overflow.get()).as("work directories passed the watchdog's bound").isNull();
  }

  /** Shuffle bytes a job wrote: every task's output over every stage. */
  private static long shuffleBytes(JobStatusUpdate job) {
    long bytes = 0;
    for (StageStatus s : job.getStagesList()) {
      for (TaskSummary t : s.getTasksList()) {
        bytes += t.getMetrics().getOutputBytes();
      }
    }
    return bytes;
  }

  private static long skippedTasks(JobStatusUpdate job) {
    return job.getStagesList().stream()
        .flatMap(s -> s.getTasksList().stream())
        .filter(TaskSummary::getSkipped)
        .count();
  }

  private long crossJoinUnderLimit(long limit) {
    String sql =
        "SELECT count(*) AS n FROM (SELECT a.l_orderkey + b.o_orderkey AS k"
            + " FROM lineitem a CROSS JOIN orders b LIMIT "
            + limit
            + ") t";
    long[] bytes = new long[1];
    queryThread.run(
        Duration.ofSeconds(240),
        "cross join under LIMIT " + limit,
        () -> {
          cluster.jobs().clear();
          long start = System.nanoTime();
          QueryResult result = cluster.rows().query(sql);
          long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          assertThat(overflow.get()).isNull();
          assertThat(result.rows()).hasSize(1);
          assertThat(((Number) result.rows().get(0).get(0)).longValue()).isEqualTo(limit);
          JobStatusUpdate job = cluster.jobs().get(cluster.jobs().size() - 1);
          bytes[0] = shuffleBytes(job);
          System.out.println(
              "cross join under LIMIT "
                  + limit
                  + ": "
                  + millis
                  + " ms, "
                  + bytes[0]
                  + " shuffle bytes written, "
                  + skippedTasks(job)
                  + " producer tasks skipped");
        });
    return bytes[0];
  }

  @Test
  @Order(1)
  void aLimitOverACrossJoinWritesAboutTheLimitsRowsOfShuffle() {
    long limit = 5_000_000;
    long bytes = crossJoinUnderLimit(limit);
    // One 8-byte column: the rows the limit keeps, once, plus the broadcast lineitem keys and
    // Arrow's padding; not one gather task's worth per task (each could write 2.25 * 10^10).
    assertThat(bytes).isLessThan(4 * 8 * limit);
  }

  /** The issue's query: LIMIT 50,000,000 (slow: 400 MB of shuffle read by one task). */
  @Test
  @Order(2)
  @Tag("slow")
  void theIssuesCrossJoinUnderLimitFiftyMillion() {
    long bytes = crossJoinUnderLimit(50_000_000);
    assertThat(bytes).isLessThan(4L * 8 * 50_000_000);
  }

  @Test
  @Order(3)
  void aQueryWritingPastTheDiskLimitFailsWithResourcesExhausted() throws Exception {
    // A window over the whole cross join gathers all 9 * 10^10 rows: the gather's shuffle output
    // spills past 32 MB of memory and reaches the disk limit within seconds.
    String sql =
        "SELECT max(r) AS m FROM (SELECT row_number() OVER (ORDER BY k) AS r FROM"
            + " (SELECT a.l_orderkey + b.o_orderkey AS k FROM lineitem a CROSS JOIN orders b) x) y";
    queryThread.run(
        Duration.ofSeconds(240),
        "past the disk limit",
        () -> {
          long start = System.nanoTime();
          assertThatThrownBy(() -> cluster.rows().query(sql))
              .isInstanceOf(ResourcesExhaustedException.class)
              .hasMessageContaining("disk limit of " + DISK_LIMIT + " bytes (--disk-limit)");
          System.out.println(
              "past the disk limit: failed after "
                  + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                  + " ms");
          assertThat(overflow.get()).isNull();
        });
    // Nothing of the failed job is left: no task, shuffle byte or file.
    processes.awaitAllExecutors(
        "idle and empty after the failed job",
        s -> s.getActiveTasks() == 0 && s.getShuffleBytes() == 0,
        60_000);
    for (String id : processes.executorIds()) {
      assertThat(processes.filesIn(id)).as("files left in " + id).isEmpty();
    }
  }
}
