package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.client.JobListener;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Users and resource groups on a scheduler and two executor jars: each user's token (--users-file)
 * selects the user's group (--resource-groups); a group running its most jobs queues the next with
 * a position its client sees, refuses one beyond its queue with a typed error naming the group and
 * its limit, and a short query of another group finishes while the long one runs (task slots are
 * shared by weight). Every answer is checked against DuckDB.
 */
@Timeout(300)
class ResourceGroupsClusterTest {
  private static final String LONG = "q21";
  private static final String SHORT = "q6";

  @TempDir Path tmp;

  /** One client: a session over the cluster with its user's token, and its jobs' updates. */
  private record Client(ClusterFixture.ClusterRows cluster, List<JobStatusUpdate> updates)
      implements AutoCloseable {
    @Override
    public void close() {
      cluster.rows().close();
    }

    boolean saw(java.util.function.Predicate<JobStatusUpdate> p) {
      return updates.stream().anyMatch(p);
    }
  }

  private Client client(String target, String token, SessionConfig config) {
    ClusterFixture.ClusterRows rows =
        ClusterFixture.remote(
            ClusterConfig.remote(target).withSecurity(SecurityConfig.none().withToken(token)),
            TpchFixture.data(ClusterTpchTestBase.SCALE),
            config);
    List<JobStatusUpdate> updates = new CopyOnWriteArrayList<>();
    rows.runtime()
        .addJobListener(
            new JobListener() {
              @Override
              public void jobSucceeded(StageGraph graph, JobStatusUpdate status) {
                updates.add(status);
              }

              @Override
              public void jobUpdated(StageGraph graph, JobStatusUpdate status) {
                updates.add(status);
              }
            });
    return new Client(rows, updates);
  }

  private Path write(String name, String text) throws Exception {
    return Files.writeString(tmp.resolve(name), text);
  }

