package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chaos suite (issue 17 item 8): loops the 22 TPC-H queries at SF 0.1 on a scheduler and three
 * executor processes while a driver thread, at random, kills executors with SIGKILL (and starts
 * replacements), stops them with SIGSTOP for 2 to 25 s (past the heartbeat timeout or not) before
 * SIGCONT, and kills and restarts the scheduler. Every result is compared with single-node
 * Quiver's. Afterwards, with the cluster quiet: two more clean rounds, between which no process's
 * threads or file descriptors grow (a leak grows them every round), and every executor holds no
 * Arrow memory, no task, no shuffle byte and no work-directory file.
 *
 * <p>{@code -Dchaos.minutes=N} sets how long the chaos lasts (default 30, the acceptance);
 * {@code -Dchaos.seed=S} repeats a run's choices. The counts are printed and written to {@code
 * target/chaos-report.txt}.
 */
@Tag("slow")
class ChaosTest {
  private static final Duration QUERY_TIMEOUT = Duration.ofMinutes(10);

  /** How many threads and descriptors a process may gain over one clean round. */
  private static final int THREAD_SLACK = 12;

  private static final int FD_SLACK = 24;

  /** What the run did; printed at the end. */
  private static final class Counts {
    final AtomicInteger queries = new AtomicInteger();
    final AtomicInteger right = new AtomicInteger();
    final AtomicInteger wrong = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger kills = new AtomicInteger();
    final AtomicInteger stops = new AtomicInteger();
    final AtomicInteger stopsPastTimeout = new AtomicInteger();
    final AtomicInteger schedulerRestarts = new AtomicInteger();
    final AtomicInteger chaosErrors = new AtomicInteger();
    final List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
    int rounds;

