package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Draining on a scheduler and executor processes started from the jars: an executor drained through
 * {@code POST /api/executors/{id}/drain} (or by SIGTERM) while a query runs lets the query answer
 * right (compared with single-node Quiver), gets no task of a later query, and exits once drained.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DrainClusterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CALL = Duration.ofSeconds(20);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CALL).build();
  private Path logs;
  private ProcessCluster cluster;
  private ClusterFixture.ClusterRows engine;
  private QuiverRows local;

  @BeforeAll
  void start() throws Exception {
    Path data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    logs = Files.createTempDirectory("quiver-drain-cluster-");
    cluster = ProcessCluster.start(logs, 3, ProcessCluster.Options.of(2).withHttp());
    engine = ClusterFixture.remote(cluster.target(), data, new SessionConfig());
    local = new QuiverRows(data, 4);
  }

  @AfterAll
  void stop() {
    try {
      if (engine != null) {
        engine.rows().close();
      }
      if (local != null) {
        local.close();
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

  @Test
  @Order(1)
  void anExecutorDrainedThroughTheApiFinishesTheQueryGetsNoNewTasksAndExits() throws Exception {
    String drained = cluster.executorIds().get(0);
    String other = cluster.executorIds().get(1);
    cluster.awaitExecutors(3);
    TpchQuery q = TpchQueries.get(9);
    CompletableFuture<QueryResult> running =
        CompletableFuture.supplyAsync(() -> engine.rows().query(q.sql()));
    awaitRunningJobOrDone(running);

    HttpResponse<String> drain =
        send("POST", cluster.schedulerHttp() + "/api/executors/" + drained + "/drain");
    assertThat(drain.statusCode()).as(drain.body()).isEqualTo(200);
    assertThat(JSON.readTree(drain.body()).get("draining").asBoolean()).isTrue();
    assertThat(send("GET", cluster.schedulerHttp() + "/api/executors/" + drained + "/drain"))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(405);
    assertThat(send("POST", cluster.schedulerHttp() + "/api/executors/nobody/drain"))
        .extracting(HttpResponse::statusCode)
        .isEqualTo(404);
    assertThat(executorJson(drained).get("draining").asBoolean()).isTrue();
    assertThat(executorJson(other).get("draining").asBoolean()).isFalse();

    check(q, running.get(180, TimeUnit.SECONDS));

    // A later query: every task on the other executor.
    engine.jobs().clear();
    TpchQuery later = TpchQueries.get(3);
    check(later, engine.rows().query(later.sql()));
    assertThat(engine.jobs()).isNotEmpty();
    for (JobStatusUpdate job : List.copyOf(engine.jobs())) {
      assertThat(ClusterFixture.executorsOf(job)).isNotEmpty().doesNotContain(drained);
    }

    // Its jobs over, the drained executor exits by itself, cleanly.
    Process p = cluster.executorProcess(drained);
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("drained executor exited").isTrue();
    assertThat(p.exitValue()).isZero();
  }

  @Test
  @Order(2)
  void sigtermDrainsAnExecutorWhileAQueryRuns() throws Exception {
    // The first test drained executor 0; executor 1 gets SIGTERM, executor 2 stays.
    String leaving = cluster.executorIds().get(1);
    String staying = cluster.executorIds().get(2);
    TpchQuery q = TpchQueries.get(9);
    CompletableFuture<QueryResult> running =
        CompletableFuture.supplyAsync(() -> engine.rows().query(q.sql()));
    awaitRunningJobOrDone(running);
    Process p = cluster.executorProcess(leaving);
    ProcessCluster.signal(p.pid(), "TERM");

    check(q, running.get(180, TimeUnit.SECONDS));
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("SIGTERMed executor exited").isTrue();
    List<ExecutorStatus> after = cluster.statuses();
    assertThat(after)
        .filteredOn(s -> s.getInfo().getExecutorId().equals(leaving))
        .allSatisfy(s -> assertThat(s.getDraining()).isTrue());

    engine.jobs().clear();
    TpchQuery later = TpchQueries.get(3);
    check(later, engine.rows().query(later.sql()));
    for (JobStatusUpdate job : List.copyOf(engine.jobs())) {
      assertThat(ClusterFixture.executorsOf(job)).containsOnly(staying);
    }
  }

  private void check(TpchQuery q, QueryResult actual) {
    QueryResult expected = local.query(q.sql());
    Differential.check(
        q.name() + " with a draining executor",
        q.sql(),
        expected,
        actual,
        Differential.sortOf(q.orderBy(), expected));
  }

  /** Waits until the scheduler lists a running job (so the drain lands mid-query), bounded. */
  private void awaitRunningJobOrDone(CompletableFuture<?> query) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!query.isDone() && System.nanoTime() < deadline) {
      for (JsonNode j : json(cluster.schedulerHttp() + "/api/jobs").get("jobs")) {
        if (j.get("state").asText().equals("RUNNING") && j.get("tasksDone").asInt() > 0) {
          return;
        }
      }
      Thread.sleep(20);
    }
  }

  private JsonNode executorJson(String id) throws Exception {
    for (JsonNode e : json(cluster.schedulerHttp() + "/api/executors").get("executors")) {
      if (e.get("id").asText().equals(id)) {
        return e;
      }
    }
    throw new AssertionError("executor " + id + " not listed");
  }

  private JsonNode json(String url) throws Exception {
    HttpResponse<String> r = send("GET", url);
    assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private HttpResponse<String> send(String method, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(CALL)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