  @Test
  void groupsQueueRefuseAndShareSlotsByWeight() throws Exception {
    Path data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    Path clientToken = write("client.token", "qv-client-7c1d");
    Path clusterToken = write("cluster.token", "qv-cluster-93be");
    write("etl.token", "qv-etl-41f0");
    write("adhoc.token", "qv-adhoc-d25a");
    Path users = write("users", "# user:token-file\netl-user:etl.token\nadhoc-user:adhoc.token\n");
    Path groups =
        write(
            "groups.json",
            """
            {"groups": [
               {"name": "etl", "maxRunning": 1, "maxQueued": 1, "weight": 1, "memoryShare": 0.5},
               {"name": "adhoc", "maxRunning": 4, "maxQueued": 8, "weight": 3, "memoryShare": 0.5}],
             "selectors": [{"user": "etl-user", "group": "etl"}],
             "default": "adhoc"}
            """);
    // Executors know the users too: clients read their results from them with their tokens.
    List<String> tokens =
        List.of(
            "--token-file",
            clientToken.toString(),
            "--cluster-token-file",
            clusterToken.toString(),
            "--users-file",
            users.toString());
    List<String> schedulerArgs =
        new java.util.ArrayList<>(List.of("--resource-groups", groups.toString()));
    schedulerArgs.addAll(tokens);
    ProcessCluster.Options options =
        new ProcessCluster.Options(
            2, null, schedulerArgs, tokens, SecurityConfig.none().withToken("qv-client-7c1d"));
    TpchQuery longQuery = TpchQueries.get(21);
    TpchQuery shortQuery = TpchQueries.get(6);
    QueryResult longWant;
    QueryResult shortWant;
    try (DuckDbRows duckdb = new DuckDbRows(data, 2)) {
      longWant = duckdb.query(longQuery.sql());
      shortWant = duckdb.query(shortQuery.sql());
    }
    // The long query in many small tasks, so that slots free often and the other group gets them.
    SessionConfig etlConfig =
        new SessionConfig()
            .withTargetPartitions(8)
            .set("quiver.distributed.bytes_per_task", "64KB")
            .set("quiver.distributed.split_stealing", "false");
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    try (ProcessCluster processes = ProcessCluster.start(logs, 2, options);
        Client etl = client(processes.target(), "qv-etl-41f0", etlConfig);
        Client etl2 = client(processes.target(), "qv-etl-41f0", etlConfig);
        Client etl3 = client(processes.target(), "qv-etl-41f0", etlConfig);
        Client adhoc =
            client(
                processes.target(), "qv-adhoc-d25a", new SessionConfig().withTargetPartitions(2))) {
      // The long etl query runs; once it does, a second etl query waits at position 1.
      long longStart = System.nanoTime();
      CompletableFuture<QueryResult> longRun =
          CompletableFuture.supplyAsync(() -> etl.cluster().rows().query(longQuery.sql()));
      waitFor(() -> etl.saw(u -> u.getState() == JobState.JOB_STATE_RUNNING), longRun);
      CompletableFuture<QueryResult> queuedRun =
          CompletableFuture.supplyAsync(() -> etl2.cluster().rows().query(shortQuery.sql()));
      waitFor(() -> etl2.saw(u -> u.getQueuePosition() == 1), longRun);
      JobStatusUpdate queued =
          etl2.updates().stream().filter(u -> u.getQueuePosition() == 1).findFirst().orElseThrow();
      assertThat(queued.getState()).isEqualTo(JobState.JOB_STATE_QUEUED);
      assertThat(queued.getResourceGroup()).isEqualTo("etl");
      assertThat(queued.getUser()).as("the user comes from the token").isEqualTo("etl-user");
      assertThat(queued.getStagesList().stream().mapToInt(s -> s.getTasksCount()).sum())
          .as("nothing of a waiting job runs")
          .isZero();

      // The queue is full: a third etl query is refused, naming the group and its limit.
      assertThatThrownBy(() -> etl3.cluster().rows().query(shortQuery.sql()))
          .satisfies(
              e ->
                  assertThat(causes(e))
                      .anySatisfy(
                          c -> {
                            assertThat(c).isInstanceOf(ResourcesExhaustedException.class);
                            assertThat(c.getMessage())
                                .contains("resource group 'etl'")
                                .contains("maxQueued 1");
                          }));

      // A short query of the other group finishes while the long one still runs.
      long shortStart = System.nanoTime();
      QueryResult shortGot = adhoc.cluster().rows().query(shortQuery.sql());
      long shortMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - shortStart);
      boolean longStillRunning = !longRun.isDone();
      QueryResult longGot = longRun.get(240, TimeUnit.SECONDS);
      long longMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - longStart);
      System.out.printf(
          "resource groups: adhoc %s took %d ms while etl %s ran (%d ms in all)%n",
          SHORT, shortMillis, LONG, longMillis);
      assertThat(longStillRunning)
          .as("adhoc %s (%d ms) ended before etl %s (%d ms)", SHORT, shortMillis, LONG, longMillis)
          .isTrue();
      assertThat(adhoc.updates())
          .as("the adhoc user's jobs run in the default group")
          .allSatisfy(u -> assertThat(u.getResourceGroup()).isEqualTo("adhoc"));
      Differential.check(
          SHORT,
          shortQuery.sql(),
          shortWant,
          shortGot,
          Differential.sortOf(shortQuery.orderBy(), shortWant));
      Differential.check(
          LONG,
          longQuery.sql(),
          longWant,
          longGot,
          Differential.sortOf(longQuery.orderBy(), longWant));
      // The queued etl query is admitted once the long one ends, and answers right.
      QueryResult queuedGot = queuedRun.get(120, TimeUnit.SECONDS);
      Differential.check(
          SHORT,
          shortQuery.sql(),
          shortWant,
          queuedGot,
          Differential.sortOf(shortQuery.orderBy(), shortWant));
    }
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> all = new java.util.ArrayList<>();
    for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
      all.add(t);
    }
    return all;
  }

  /** Waits up to 60 s for {@code condition}; fails early if {@code run} ended first. */
  private static void waitFor(BooleanSupplier condition, CompletableFuture<?> run)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(run.isDone()).as("the long query ended before the test got there").isFalse();
      assertThat(System.nanoTime()).as("condition not met in time").isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
