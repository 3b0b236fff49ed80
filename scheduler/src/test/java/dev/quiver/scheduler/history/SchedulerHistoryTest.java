package dev.quiver.scheduler.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.transport.InProcessTransport;
import dev.quiver.scheduler.SchedulerServer;
import dev.quiver.scheduler.config.History;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scheduler server in this process with a state folder: its finished jobs are in the jobs API of
 * the next server on the same folder, and an unusable database leaves it running with the in-memory
 * history. Jobs fail for want of an executor, which is quick and ends them.
 */
@Timeout(60)
class SchedulerHistoryTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private SchedulerServer start(Path stateDir) throws Exception {
    return SchedulerServer.start(
        SchedulerConfig.builder()
            .port(0)
            .httpPort(0)
            .noExecutorTimeout(Duration.ofMillis(200))
            .history(History.DEFAULT.withStateDir(stateDir))
            .build(),
        new InProcessTransport());
  }

  private static String failedJob(SchedulerServer server, String sql) throws Exception {
    String id =
        server
            .jobs()
            .submitJob(
                JobSpec.newBuilder()
                    .setName(sql)
                    .setFinalStageId(1)
                    .addStages(
                        StageSpec.newBuilder()
                            .setStageId(1)
                            .setTaskCount(1)
                            .setOutputPartitions(1)
                            .setPlan(ByteString.copyFromUtf8("plan")))
                    .build(),
                "",
                "ann")
            .jobId();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!server.jobs().status(id).getState().name().equals("JOB_STATE_FAILED")) {
      assertThat(System.nanoTime()).as("job " + id + " fails").isLessThan(deadline);
      Thread.sleep(20);
    }
    return id;
  }

  private static JsonNode api(SchedulerServer server, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  @Test
  void theNextSchedulerOnTheSameFolderListsTheJobsOfThePrevious() throws Exception {
    Path state = dir.resolve("state");
    String first;
    String second;
    JsonNode before;
    try (SchedulerServer server = start(state)) {
      first = failedJob(server, "SELECT 1");
      second = failedJob(server, "SELECT 2");
      before = api(server, "/api/jobs/" + first).get("summary");
    }
    try (SchedulerServer server = start(state)) {
      List<JobSummary> jobs = server.jobs().jobs();
      assertThat(jobs).extracting(JobSummary::id).containsExactly(second, first);
      assertThat(jobs).allMatch(JobSummary::fromHistory);
      JsonNode after = api(server, "/api/jobs/" + first).get("summary");
      assertThat(after.get("name").asText()).isEqualTo("SELECT 1");
      assertThat(after.get("user").asText()).isEqualTo("ann");
      assertThat(after.get("state").asText()).isEqualTo("FAILED");
      assertThat(after.get("error").asText())
          .contains("waited")
          .isEqualTo(before.get("error").asText());
      assertThat(after.get("errorType")).isEqualTo(before.get("errorType"));
      assertThat(after.get("finishedAtMillis")).isEqualTo(before.get("finishedAtMillis"));
      assertThat(api(server, "/api/jobs").get("jobs")).hasSize(2);
    }
  }

  @Test
  void aCorruptDatabaseLeavesTheSchedulerRunningWithTheInMemoryHistory() throws Exception {
    Path state = Files.createDirectories(dir.resolve("state"));
    Files.writeString(state.resolve("history.mv.db"), "garbage ".repeat(1000));
    try (SchedulerServer server = start(state)) {
      String id = failedJob(server, "SELECT 1");
      assertThat(api(server, "/api/jobs").get("jobs").get(0).get("id").asText()).isEqualTo(id);
    }
    // Nothing was kept on disk: the next scheduler has no history, and the file is untouched.
    try (SchedulerServer server = start(state)) {
      assertThat(server.jobs().jobs()).isEmpty();
    }
    assertThat(Files.readString(state.resolve("history.mv.db"))).startsWith("garbage");
  }
}
