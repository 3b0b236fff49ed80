package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.DistributedModule;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Work stealing on the jars: a scheduler and two executor processes of 2 slots each, one of them
 * held to a quarter of a core by a cgroup (v1) CPU quota. A scan-heavy stage (4 tasks over a
 * Parquet file of 98 row groups) must finish no later than 1.3 times its time with both executors
 * at full speed, the slow executor's tasks reading fewer splits; with stealing off the same stage
 * waits for the slow executor's planned half and takes longer. The three cases run in interleaved
 * rounds, and the executors' CPU use is read from {@code /proc}: a round counts only when the quota
 * made exec-1 the slow executor, exec-1 using at least 1.5 times the quota at full speed and at
 * most the quota (with a margin) throttled (on a machine busy with other work it may not get even
 * the quota's worth), and the test is skipped, saying so, with fewer than two such rounds. Needs
 * root and a writable {@code /sys/fs/cgroup/cpu} (skipped otherwise). Prints its measurements.
 */
@Tag("slow")
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class SplitStealingSlowExecutorTest {
  private static final Path CPU = Path.of("/sys/fs/cgroup/cpu");
  private static final String QUERY =
      "SELECT count(*) AS n, sum(v) AS total, min(s) AS first FROM t WHERE s LIKE '%ab%'";

  /** The slow executor's share of a core (its cgroup's quota over a 100 ms period). */
  private static final double QUOTA_CORES = 0.25;

  @TempDir Path tmp;

  @Test
  void aStageWithOneExecutorAtAQuarterCoreFinishesWithin1point3TimesFullSpeed() throws Exception {
    assumeTrue(
        Files.isWritable(CPU.resolve("cgroup.procs")) && Files.isRegularFile(quotaFile(CPU)),
        "needs a writable cgroup v1 cpu controller at " + CPU + " (root)");
    Path table = Files.createDirectories(tmp.resolve("t"));
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT i AS id, md5(i::VARCHAR) AS s, i % 1000 AS v FROM range(3000000)"
              + " t(i)) TO '"
              + table.resolve("t.parquet")
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 30720)");
    }
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    Path group = CPU.resolve("quiver-steal-test-" + ProcessHandle.current().pid());
    try (ProcessCluster processes = ProcessCluster.start(logs, 2, ProcessCluster.Options.of(2))) {
      Injector injector =
          Guice.createInjector(
              new DistributedModule(ClusterConfig.remote(processes.target()), new SessionConfig()));
      ClusterLifecycle lifecycle = injector.getInstance(ClusterLifecycle.class);
      try (lifecycle) {
        ClusterRuntime runtime = lifecycle.start();
        List<JobStatusUpdate> jobs = new CopyOnWriteArrayList<>();
        runtime.addJobListener(
            (graph, status) -> {
              if (status.getState() == JobState.JOB_STATE_SUCCEEDED) {
                jobs.add(status);
              }
            });
        SessionContext ctx = injector.getInstance(SessionContext.class);
        ctx.registerParquet("t", table.toString());
        String expected = String.valueOf(ctx.sql(QUERY).rows());
        Files.createDirectories(group);
        Files.writeString(group.resolve("cpu.cfs_period_us"), "100000");
        Files.writeString(
            group.resolve("cgroup.procs"), Long.toString(processes.executorPid("exec-1")));
        long[] pids = {processes.executorPid("exec-0"), processes.executorPid("exec-1")};
        run(ctx, jobs, true, pids); // warm-up: JIT and footer caches
        // Rounds interleave the three cases, so that the load of a shared machine weighs on each.
        // A round counts only when the quota made exec-1 the slow executor: unthrottled it used at
        // least 1.5 times the quota (exec-0 steals from it at full speed too), and throttled it
        // used no more than the quota allows. On a machine busy with other work the first may not
        // hold, and there is nothing to measure.
        List<Run> full = new ArrayList<>();
        List<Run> slow = new ArrayList<>();
        List<Run> planned = new ArrayList<>();
        List<String> discarded = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
          Files.writeString(quotaFile(group), "-1");
          Run f = run(ctx, jobs, true, pids);
          Files.writeString(quotaFile(group), Long.toString((long) (QUOTA_CORES * 100_000)));
          Run s = run(ctx, jobs, true, pids);
          Run p = run(ctx, jobs, false, pids);
          System.out.printf(
              "round %d:%n  full speed: %s%n  exec-1 throttled, stealing: %s%n"
                  + "  exec-1 throttled, planned splits: %s%n",
              round, f, s, p);
          if (f.cores()[1] >= 1.5 * QUOTA_CORES && s.quotaBinds()) {
            full.add(f);
            slow.add(s);
            planned.add(p);
          } else {
            discarded.add(Integer.toString(round));
          }
        }
        String answer = String.valueOf(ctx.sql(QUERY).rows());
        assertThat(answer).isEqualTo(expected);
        System.out.printf(
            "split stealing, scan stage of %s: rounds left out (exec-1 not the slow one): %s%n",
            QUERY, discarded);
        assumeTrue(
            full.size() >= 2,
            "the machine was too busy for the quota to make exec-1 the slow executor in rounds "
                + discarded);
        Run fullRun = median(full);
        Run slowRun = median(slow);
        Run plannedRun = median(planned);
        System.out.printf(
            "  medians of %d rounds:%n"
                + "  both executors at full speed: %s%n"
                + "  exec-1 at a quarter core, stealing: %s%n"
                + "  exec-1 at a quarter core, planned splits: %s%n",
            full.size(), fullRun, slowRun, plannedRun);
        assertThat(slowRun.stageMillis())
            .as("stage with a quarter-core executor %s against full speed %s", slowRun, fullRun)
            .isLessThanOrEqualTo((long) (1.3 * fullRun.stageMillis()));
        assertThat(plannedRun.stageMillis())
            .as("without stealing %s, with %s", plannedRun, slowRun)
            .isGreaterThan(slowRun.stageMillis());
        assertThat(slowRun.splitsByExecutor().getOrDefault("exec-1", 0))
            .as("the slow executor reads fewer splits: %s", slowRun)
            .isLessThan(slowRun.splitsByExecutor().getOrDefault("exec-0", 0));
      }
    } finally {
      release(group);
    }
  }

  /**
   * One run: the query's time, its scan stage's time, who read how many splits and the cores each
   * executor used meanwhile.
   */
  record Run(
      long queryMillis, long stageMillis, Map<String, Integer> splitsByExecutor, double[] cores) {
    /**
     * Whether exec-1 ran at its quota (the quota bit). Only exec-1's CPU says so: exec-0's depends
     * on the splits it gets, and counting a round only when exec-0 was busy once skipped exactly
     * the runs where stealing failed and left exec-0 idle.
     */
    boolean quotaBinds() {
      return cores[1] <= 1.5 * QUOTA_CORES;
    }

    @Override
    public String toString() {
      return String.format(
          "stage %d ms (query %d ms), splits %s, cores used exec-0 %.2f exec-1 %.2f",
          stageMillis, queryMillis, splitsByExecutor, cores[0], cores[1]);
    }
  }

  private static Run median(List<Run> runs) {
    List<Run> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingLong(Run::stageMillis));
    return sorted.get(sorted.size() / 2);
  }

  private static Run run(SessionContext ctx, List<JobStatusUpdate> jobs, boolean steal, long[] pids)
      throws IOException {
    ctx.sql("SET " + DistributedSettings.SPLIT_STEALING + " = " + steal);
    jobs.clear();
    long[] cpuBefore = {cpuTicks(pids[0]), cpuTicks(pids[1])};
    long start = System.nanoTime();
    ctx.sql(QUERY).rows();
    long nanos = System.nanoTime() - start;
    double[] cores = new double[2];
    for (int i = 0; i < 2; i++) {
      cores[i] = (cpuTicks(pids[i]) - cpuBefore[i]) / TICKS_PER_SECOND / (nanos / 1e9);
    }
    JobStatusUpdate job = jobs.get(jobs.size() - 1);
    // The scan stage is the one of several tasks; its tasks start together, so the stage takes
    // as long as its longest task.
    StageStatus scan =
        job.getStagesList().stream()
            .max(Comparator.comparingInt(StageStatus::getTaskCount))
            .orElseThrow();
    assertThat(scan.getTaskCount()).isEqualTo(4);
    long stage = 0;
    Map<String, Integer> splits = new TreeMap<>();
    for (TaskSummary t : scan.getTasksList()) {
      stage = Math.max(stage, t.getMetrics().getElapsedMillis());
      splits.merge(t.getExecutorId(), t.getMetrics().getHandedSplits(), Integer::sum);
    }
    return new Run(TimeUnit.NANOSECONDS.toMillis(nanos), stage, splits, cores);
  }

  /** Linux's USER_HZ: /proc reports CPU time in these ticks. */
  private static final double TICKS_PER_SECOND = 100;

  /** User and system CPU time of process {@code pid} so far, in ticks ({@code /proc/PID/stat}). */
  private static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    // Fields after the command name (which may hold spaces) in parentheses: utime is the 14th
    // field of the line, stime the 15th.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static Path quotaFile(Path group) {
    return group.resolve("cpu.cfs_quota_us");
  }

  /** Moves the group's processes back to the root group and removes it. */
  private static void release(Path group) throws IOException {
    if (!Files.isDirectory(group)) {
      return;
    }
    for (String pid : Files.readAllLines(group.resolve("cgroup.procs"))) {
      if (!pid.isBlank()) {
        try {
          Files.writeString(CPU.resolve("cgroup.procs"), pid.strip());
        } catch (IOException e) {
          // The process ended meanwhile.
        }
      }
    }
    Files.delete(group);
  }
}
