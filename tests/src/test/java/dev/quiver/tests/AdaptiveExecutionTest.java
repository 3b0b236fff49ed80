package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.SameRows;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
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
 * Adaptive execution on an embedded cluster of 4 executors (four tasks a stage): a join where half
 * of one side's rows share one key gets that partition split among several tasks, a shuffled join
 * whose filtered side turns out to be 100 rows becomes a broadcast join reading the other side
 * where it was written, a scan feeding a join with an aggregate that keeps 100 keys shuffles only
 * the rows with those keys, and tiny partitions are coalesced. The changes show in the job's
 * stages, and every answer equals single-node Quiver's and DuckDB's on the same files, with
 * adaptive execution on and off.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class AdaptiveExecutionTest {
  static final int ROWS = 400_000;

  /** Half of facts' rows have k = 7; dims has one row per key. */
  static final String SKEWED =
      "SELECT d.name, count(*) AS n, sum(f.v) AS s FROM facts f JOIN dims d ON f.k = d.k"
          + " GROUP BY d.name";

  /** The filter leaves 100 of big's 400,000 rows, which the planner cannot know. */
  static final String FILTERED =
      "SELECT count(*) AS n, sum(f.v) AS s, min(b.w) AS w FROM facts f JOIN big b ON f.v = b.k"
          + " WHERE b.w % 4000 = 7";

  /**
   * The aggregate keeps 100 of big's groups, which the planner cannot know, and is joined on its
   * max(w) (equal to k in big), so its stage shuffles them: the scan of facts waits for it and
   * shuffles only the rows whose v is among them (a runtime filter).
   */
  static final String AGGREGATED_KEYS =
      "SELECT count(*) AS n, sum(f.v) AS s, max(b.k) AS k FROM facts f JOIN"
          + " (SELECT b2.k, max(b2.w) AS w FROM big b2 GROUP BY b2.k HAVING max(b2.w) % 4000 = 7) b"
          + " ON f.v = b.w";

  /**
   * days (a tenth of facts' bytes) filtered to 4,000 of its 40,000 rows: the scan of facts, ten
   * times larger, waits for it and shuffles only the rows whose v the filtered keys may hold.
   */
  static final String FILTERED_SCAN_KEYS =
      "SELECT count(*) AS n, sum(f.v) AS s, min(d.tag) AS t FROM facts f JOIN days d ON f.v = d.k"
          + " WHERE d.tag = 't3'";

  /** Few groups: the final aggregate's partitions are tiny. */
  static final String TINY =
      "SELECT k % 3 AS g, count(*) AS n FROM facts GROUP BY k % 3 ORDER BY g";

  /** As {@link #TINY}, its final aggregate in the final stage, whose tasks the client reads. */
  static final String TINY_FINAL = "SELECT k % 3 AS g, count(*) AS n FROM facts GROUP BY k % 3";

  @TempDir static Path tmp;
  private Injector injector;
  private SessionContext cluster;
  private SessionContext local;
  private final List<JobStatusUpdate> jobs = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  void start() throws Exception {
    write(tmp);
    injector = Guice.createInjector(new EmbeddedClusterModule(4, new SessionConfig()));
    ClusterRuntime runtime = injector.getInstance(ClusterLifecycle.class).start();
    runtime.addJobListener(
        new JobListener() {
          @Override
          public void jobSucceeded(StageGraph graph, JobStatusUpdate status) {
            jobs.add(status);
          }
        });
    cluster = register(injector.getInstance(SessionContext.class), tmp);
    configure(cluster.config());
    local = register(new SessionContext(), tmp);
  }

  @AfterAll
  void stop() {
    try {
      if (cluster != null) {
        cluster.close();
      }
      if (local != null) {
        local.close();
      }
    } finally {
      if (injector != null) {
        injector.getInstance(ClusterLifecycle.class).close();
      }
    }
  }

  /** Writes facts, dims and big as Parquet files of several row groups under {@code dir}. */
  static void write(Path dir) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute(
          "COPY (SELECT CASE WHEN i % 2 = 0 THEN 7 ELSE i END::BIGINT AS k, i::BIGINT AS v"
              + " FROM range("
              + ROWS
              + ") t(i)) TO '"
              + dir.resolve("facts.parquet")
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 25000)");
      s.execute(
          "COPY (SELECT i::BIGINT AS k, 'n' || (i % 10) AS name FROM range("
              + ROWS
              + ") t(i)) TO '"
              + dir.resolve("dims.parquet")
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 25000)");
      s.execute(
          "COPY (SELECT i::BIGINT AS k, i::BIGINT AS w FROM range("
              + ROWS
              + ") t(i)) TO '"
              + dir.resolve("big.parquet")
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 25000)");
      s.execute(
          "COPY (SELECT i::BIGINT AS k, 't' || (i % 10) AS tag FROM range("
              + ROWS / 10
              + ") t(i)) TO '"
              + dir.resolve("days.parquet")
              + "' (FORMAT PARQUET, ROW_GROUP_SIZE 10000)");
    }
  }

  static SessionContext register(SessionContext ctx, Path dir) {
    for (String t : List.of("facts", "dims", "big", "days")) {
      ctx.registerParquet(t, dir.resolve(t + ".parquet").toString());
    }
    return ctx;
  }

  /**
   * Small tasks, both join sides shuffled whenever the planner estimates more than a thousand rows,
   * and adaptive thresholds scaled to these few megabytes.
   */
  static void configure(SessionConfig config) {
    config
        .set(DistributedSettings.BYTES_PER_TASK, "64k")
        .set(DistributedSettings.MAX_TASKS, "4")
        .set(DistributedSettings.BROADCAST_THRESHOLD_ROWS, "1000")
        .set(DistributedSettings.ADAPTIVE_SKEW_FACTOR, "3")
        .set(DistributedSettings.ADAPTIVE_SKEW_MIN_BYTES, "64k")
        .set(DistributedSettings.ADAPTIVE_BROADCAST_BYTES, "64k");
  }

  private static List<String> duckdb(String sql) throws Exception {
    String duck =
        sql.replace("dims d", "read_parquet('" + tmp.resolve("dims.parquet") + "') d")
            .replace("big b", "read_parquet('" + tmp.resolve("big.parquet") + "') b")
            .replace("days d", "read_parquet('" + tmp.resolve("days.parquet") + "') d");
    return SameRows.duckdb("facts", "SELECT * FROM '" + tmp.resolve("facts.parquet") + "'", duck);
  }

  /** Runs {@code sql} on the cluster, checks its rows, and returns its job's last status. */
  private JobStatusUpdate runAndCheck(String sql) throws Exception {
    jobs.clear();
    List<String> got = SameRows.quiver(cluster, sql);
    SameRows.same(SameRows.quiver(local, sql), got, sql);
    SameRows.same(duckdb(sql), got, sql);
    assertThat(jobs).as("one job ran").hasSize(1);
    return jobs.get(0);
  }

  private static List<StageStatus> adapted(JobStatusUpdate job) {
    return job.getStagesList().stream().filter(s -> !s.getAdaptive().isEmpty()).toList();
  }

  @Test
  void skewedJoinPartitionIsSplitAmongSeveralTasks() throws Exception {
    JobStatusUpdate job = runAndCheck(SKEWED);
    List<StageStatus> changed = adapted(job);
    assertThat(changed).as(job.toString()).isNotEmpty();
    StageStatus join =
        changed.stream()
            .filter(s -> s.getAdaptive().contains("skewed partition"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no split: " + job));
    assertThat(join.getAdaptive()).containsPattern("(\\d+) tasks planned, (\\d+) run");
    int planned =
        Integer.parseInt(join.getAdaptive().replaceAll(".*?(\\d+) tasks planned.*", "$1"));
    assertThat(join.getTaskCount()).as(join.getAdaptive()).isGreaterThan(planned);
    assertThat(join.getTasksSucceeded()).isEqualTo(join.getTaskCount());
  }

  @Test
  void joinWithASideFilteredToAHundredRowsBecomesABroadcastJoin() throws Exception {
    JobStatusUpdate job = runAndCheck(FILTERED);
    StageStatus join =
        adapted(job).stream()
            .filter(s -> s.getAdaptive().startsWith("broadcast join at run time"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no broadcast: " + job));
    assertThat(join.getAdaptive()).contains("wrote 100 rows");
    // Each task read one producer's output of the large side on the executor that wrote it.
    assertThat(join.getTasksList()).allSatisfy(t -> assertThat(t.getExecutorId()).isNotEmpty());
  }

  @Test
  void scanStageShufflesOnlyRowsWhoseKeysTheAggregateKept() throws Exception {
    JobStatusUpdate job = runAndCheck(AGGREGATED_KEYS);
    StageStatus filtered =
        adapted(job).stream()
            .filter(s -> s.getAdaptive().startsWith("rows filtered by the join keys of stage"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no runtime filter: " + job));
    assertThat(filtered.getAdaptive()).contains("(100 rows");
    long written =
        filtered.getTasksList().stream().mapToLong(t -> t.getMetrics().getOutputRows()).sum();
    // facts' v is unique: 100 of its 400,000 rows find a key, and only those are shuffled.
    assertThat(written).as(filtered.toString()).isEqualTo(100);
  }

  @Test
  void runtimeFilterOverItsByteLimitUsesABloomFilterOfTheKeys() throws Exception {
    cluster.config().set(DistributedSettings.RUNTIME_FILTER_BYTES, "100");
    try {
      JobStatusUpdate job = runAndCheck(AGGREGATED_KEYS);
      StageStatus filtered = bloomFiltered(job);
      assertThat(filtered.getAdaptive()).contains("(100 rows");
      long written =
          filtered.getTasksList().stream().mapToLong(t -> t.getMetrics().getOutputRows()).sum();
      // Every row with a partner passes, and a few percent of the 399,900 others at most.
      assertThat(written).as(filtered.toString()).isBetween(100L, 100L + 399_900L / 20);
    } finally {
      cluster.config().set(DistributedSettings.RUNTIME_FILTER_BYTES, "4m");
    }
  }

  @Test
  void runtimeFilterOverItsByteAndRowLimitsLeavesTheScanAsPlanned() throws Exception {
    cluster.config().set(DistributedSettings.RUNTIME_FILTER_BYTES, "100");
    cluster.config().set(DistributedSettings.RUNTIME_FILTER_ROWS, "50");
    try {
      JobStatusUpdate job = runAndCheck(AGGREGATED_KEYS);
      assertThat(adapted(job))
          .as(job.toString())
          .anySatisfy(
              s ->
                  assertThat(s.getAdaptive())
                      .contains("not used: it wrote")
                      .contains("over the Bloom filter's 50"))
          .noneSatisfy(s -> assertThat(s.getAdaptive()).startsWith("rows filtered"));
    } finally {
      cluster.config().set(DistributedSettings.RUNTIME_FILTER_BYTES, "4m");
      cluster.config().set(DistributedSettings.RUNTIME_FILTER_ROWS, "4000000");
    }
  }

  @Test
  void scanOfTheLargerSideIsFilteredByTheSmallerFilteredScan() throws Exception {
    JobStatusUpdate exact = runAndCheck(FILTERED_SCAN_KEYS);
    StageStatus semi =
        adapted(exact).stream()
            .filter(s -> s.getAdaptive().startsWith("rows filtered by the join keys of stage"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no runtime filter: " + exact));
    assertThat(semi.getAdaptive()).contains("(4000 rows");
    assertThat(semi.getTasksList().stream().mapToLong(t -> t.getMetrics().getOutputRows()).sum())
        .as("facts' v is unique: 4,000 rows have a partner")
        .isEqualTo(4000);
    cluster.config().set(DistributedSettings.RUNTIME_FILTER_BYTES, "100");
    try {
      StageStatus bloom = bloomFiltered(runAndCheck(FILTERED_SCAN_KEYS));
      assertThat(bloom.getAdaptive()).contains("(4000 rows");
      assertThat(bloom.getTasksList().stream().mapToLong(t -> t.getMetrics().getOutputRows()).sum())
          .isBetween(4000L, 4000L + 396_000L / 20);
    } finally {
      cluster.config().set(DistributedSettings.RUNTIME_FILTER_BYTES, "4m");
    }
  }

  private static StageStatus bloomFiltered(JobStatusUpdate job) {
    return adapted(job).stream()
        .filter(s -> s.getAdaptive().startsWith("rows filtered by a Bloom filter"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no Bloom filter: " + job));
  }

  @Test
  void tinyPartitionsAreCoalesced() throws Exception {
    JobStatusUpdate job = runAndCheck(TINY);
    StageStatus coalesced =
        adapted(job).stream()
            .filter(s -> s.getAdaptive().contains("coalesced"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("nothing coalesced: " + job));
    assertThat(coalesced.getAdaptive()).contains("run").doesNotContain("skewed");
    assertThat(coalesced.getTaskCount()).isEqualTo(1);
  }

  @Test
  void coalescedFinalStageReturnsEveryRow() throws Exception {
    JobStatusUpdate job = runAndCheck(TINY_FINAL);
    StageStatus last = job.getStages(job.getStagesCount() - 1);
    assertThat(last.getAdaptive()).contains("coalesced");
    assertThat(last.getTaskCount()).isEqualTo(1);
  }

  @Test
  void sameAnswersWithAdaptiveExecutionOff() throws Exception {
    cluster.config().set(DistributedSettings.ADAPTIVE, "false");
    try {
      for (String sql : List.of(SKEWED, FILTERED, AGGREGATED_KEYS, TINY, TINY_FINAL)) {
        JobStatusUpdate job = runAndCheck(sql);
        assertThat(adapted(job)).as(sql).isEmpty();
      }
    } finally {
      cluster.config().set(DistributedSettings.ADAPTIVE, "true");
    }
  }
}