    @Override
    public String toString() {
      return "rounds "
          + rounds
          + ", queries "
          + queries
          + " (right "
          + right
          + ", wrong "
          + wrong
          + ", failed "
          + failed
          + "), executor SIGKILLs "
          + kills
          + ", SIGSTOP/SIGCONTs "
          + stops
          + " ("
          + stopsPastTimeout
          + " past the 10 s heartbeat timeout), scheduler restarts "
          + schedulerRestarts
          + ", chaos driver errors "
          + chaosErrors;
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.HOURS)
  void tpchLoopsRightWhileExecutorsAndTheSchedulerAreKilledStoppedAndRestarted() throws Exception {
    double minutes = Double.parseDouble(System.getProperty("chaos.minutes", "30"));
    long seed = Long.getLong("chaos.seed", System.nanoTime());
    Path data = TpchFixture.data(0.1);
    Path dir = Files.createDirectories(Path.of("target", "chaos-" + Instant.now().toEpochMilli()));
    Counts counts = new Counts();
    List<TpchQuery> queries = TpchQueries.all();
    Map<String, QueryResult> expected = new LinkedHashMap<>();
    System.out.println("chaos: " + minutes + " min, seed " + seed + ", logs in " + dir);

    try (QueryThread thread = new QueryThread();
        QuiverRows local = new QuiverRows(data, 4)) {
      for (TpchQuery q : queries) {
        expected.put(q.name(), local.query(q.sql()));
      }
      ProcessCluster processes =
          ProcessCluster.start(
              dir, 3, ProcessCluster.Options.of(2).withExecutorArgs("--shuffle-ttl", "30s"));
      ClusterFixture.ClusterRows[] cluster = new ClusterFixture.ClusterRows[1];
      try {
        thread.run(
            Duration.ofMinutes(2),
            "connect",
            () ->
                cluster[0] = ClusterFixture.remote(processes.target(), data, new SessionConfig()));
        AtomicBoolean chaosOn = new AtomicBoolean(true);
        Thread driver =
            new Thread(() -> drive(processes, new Random(seed), chaosOn, counts), "chaos-driver");
        driver.setDaemon(true);
        long end = System.nanoTime() + (long) (minutes * 60e9);
        driver.start();
        try {
          while (System.nanoTime() < end) {
            round(thread, cluster[0], queries, expected, counts, end);
            counts.rounds++;
            System.out.println("chaos: after round " + counts.rounds + ": " + counts);
          }
        } finally {
          chaosOn.set(false);
          driver.join(TimeUnit.MINUTES.toMillis(3));
        }
        assertThat(driver.isAlive()).as("the chaos driver stopped").isFalse();

        // Quiet from here: every executor runs again and registers, then the leak checks.
        processes.awaitExecutors(processes.executorIds().size());
        round(thread, cluster[0], queries, expected, counts, Long.MAX_VALUE);
        Map<String, int[]> warm = resources(processes);
        int clientThreadsWarm = Thread.getAllStackTraces().size();
        round(thread, cluster[0], queries, expected, counts, Long.MAX_VALUE);
        Map<String, int[]> after = resources(processes);
        int clientThreadsAfter = Thread.getAllStackTraces().size();
        System.out.println(
            "chaos: threads/fds per process after clean rounds 1 and 2: "
                + describe(warm)
                + " -> "
                + describe(after)
                + "; client threads "
                + clientThreadsWarm
                + " -> "
                + clientThreadsAfter);
        for (Map.Entry<String, int[]> e : after.entrySet()) {
          int[] before = warm.get(e.getKey());
          if (before != null) {
            assertThat(e.getValue()[0])
                .as("threads of " + e.getKey() + " over a clean round")
                .isLessThanOrEqualTo(before[0] + THREAD_SLACK);
            assertThat(e.getValue()[1])
                .as("file descriptors of " + e.getKey() + " over a clean round")
                .isLessThanOrEqualTo(before[1] + FD_SLACK);
          }
        }
        assertThat(clientThreadsAfter)
            .as("threads of the client JVM over a clean round")
            .isLessThanOrEqualTo(clientThreadsWarm + THREAD_SLACK);

        // Nothing held once the output of every job is released or expired (--shuffle-ttl 30s).
        List<ExecutorStatus> idle =
            processes.awaitAllExecutors(
                "no task, Arrow memory or shuffle byte held",
                s ->
                    s.getActiveTasks() == 0
                        && s.getRunningTasks() == 0
                        && s.getShuffleBytes() == 0
                        && s.getAllocatedBytes() == 0,
                180_000);
        assertThat(idle).hasSize(processes.executorIds().size());
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        for (String id : processes.executorIds()) {
          while (!processes.filesIn(id).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
          }
          assertThat(processes.filesIn(id))
              .as("files left in the work directory of " + id)
              .isEmpty();
        }
        String report =
            "chaos "
                + minutes
                + " min (seed "
                + seed
                + "): "
                + counts
                + "; afterwards threads/fds "
                + describe(after)
                + ", executors idle with 0 Arrow bytes, 0 shuffle bytes and empty work"
                + " directories"
                + (counts.problems.isEmpty() ? "" : "; problems: " + counts.problems);
        System.out.println(report);
        Files.writeString(Path.of("target", "chaos-report.txt"), report + "\n");
        assertThat(counts.problems).as("wrong results and failed queries").isEmpty();
        assertThat(counts.wrong.get()).isZero();
        assertThat(counts.chaosErrors.get()).as("the chaos driver's own failures").isZero();
      } finally {
        thread.run(
            Duration.ofMinutes(2),
            "close",
            () -> {
              if (cluster[0] != null) {
                cluster[0].rows().close();
              }
            });
        processes.close();
      }
      if (counts.problems.isEmpty()) {
        ProcessCluster.deleteTree(dir);
      }
    }
  }

