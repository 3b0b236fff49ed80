package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

  @Test
  void groupsQueueRefuseAndShareSlotsByWeight() throws Exception {
    Path data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    String groups =
        """
        {"groups": [
           {"name": "etl", "maxRunning": 1, "maxQueued": 1, "weight": 1, "memoryShare": 0.5},
           {"name": "adhoc", "maxRunning": 4, "maxQueued": 8, "weight": 3, "memoryShare": 0.5}],
         "selectors": [{"user": "etl-user", "group": "etl"}],
         "default": "adhoc"}
        """;
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
            .withTargetPartitions(16)
            .set("quiver.distributed.bytes_per_task", "64KB")
            .set("quiver.distributed.split_stealing", "false");
    try (UsersCluster cluster =
        UsersCluster.start(tmp, List.of("etl-user", "adhoc-user"), groups, 2, 2, true)) {
      UsersCluster.Client etl = cluster.client("etl-user", data, etlConfig);
      UsersCluster.Client etl2 = cluster.client("etl-user", data, etlConfig);
      UsersCluster.Client etl3 = cluster.client("etl-user", data, etlConfig);
      UsersCluster.Client adhoc =
          cluster.client("adhoc-user", data, new SessionConfig().withTargetPartitions(2));
      // The long etl query runs; once it does, a second etl query waits at position 1.
      long longStart = System.nanoTime();
      CompletableFuture<QueryResult> longRun =
          CompletableFuture.supplyAsync(() -> etl.query(longQuery.sql()));
      waitFor(() -> etl.saw(u -> u.getState() == JobState.JOB_STATE_RUNNING), longRun);
      CompletableFuture<QueryResult> queuedRun =
          CompletableFuture.supplyAsync(() -> etl2.query(shortQuery.sql()));
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
      assertThatThrownBy(() -> etl3.query(shortQuery.sql()))
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
      QueryResult shortGot = adhoc.query(shortQuery.sql());
      long shortMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - shortStart);
      boolean longStillRunning = !longRun.isDone();
      QueryResult longGot = longRun.get(240, TimeUnit.SECONDS);
      long longMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - longStart);
      // The jobs API (operators: the cluster credential) shows the job's user and group, and
      // when its first task got a slot.
      JsonNode job =
          api(
              cluster.processes(),
              "/api/jobs/" + adhoc.updates().get(0).getJobId(),
              UsersCluster.CLUSTER_TOKEN);
      assertThat(job.at("/summary/user").asText()).isEqualTo("adhoc-user");
      assertThat(job.at("/summary/resourceGroup").asText()).isEqualTo("adhoc");
      assertThat(job.at("/summary/queuePosition").asInt()).isZero();
      long firstLaunch =
          tasks(job).stream()
              .mapToLong(t -> t.get("launchedAfterMillis").asLong())
              .filter(t -> t >= 0)
              .min()
              .orElseThrow();
      // How long the etl tasks ran: no task is preempted, so the adhoc job waits for one to end.
      List<Long> etlTasks =
          tasks(
                  api(
                      cluster.processes(),
                      "/api/jobs/" + etl.updates().get(0).getJobId(),
                      UsersCluster.CLUSTER_TOKEN))
              .stream()
              .map(t -> t.get("elapsedMillis").asLong())
              .sorted()
              .toList();
      System.out.printf(
          "resource groups: adhoc %s took %d ms (first task launched %d ms after submission)"
              + " while etl %s ran (%d ms in all; %d tasks, median %d ms, longest %d ms)%n",
          SHORT,
          shortMillis,
          firstLaunch,
          LONG,
          longMillis,
          etlTasks.size(),
          etlTasks.get(etlTasks.size() / 2),
          etlTasks.get(etlTasks.size() - 1));
      assertThat(longStillRunning)
          .as("adhoc %s (%d ms) ended before etl %s (%d ms)", SHORT, shortMillis, LONG, longMillis)
          .isTrue();
      // The first etl task to end frees a slot for adhoc: about a second here; the bound leaves
      // room for a test machine other builds share.
      assertThat(firstLaunch)
          .as("the adhoc job's first slot, in ms after its submission")
          .isLessThan(3_000);
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

  /** GET of the scheduler's jobs API with {@code token}, as JSON. */
  private static JsonNode api(ProcessCluster processes, String path, String token)
      throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(processes.schedulerHttp() + path))
                    .header("Authorization", "Bearer " + token)
                    .timeout(Duration.ofSeconds(20))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return new ObjectMapper().readTree(response.body());
  }

  private static List<JsonNode> tasks(JsonNode job) {
    List<JsonNode> tasks = new java.util.ArrayList<>();
    for (JsonNode stage : job.get("stages")) {
      stage.get("tasks").forEach(tasks::add);
    }
    return tasks;
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
