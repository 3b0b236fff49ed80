package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.distributed.DistributedExtension;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.examples.tpch.TpchData;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler and executor jars log in one format (SLF4J's, on stderr) and keep library noise
 * out. Regression: an HTTP/1 request to a gRPC port logged a 25-line stack trace through
 * java.util.logging, and a client that stopped reading a result made gRPC log "Stream closed before
 * write could take place" with a 40-line Netty stack trace.
 */
@Timeout(300)
class ServerLoggingTest {
  @TempDir Path dir;

  @Test
  void foreignProtocolsAndCancelledStreamsLogNoStackTraces() throws Exception {
    Path tpch = TpchFixture.data(0.01);
    try (ProcessCluster cluster = ProcessCluster.start(dir, 1, 2, null)) {
      ExecutorStatus executor = cluster.statuses().get(0);
      String[] scheduler = cluster.target().split(":");
      speakHttp1(scheduler[0], Integer.parseInt(scheduler[1]));
      speakHttp1(executor.getInfo().getHost(), executor.getInfo().getFlightPort());

      try (DistributedExtension ext = DistributedExtension.connect(cluster.clientConfig());
          SessionContext ctx = new SessionContext().withExtensions(ext)) {
        ctx.registerParquet("lineitem", TpchData.tableDirectory(tpch, "lineitem").toString());
        // Read one batch of a large result and stop: the executor's stream is cancelled.
        for (int i = 0; i < 3; i++) {
          try (ArrowReader reader = ctx.sql("SELECT * FROM lineitem").executeStream()) {
            assertThat(reader.loadNextBatch()).isTrue();
          }
        }
        assertThat(ctx.sql("SELECT count(*) FROM lineitem").count()).isEqualTo(1);
      }
      Thread.sleep(1000);
      String executorId = cluster.executorIds().get(0);
      List<String> logs = List.of(schedulerLog(cluster), cluster.executorLog(executorId));
      for (String log : logs) {
        assertThat(log).as(log).doesNotContain("\tat ").doesNotContain("\n\tat");
        // java.util.logging's console format ("WARNING: ...", "SEVERE: ...") is gone.
        assertThat(log).as(log).doesNotContainPattern("(?m)^(WARNING|SEVERE|INFO): ");
        assertThat(log).as(log).doesNotContain("Stream closed before write");
      }
    }
  }

  private static String schedulerLog(ProcessCluster cluster) throws Exception {
    StringBuilder all = new StringBuilder();
    try (var files = Files.list(cluster.dir())) {
      for (Path p :
          files.filter(f -> f.getFileName().toString().startsWith("scheduler-")).toList()) {
        all.append(Files.readString(p));
      }
    }
    return all.toString();
  }

  /** Sends an HTTP/1.1 request to a gRPC port and reads whatever comes back. */
  private static void speakHttp1(String host, int port) throws Exception {
    try (Socket s = new Socket(host, port)) {
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      try {
        in.readAllBytes();
      } catch (java.net.SocketTimeoutException | java.net.SocketException closed) {
        // The server may just drop the connection.
      }
    }
  }
}