  /** Runs each query once (stopping early after {@code endNanos}), counting what happened. */
  private static void round(
      QueryThread thread,
      ClusterFixture.ClusterRows cluster,
      List<TpchQuery> queries,
      Map<String, QueryResult> expected,
      Counts counts,
      long endNanos) {
    for (TpchQuery q : queries) {
      if (System.nanoTime() > endNanos) {
        return;
      }
      counts.queries.incrementAndGet();
      QueryResult want = expected.get(q.name());
      try {
        thread.run(
            QUERY_TIMEOUT,
            q.name(),
            () -> {
              QueryResult got;
              try {
                got = cluster.rows().query(q.sql());
              } catch (RuntimeException e) {
                counts.failed.incrementAndGet();
                counts.problems.add(q.name() + " failed: " + e);
                return;
              }
              try {
                Differential.check(
                    q.name() + " under chaos",
                    q.sql(),
                    want,
                    got,
                    Differential.sortOf(q.orderBy(), want));
                counts.right.incrementAndGet();
              } catch (AssertionError e) {
                counts.wrong.incrementAndGet();
                counts.problems.add(q.name() + " WRONG: " + e.getMessage());
              }
            });
      } catch (AssertionError | RuntimeException e) {
        counts.failed.incrementAndGet();
        counts.problems.add(q.name() + ": " + e.getMessage());
      }
    }
  }

  /** The chaos driver: one fault at a time, 5 to 20 s apart, until {@code on} turns false. */
  private static void drive(
      ProcessCluster processes, Random random, AtomicBoolean on, Counts counts) {
    while (on.get()) {
      sleep(5_000 + random.nextInt(15_000), on);
      if (!on.get()) {
        return;
      }
      List<String> ids = processes.executorIds();
      int pick = random.nextInt(7);
      try {
        if (pick < 3) {
          String id = ids.get(random.nextInt(ids.size()));
          processes.killExecutor(id);
          counts.kills.incrementAndGet();
          System.out.println("chaos: SIGKILL " + id);
          sleep(random.nextInt(5_000), new AtomicBoolean(true));
          System.out.println("chaos: started " + processes.startExecutor());
        } else if (pick < 6) {
          String id = ids.get(random.nextInt(ids.size()));
          int millis = 2_000 + random.nextInt(23_000);
          processes.stopExecutor(id);
          counts.stops.incrementAndGet();
          if (millis > 10_000) {
            counts.stopsPastTimeout.incrementAndGet();
          }
          System.out.println("chaos: SIGSTOP " + id + " for " + millis + " ms");
          try {
            sleep(millis, new AtomicBoolean(true));
          } finally {
            processes.continueExecutor(id);
          }
        } else {
          processes.restartScheduler();
          counts.schedulerRestarts.incrementAndGet();
          System.out.println("chaos: restarted the scheduler");
          processes.awaitExecutors(ids.size());
        }
      } catch (Exception | AssertionError e) {
        counts.chaosErrors.incrementAndGet();
        counts.problems.add("chaos driver: " + e);
        System.out.println("chaos: driver error " + e);
      }
    }
  }

  private static void sleep(long millis, AtomicBoolean on) {
    long end = System.currentTimeMillis() + millis;
    while (on.get() && System.currentTimeMillis() < end) {
      try {
        Thread.sleep(Math.min(250, Math.max(1, end - System.currentTimeMillis())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Threads and open file descriptors of the scheduler and every executor process (Linux /proc).
   */
  private static Map<String, int[]> resources(ProcessCluster processes) throws IOException {
    Map<String, int[]> out = new LinkedHashMap<>();
    out.put("scheduler", resourcesOf(processes.schedulerProcess().pid()));
    for (String id : processes.executorIds()) {
      out.put(id, resourcesOf(processes.executorProcess(id).pid()));
    }
    return out;
  }

  private static int[] resourcesOf(long pid) throws IOException {
    return new int[] {
      count(Path.of("/proc", Long.toString(pid), "task")),
      count(Path.of("/proc", Long.toString(pid), "fd"))
    };
  }

  private static int count(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return (int) entries.count();
    }
  }

  private static String describe(Map<String, int[]> resources) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, int[]> e : resources.entrySet()) {
      if (b.length() > 0) {
        b.append(", ");
      }
      b.append(e.getKey()).append(' ').append(e.getValue()[0]).append('/').append(e.getValue()[1]);
    }
    return b.toString();
  }
}
