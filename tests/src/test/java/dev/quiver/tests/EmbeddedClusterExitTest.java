package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.examples.tpch.TpchData;
import dev.quiver.tests.apps.EmbeddedClusterApp;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Code that runs unchanged on an embedded cluster exits like it does on the plain binding, and logs
 * no more than the cluster's start and stop. Regression: after closing its session, an
 * application's JVM stayed up about a minute after main returned, held by the Flight server's idle
 * non-daemon threads, unless it also closed {@code ClusterLifecycle}.
 */
@Timeout(300)
class EmbeddedClusterExitTest {
  @Test
  void theJvmExitsAtOnceWhenMainReturns() throws Exception {
    Path lineitem = TpchData.tableDirectory(TpchFixture.data(0.01), "lineitem");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(EmbeddedClusterApp.class.getName());
    cmd.add(lineitem.toString());
    Process app = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    StringBuilder output = new StringBuilder();
    long returnedAt = 0;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(app.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        output.append(line).append('\n');
        if (line.equals("main returned")) {
          returnedAt = System.nanoTime();
        }
      }
    } finally {
      if (!app.waitFor(240, TimeUnit.SECONDS)) {
        app.destroyForcibly();
      }
    }
    assertThat(returnedAt).as("the app ran to the end:\n%s", output).isPositive();
    long exitMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - returnedAt);
    assertThat(app.exitValue()).as(output.toString()).isZero();
    // Idle non-daemon pool threads live 60 s; a prompt exit takes well under that.
    assertThat(exitMillis)
        .as("ms from main returning to the JVM exiting\n%s", output)
        .isLessThan(15_000);
    assertThat(output.toString()).contains("rows ");
    // The application's log (SLF4J's simple logger at its default INFO) gets the cluster's start
    // and stop: nothing per query, task or executor, and no warning when the application closes
    // it (it used to get about 20 INFO lines for these queries, and "executor ... is gone (its
    // connection broke and reconnecting was refused)" on closing).
    // Quiver's lines at INFO; no library's warning either (Arrow's own INFO lines are the
    // application's to configure).
    List<String> logged =
        output
            .toString()
            .lines()
            .filter(
                l ->
                    l.matches("\\[[^\\]]+\\] (TRACE|DEBUG|INFO) dev\\.quiver\\..*")
                        || l.matches("\\[[^\\]]+\\] (WARN|ERROR) .*")
                        || l.matches("(WARNING|SEVERE): .*"))
            .toList();
    assertThat(logged)
        .as("log lines of the application\n%s", output)
        .hasSize(2)
        .allMatch(l -> l.contains(" INFO dev.quiver.distributed.cluster.EmbeddedCluster - "));
    assertThat(logged.get(0)).contains("embedded cluster started: scheduler 127.0.0.1:");
    assertThat(logged.get(1)).contains("embedded cluster stopped");
  }
}
