package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.DistributedDataFrame;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.decorators.JobProgress;
import dev.quiver.distributed.ClusterDistribution;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.cluster.EmbeddedCluster;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A distributed frame's job progress, polled from another thread while the query runs on an
 * embedded cluster that serves HTTP, and the job as the scheduler's API shows it (named by its
 * SQL).
 */
@Timeout(180)
class JobProgressTest {
  @Test
  void aDistributedFrameReportsItsJobsProgressWhileItRuns() throws Exception {
    Path data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    EmbeddedCluster cluster = EmbeddedCluster.sharingCores(2).withHttp(0);
    try (ClusterLifecycle lifecycle = ClusterLifecycle.embedded(cluster);
        SessionContext ctx =
            new DistributedSessionContext(
                new SessionConfig(), new ClusterDistribution(lifecycle.start()))) {
      for (String table : TpchData.TABLES) {
        ctx.registerParquet(table, TpchData.tableDirectory(data, table).toString());
      }
      String sql = TpchQueries.get(9).sql();
      DataFrame df = ctx.sql(sql);
      assertThat(DistributedDataFrame.progressOf(df)).isEmpty();

      List<JobProgress> seen = new CopyOnWriteArrayList<>();
      AtomicBoolean running = new AtomicBoolean(true);
      Thread poller =
          new Thread(
              () -> {
                while (running.get()) {
                  DistributedDataFrame.progressOf(df).ifPresent(seen::add);
                  try {
                    Thread.sleep(5);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      poller.start();
      List<VectorSchemaRoot> batches = df.collect();
      running.set(false);
      poller.join(10_000);
      batches.forEach(VectorSchemaRoot::close);

      JobProgress last = DistributedDataFrame.progressOf(df).orElseThrow();
      assertThat(last.state()).isEqualTo("SUCCEEDED");
      assertThat(last.finished()).isTrue();
      assertThat(last.tasksTotal()).isPositive();
      assertThat(last.tasksDone()).isEqualTo(last.tasksTotal());
      assertThat(last.stagesDone()).isEqualTo(last.stagesTotal()).isGreaterThanOrEqualTo(2);
      assertThat(last.rows()).isPositive();
      assertThat(last.tasksRunning()).isZero();
      assertThat(seen).isNotEmpty();
      for (int i = 1; i < seen.size(); i++) {
        if (seen.get(i).jobId().equals(seen.get(i - 1).jobId())) {
          assertThat(seen.get(i).tasksDone())
              .as("tasks done never go back")
              .isGreaterThanOrEqualTo(seen.get(i - 1).tasksDone());
        }
      }

      // The scheduler names the job by its SQL; the API agrees with the client's progress.
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:"
                                  + cluster.schedulerHttpPort()
                                  + "/api/jobs/"
                                  + last.jobId()))
                      .timeout(Duration.ofSeconds(20))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      JsonNode job = new ObjectMapper().readTree(response.body()).get("summary");
      assertThat(job.get("name").asText()).isEqualTo(sql);
      assertThat(job.get("tasksTotal").asInt()).isEqualTo(last.tasksTotal());
      assertThat(job.get("rows").asLong()).isEqualTo(last.rows());

      // A frame derived with DataFrame calls is named by its plan; a new run resets progress.
      DataFrame derived = df.limit(3);
      assertThat(DistributedDataFrame.progressOf(derived)).isEmpty();
      derived.collect().forEach(VectorSchemaRoot::close);
      Optional<JobProgress> again = DistributedDataFrame.progressOf(derived);
      assertThat(again).isPresent();
      assertThat(again.get().jobId()).isNotEqualTo(last.jobId());
    }
  }
}
