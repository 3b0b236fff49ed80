package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchQueries;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The servers' HTTP endpoints, on a scheduler and two executor processes started from the jars with
 * {@code --http-port 0}: probes, Prometheus metrics that move by exactly what the queries did, the
 * jobs and executors JSON API, the web UI pages, and cancelling through the API.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CALL = Duration.ofSeconds(20);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CALL).build();
  private Path logs;
  private ProcessCluster cluster;
  private ClusterFixture.ClusterRows engine;

  @BeforeAll
  void start() throws Exception {
    Path data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    logs = Files.createTempDirectory("quiver-http-cluster-");
    // The counters are checked exactly against what the queries did, so no task may get a
    // speculative second attempt because the loaded test machine made it look like a straggler.
    cluster =
        ProcessCluster.start(
            logs, 2, ProcessCluster.Options.of(2).withSchedulerArgs("--no-speculation").withHttp());
    engine = ClusterFixture.remote(cluster.target(), data, new SessionConfig());
  }

  @AfterAll
  void stop() {
    try {
      if (engine != null) {
        engine.rows().close();
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
  void probesAnswerOnEveryServer() throws Exception {
    assertThat(get(cluster.schedulerHttp() + "/healthz").body()).isEqualTo("ok\n");
    assertThat(get(cluster.schedulerHttp() + "/readyz").statusCode()).isEqualTo(200);
    for (String executor : executorUrls()) {
      assertThat(get(executor + "/healthz").statusCode()).isEqualTo(200);
      HttpResponse<String> ready = get(executor + "/readyz");
      assertThat(ready.statusCode()).as(executor + " readyz: " + ready.body()).isEqualTo(200);
    }
  }

  @Test
  void queriesMoveTheCountersByWhatTheyDid() throws Exception {
    PrometheusText schedulerBefore = metrics(cluster.schedulerHttp());
    List<PrometheusText> executorsBefore = new ArrayList<>();
    for (String e : executorUrls()) {
      executorsBefore.add(metrics(e));
    }
    List<String> sqls = List.of(TpchQueries.get(3).sql(), TpchQueries.get(5).sql());
    for (String sql : sqls) {
      engine.rows().query(sql);
    }

    // The jobs API lists them newest first, named by their SQL, finished, with all tasks done.
    JsonNode jobs = json(cluster.schedulerHttp() + "/api/jobs").get("jobs");
    List<JsonNode> mine = new ArrayList<>();
    for (JsonNode j : jobs) {
      if (sqls.contains(j.get("name").asText())) {
        mine.add(j);
      }
    }
    assertThat(mine).hasSize(2);
    assertThat(mine.get(0).get("name").asText()).isEqualTo(sqls.get(1));
    long tasks = 0;
    long bytes = 0;
    long rows = 0;
    Set<String> executorIds = new HashSet<>();
    for (JsonNode j : mine) {
      assertThat(j.get("state").asText()).isEqualTo("SUCCEEDED");
      assertThat(j.get("tasksDone").asInt()).isEqualTo(j.get("tasksTotal").asInt()).isPositive();
      assertThat(j.get("stagesDone").asInt()).isEqualTo(j.get("stagesTotal").asInt());
      assertThat(j.get("finishedAtMillis").asLong())
          .isGreaterThanOrEqualTo(j.get("submittedAtMillis").asLong());
      JsonNode detail = json(cluster.schedulerHttp() + "/api/jobs/" + j.get("id").asText());
      assertThat(detail.get("dot").asText()).startsWith("digraph stages").contains(" -> client");
      assertThat(detail.get("stages")).hasSize(j.get("stagesTotal").asInt());
      long duration = j.get("finishedAtMillis").asLong() - j.get("submittedAtMillis").asLong();
      Map<Integer, Long> stageEnds = new HashMap<>();
      for (JsonNode stage : detail.get("stages")) {
        long end = 0;
        for (JsonNode t : stage.get("tasks")) {
          long launched = t.get("launchedAfterMillis").asLong();
          long ended = t.get("endedAfterMillis").asLong();
          assertThat(launched).isBetween(0L, ended);
          assertThat(ended).isLessThanOrEqualTo(duration);
          end = Math.max(end, ended);
        }
        stageEnds.put(stage.get("id").asInt(), end);
      }
      for (JsonNode stage : detail.get("stages")) {
        // A stage's tasks launch once the stages they read have ended (no stage here pipelines).
        for (JsonNode input : stage.get("inputs")) {
          for (JsonNode t : stage.get("tasks")) {
            assertThat(t.get("launchedAfterMillis").asLong())
                .isGreaterThanOrEqualTo(stageEnds.get(input.asInt()));
          }
        }
        assertThat(stage.get("partitioning").asText()).isNotEmpty();
        assertThat(stage.get("planText").asText()).isNotEmpty();
        assertThat(stage.get("tasks")).hasSize(stage.get("taskCount").asInt());
        for (JsonNode t : stage.get("tasks")) {
          assertThat(t.get("state").asText()).isEqualTo("SUCCEEDED");
          assertThat(t.get("attempts").asInt()).isEqualTo(1);
          executorIds.add(t.get("executorId").asText());
          tasks++;
          bytes += t.get("bytes").asLong();
          rows += t.get("rows").asLong();
        }
      }
    }
    assertThat(executorIds).containsExactlyInAnyOrderElementsOf(cluster.executorIds());

    PrometheusText scheduler = metrics(cluster.schedulerHttp());
    assertThat(delta(scheduler, schedulerBefore, "quiver_jobs_submitted_total")).isEqualTo(2);
    assertThat(
            delta(scheduler, schedulerBefore, "quiver_jobs_finished_total", "state", "succeeded"))
        .isEqualTo(2);
    assertThat(
            delta(
                scheduler,
                schedulerBefore,
                "quiver_job_duration_seconds_count",
                "state",
                "succeeded"))
        .isEqualTo(2);
    assertThat(
            delta(
                scheduler,
                schedulerBefore,
                "quiver_task_duration_seconds_count",
                "state",
                "succeeded"))
        .isEqualTo(tasks);
    assertThat(delta(scheduler, schedulerBefore, "quiver_task_retries_total")).isZero();
    assertThat(scheduler.value("quiver_executors_alive")).isEqualTo(2);
    assertThat(scheduler.value("quiver_executors_lost_total")).isZero();
    assertThat(scheduler.value("quiver_tasks_running")).isZero();
    assertThat(scheduler.value("quiver_jobs_running")).isZero();
    assertThat(scheduler.has("jvm_memory_used_bytes")).isTrue();

    double executorTasks = 0;
    double written = 0;
    double outputRows = 0;
    double fetched = 0;
    List<String> urls = executorUrls();
    for (int i = 0; i < urls.size(); i++) {
      PrometheusText now = metrics(urls.get(i));
      PrometheusText before = executorsBefore.get(i);
      executorTasks +=
          delta(now, before, "quiver_executor_tasks_finished_total", "state", "succeeded");
      written += delta(now, before, "quiver_shuffle_written_bytes_total");
      outputRows += delta(now, before, "quiver_executor_output_rows_total");
      fetched +=
          delta(now, before, "quiver_shuffle_fetched_bytes_total", "source", "local")
              + delta(now, before, "quiver_shuffle_fetched_bytes_total", "source", "remote");
      assertThat(now.value("quiver_memory_limit_bytes")).isEqualTo(1L << 30);
      assertThat(now.has("quiver_memory_allocated_bytes")).isTrue();
      assertThat(now.has("quiver_shuffle_spilled_bytes_total")).isTrue();
      assertThat(now.has("jvm_threads_current")).isTrue();
    }
    assertThat(executorTasks).isEqualTo(tasks);
    assertThat(written).isEqualTo(bytes);
    assertThat(outputRows).isEqualTo(rows);
    assertThat(fetched).isPositive();

    JsonNode executors = json(cluster.schedulerHttp() + "/api/executors").get("executors");
    assertThat(executors).hasSize(2);
    for (JsonNode e : executors) {
      assertThat(e.get("host").asText()).isEqualTo("127.0.0.1");
      assertThat(e.get("cores").asInt()).isEqualTo(2);
      assertThat(e.get("memoryBytes").asLong()).isEqualTo(1L << 30);
      assertThat(e.get("state").asText()).isEqualTo("ALIVE");
      assertThat(e.get("lastHeartbeatMillis").asLong())
          .isGreaterThan(System.currentTimeMillis() - 60_000);
      assertThat(e.get("httpPort").asInt()).isPositive();
    }
  }

  @Test
  void webUiShowsJobsAJobsStagesAndTheExecutors() throws Exception {
    String sql = TpchQueries.get(9).sql();
    engine.rows().query(sql);
    JsonNode job = null;
    for (JsonNode j : json(cluster.schedulerHttp() + "/api/jobs").get("jobs")) {
      if (j.get("name").asText().equals(sql)) {
        job = j;
        break;
      }
    }
    assertThat(job).isNotNull();
    String id = job.get("id").asText();

    Document jobsPage = page("/");
    assertThat(jobsPage.title()).contains("Jobs");
    Element row = jobsPage.selectFirst("table.jobs a[href=/jobs/" + id + "]");
    assertThat(row).as("jobs page links job " + id).isNotNull();
    Element tr = row.closest("tr");
    assertThat(tr.select(".badge").text()).isEqualTo("SUCCEEDED");
    assertThat(tr.text())
        .contains(job.get("tasksTotal").asInt() + "/" + job.get("tasksTotal").asInt() + " tasks");

    JsonNode detail = json(cluster.schedulerHttp() + "/api/jobs/" + id);
    Document jobPage = page("/jobs/" + id);
    assertThat(jobPage.selectFirst("pre.query").wholeText()).isEqualTo(sql);
    Element svg = jobPage.selectFirst("svg.graph");
    assertThat(svg).isNotNull();
    for (JsonNode stage : detail.get("stages")) {
      int stageId = stage.get("id").asInt();
      assertThat(svg.select("a[href=#stage-" + stageId + "]")).hasSize(1);
      Element heading = jobPage.getElementById("stage-" + stageId);
      assertThat(heading).as("section of stage " + stageId).isNotNull();
      Element table = heading.nextElementSiblings().select("table.tasks").first();
      assertThat(table.select("tbody tr")).hasSize(stage.get("taskCount").asInt());
    }
    assertThat(svg.select("path[marker-end]"))
        .hasSizeGreaterThanOrEqualTo(detail.get("stages").size());
    assertThat(svg.text()).contains("client");

    Document executorsPage = page("/executors");
    assertThat(executorsPage.select("tbody tr")).hasSize(2);
    for (String executorId : cluster.executorIds()) {
      assertThat(executorsPage.text()).contains(executorId);
    }
    assertThat(executorsPage.select("tbody .badge").eachText()).containsOnly("ALIVE");

    HttpResponse<String> missing = get(cluster.schedulerHttp() + "/jobs/job-0-nope");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("job-0-nope");
  }

  @Test
  void deleteCancelsARunningJobAndFreesExecutorMemory() throws Exception {
    String sql =
        "SELECT count(*) AS n, sum(a.l_quantity * b.l_quantity) AS q FROM lineitem a"
            + " JOIN lineitem b ON a.l_suppkey = b.l_suppkey";
    PrometheusText before = metrics(cluster.schedulerHttp());
    CompletableFuture<Object> query = CompletableFuture.supplyAsync(() -> engine.rows().query(sql));
    JsonNode running =
        await(
            "the job to run",
            () -> {
              for (JsonNode j : json(cluster.schedulerHttp() + "/api/jobs").get("jobs")) {
                if (j.get("name").asText().equals(sql)
                    && j.get("state").asText().equals("RUNNING")) {
                  return j;
                }
              }
              return null;
            });
    String id = running.get("id").asText();
    HttpResponse<String> cancel = send("DELETE", cluster.schedulerHttp() + "/api/jobs/" + id);
    assertThat(cancel.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(cancel.body()).get("cancelled").asBoolean()).isTrue();

    try {
      query.get(60, TimeUnit.SECONDS);
      throw new AssertionError("the cancelled query returned a result");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(QueryCancelledException.class);
    }
    assertThat(
            json(cluster.schedulerHttp() + "/api/jobs/" + id).get("summary").get("state").asText())
        .isEqualTo("CANCELLED");
    // Executors stop its tasks and drop its data: no task runs, no Arrow memory is held.
    for (String executor : executorUrls()) {
      java.util.concurrent.atomic.AtomicReference<String> last =
          new java.util.concurrent.atomic.AtomicReference<>();
      await(
          () -> executor + " to free its memory; last seen: " + last.get(),
          () -> {
            PrometheusText m = metrics(executor);
            last.set(
                "allocated="
                    + m.value("quiver_memory_allocated_bytes")
                    + " running="
                    + m.value("quiver_executor_tasks_running")
                    + " queued="
                    + m.value("quiver_executor_tasks_queued")
                    + " shuffle="
                    + m.value("quiver_shuffle_stored_bytes", "medium", "memory"));
            return m.value("quiver_memory_allocated_bytes") == 0
                    && m.value("quiver_executor_tasks_running") == 0
                    && m.value("quiver_shuffle_stored_bytes", "medium", "memory") == 0
                ? m
                : null;
          });
    }
    PrometheusText after = metrics(cluster.schedulerHttp());
    assertThat(delta(after, before, "quiver_jobs_finished_total", "state", "cancelled"))
        .isEqualTo(1);
    assertThat(after.value("quiver_tasks_running")).isZero();

    HttpResponse<String> again = send("DELETE", cluster.schedulerHttp() + "/api/jobs/" + id);
    assertThat(JSON.readTree(again.body()).get("cancelled").asBoolean()).isFalse();
    assertThat(send("DELETE", cluster.schedulerHttp() + "/api/jobs/job-0-nope").statusCode())
        .isEqualTo(404);
    assertThat(send("POST", cluster.schedulerHttp() + "/api/jobs").statusCode()).isEqualTo(405);
    assertThat(get(cluster.schedulerHttp() + "/api/nothing").statusCode()).isEqualTo(404);
  }

  // ------------------------------------------------------------------------------------------

  private List<String> executorUrls() throws IOException, InterruptedException {
    List<String> urls = new ArrayList<>();
    for (JsonNode e : json(cluster.schedulerHttp() + "/api/executors").get("executors")) {
      urls.add("http://" + e.get("host").asText() + ":" + e.get("httpPort").asInt());
    }
    urls.sort(null);
    return urls;
  }

  private static double delta(
      PrometheusText now, PrometheusText before, String name, String... labels) {
    return now.value(name, labels) - before.value(name, labels);
  }

  private PrometheusText metrics(String base) throws IOException, InterruptedException {
    HttpResponse<String> r = get(base + "/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    return PrometheusText.parse(r.body());
  }

  private JsonNode json(String url) throws IOException, InterruptedException {
    HttpResponse<String> r = get(url);
    assertThat(r.statusCode()).as(url + ": " + r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    return JSON.readTree(r.body());
  }

  private Document page(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = get(cluster.schedulerHttp() + path);
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    return Jsoup.parse(r.body());
  }

  private HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return send("GET", url);
  }

  private HttpResponse<String> send(String method, String url)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(CALL)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @FunctionalInterface
  private interface Probe<T> {
    T poll() throws Exception;
  }

  private static <T> T await(String what, Probe<T> probe) throws Exception {
    return await(() -> what, probe);
  }

  private static <T> T await(java.util.function.Supplier<String> what, Probe<T> probe)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      T value = probe.poll();
      if (value != null) {
        return value;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what.get());
      }
      Thread.sleep(50);
    }
  }
}
