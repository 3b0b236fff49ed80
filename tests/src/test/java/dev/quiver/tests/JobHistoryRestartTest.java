package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.settings.SessionConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The job history on a scheduler and an executor process started from the jars: jobs that ran
 * before the scheduler was killed (SIGKILL) and restarted with the same {@code --state-dir} are
 * still in the jobs API and web UI afterwards, with their SQL, state, user, rows and error; the
 * secret a session set reaches neither the API nor the database file.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class JobHistoryRestartTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CALL = Duration.ofSeconds(20);
  private static final String SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCY";

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CALL).build();
  private Path logs;
  private ProcessCluster cluster;
  private ClusterFixture.ClusterRows engine;

  @AfterEach
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
  void finishedJobsAreInTheJobsApiAfterTheSchedulerIsKilledAndRestarted() throws Exception {
    Path data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    logs = Files.createTempDirectory("quiver-history-");
    Path state = logs.resolve("state");
    cluster =
        ProcessCluster.start(
            logs,
            1,
            ProcessCluster.Options.of(2)
                .withSchedulerArgs("--state-dir", state.toString(), "--history-max-jobs", "50")
                .withHttp());
    engine = ClusterFixture.remote(cluster.target(), data, new SessionConfig());

    String ok = "SELECT n_name FROM nation WHERE n_regionkey = 1";
    assertThat(engine.rows().query(ok).rowCount()).isEqualTo(5);
    String failing = "SELECT CAST(n_comment AS INTEGER) AS c FROM nation";
    assertThatThrownBy(() -> engine.rows().query(failing)).isInstanceOf(RuntimeException.class);
    engine.rows().session().sql("SET quiver.s3.secret_access_key = '" + SECRET + "'");
    String withSecret = "SELECT count(*) AS n FROM region WHERE r_comment <> '" + SECRET + "'";
    assertThat(engine.rows().query(withSecret).rowCount()).isEqualTo(1);
    String shownSecretJob = withSecret.replace(SECRET, "***");

    Map<String, JsonNode> before = jobsByName();
    assertThat(before).containsKeys(ok, failing, shownSecretJob);
    assertThat(before.keySet()).noneMatch(name -> name.contains(SECRET));
    assertThat(before.get(ok).get("state").asText()).isEqualTo("SUCCEEDED");
    assertThat(before.get(ok).get("resultRows").asLong()).isEqualTo(5);
    assertThat(before.get(failing).get("state").asText()).isEqualTo("FAILED");
    assertThat(before.get(failing).get("error").asText()).isNotBlank();
    String user = System.getProperty("user.name");
    assertThat(before.get(ok).get("user").asText()).isEqualTo(user);

    cluster.restartScheduler();
    cluster.awaitExecutors(1);

    Map<String, JsonNode> after = jobsByName();
    for (String name : new String[] {ok, failing, shownSecretJob}) {
      JsonNode was = before.get(name);
      JsonNode now = after.get(name);
      assertThat(now).as("job '" + name + "' after the restart").isNotNull();
      assertThat(now.get("fromHistory").asBoolean()).isTrue();
      for (String field :
          new String[] {
            "id",
            "user",
            "state",
            "resourceGroup",
            "submittedAtMillis",
            "startedAtMillis",
            "finishedAtMillis",
            "stagesTotal",
            "tasksTotal",
            "tasksDone",
            "rows",
            "resultRows",
            "bytes",
            "error",
            "errorType"
          }) {
        assertThat(now.get(field)).as(name + ": " + field).isEqualTo(was.get(field));
      }
    }
    assertThat(after.get(ok).get("bytes").asLong()).isPositive();
    assertThat(after.get(failing).get("errorType").asText()).isNotBlank();

    // One job in detail: its stages and graph, without its tasks.
    String id = after.get(ok).get("id").asText();
    JsonNode detail = json("/api/jobs/" + id);
    assertThat(detail.get("summary").get("name").asText()).isEqualTo(ok);
    assertThat(detail.get("stages")).hasSize(after.get(ok).get("stagesTotal").asInt());
    assertThat(detail.get("dot").asText()).startsWith("digraph stages");
    for (JsonNode stage : detail.get("stages")) {
      assertThat(stage.get("planText").asText()).isNotEmpty();
      assertThat(stage.get("tasks")).isEmpty();
    }

    // The web UI marks them as from the history.
    Document jobs = page("/");
    Element row = jobs.selectFirst("table.jobs a[href=/jobs/" + id + "]").closest("tr");
    assertThat(row.select(".hist").text()).isEqualTo("history");
    assertThat(row.select(".badge").text()).isEqualTo("SUCCEEDED");
    Document job = page("/jobs/" + id);
    assertThat(job.selectFirst("pre.query").wholeText()).isEqualTo(ok);
    assertThat(job.selectFirst(".history-note").text()).contains("without their tasks");
    // Each stage with its plan and operators, and no empty task table.
    assertThat(job.select("section.stage")).hasSize(detail.get("stages").size());
    assertThat(job.select("section.stage .no-tasks")).hasSize(detail.get("stages").size());
    assertThat(job.select("table.tasks")).isEmpty();
    String failedId = after.get(failing).get("id").asText();
    assertThat(page("/jobs/" + failedId).selectFirst("p.error").text())
        .contains(before.get(failing).get("error").asText());

    // A new job is listed first, as running jobs are; the history follows.
    assertThat(engine.rows().query(ok).rowCount()).isEqualTo(5);
    JsonNode listed = json("/api/jobs").get("jobs");
    assertThat(listed.get(0).get("name").asText()).isEqualTo(ok);
    assertThat(listed.get(0).get("fromHistory").asBoolean()).isFalse();
    assertThat(listed.get(0).get("id").asText()).isNotEqualTo(id);

    // The secret is in no answer and not in the database file.
    assertThat(get("/api/jobs").body()).doesNotContain(SECRET);
    for (JsonNode j : listed) {
      assertThat(get("/api/jobs/" + j.get("id").asText()).body()).doesNotContain(SECRET);
    }
    String file = Files.readString(state.resolve("history.mv.db"), StandardCharsets.ISO_8859_1);
    assertThat(file).contains(id).doesNotContain(SECRET);

    assertThat(get("/api/jobs?limit=0").statusCode()).isEqualTo(400);
    assertThat(json("/api/jobs?offset=1&limit=1").get("jobs")).hasSize(1);
  }

  /** The jobs API's jobs by SQL text (the newest of each). */
  private Map<String, JsonNode> jobsByName() throws Exception {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    for (JsonNode j : json("/api/jobs").get("jobs")) {
      out.putIfAbsent(j.get("name").asText(), j);
    }
    return out;
  }

  private JsonNode json(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private Document page(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    return Jsoup.parse(r.body());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(cluster.schedulerHttp() + path)).timeout(CALL).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
