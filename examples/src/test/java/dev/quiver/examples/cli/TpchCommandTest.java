package dev.quiver.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.examples.tpch.TpchData;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class TpchCommandTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void generatesDataThenPrintsEachQueryAndTheTotal() {
    StringWriter out = new StringWriter();
    CommandLine cli = QuiverCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(new StringWriter(), true));

    int exit = cli.execute("tpch", "--sf", "0.001", "--data", dir.toString(), "--partitions", "2");

    String text = out.toString();
    assertThat(exit).as(text).isZero();
    assertThat(TpchData.isComplete(dir, 0.001)).isTrue();
    assertThat(text).contains("generating TPC-H SF 0.001");
    for (int q = 1; q <= 22; q++) {
      assertThat(text).containsPattern(String.format("q%02d +\\d+ rows +\\d+\\.\\d ms", q));
    }
    assertThat(text).containsPattern("total 22 queries, 0 failed, \\d+\\.\\d ms");

    // A second run finds the data and does not regenerate it.
    StringWriter again = new StringWriter();
    cli.setOut(new PrintWriter(again, true));
    assertThat(cli.execute("tpch", "--sf", "0.001", "--data", dir.toString(), "--queries", "1,6"))
        .isZero();
    assertThat(again.toString())
        .doesNotContain("generating")
        .contains("q01")
        .contains("q06")
        .contains("total 2 queries, 0 failed");
  }
}
