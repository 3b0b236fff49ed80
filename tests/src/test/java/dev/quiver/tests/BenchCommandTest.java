package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.examples.cli.QuiverCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code quiver bench --sf 0.01 --engines quiver,quiver-embedded2,duckdb --runs 1} end to end, in
 * process (the embedded cluster's scheduler and 2 executors too).
 */
class BenchCommandTest {
  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void benchRunsEveryQueryOnBothEnginesAndPrintsTheTotalRatio() {
    Path data = TpchFixture.data(0.01);
    // The engine under test is Quiver unless -Dquiver.tests.actual=duckdb checks the harness alone.
    String engine =
        System.getProperty(Differential.ACTUAL_ENGINE, "quiver").trim().toLowerCase(Locale.ROOT);
    // The harness check (DuckDB on both sides) has no cluster to compare.
    boolean quiver = engine.equals("quiver");
    String engines = quiver ? "quiver,quiver-embedded2,duckdb" : engine + ",duckdb";
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = QuiverCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));

    int exit =
        cli.execute(
            "bench",
            "--sf",
            "0.01",
            "--data",
            data.toString(),
            "--engines",
            engines,
            "--runs",
            "1",
            "--threads",
            "2");

    String text = out.toString();
    assertThat(err.toString()).isEmpty();
    assertThat(exit).as(text).isZero();
    assertThat(text).contains("q01").contains("q22").doesNotContain("failed");
    String[] lines = text.strip().split("\n");
    String ratio = ": \\d+\\.\\d\\d";
    if (quiver) {
      assertThat(lines[lines.length - 3]).matches("total +[0-9.]+ +[0-9.]+ +[0-9.]+");
      assertThat(lines[lines.length - 2]).matches("total ratio quiver/duckdb" + ratio);
      assertThat(lines[lines.length - 1]).matches("total ratio quiver-embedded2/quiver" + ratio);
    } else {
      assertThat(lines[lines.length - 1]).matches("total ratio " + engine + "/duckdb" + ratio);
    }
  }
}
