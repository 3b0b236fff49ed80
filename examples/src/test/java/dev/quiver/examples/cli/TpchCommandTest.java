package dev.quiver.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.examples.tpch.TpchData;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /**
   * {@code --table-format iceberg} writes the Iceberg tables once (into {@code DATA/iceberg}, or
   * into the catalog of {@code --catalog}) and answers every query with the row count of the
   * Parquet run.
   */
  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void icebergTablesAreWrittenOnceAndAnswerAsParquetDoes() {
    String parquet = run("tpch", "--sf", "0.001", "--data", dir.toString(), "--partitions", "2");
    String iceberg =
        run(
            "tpch",
            "--sf",
            "0.001",
            "--data",
            dir.toString(),
            "--partitions",
            "2",
            "--table-format",
            "iceberg");
    assertThat(iceberg).contains("loading tpch.tpch_sf0_001.lineitem");
    assertThat(dir.resolve("iceberg/tpch_sf0_001/lineitem/metadata")).isDirectory();
    assertThat(rowCounts(iceberg)).isEqualTo(rowCounts(parquet)).hasSize(22);

    String again =
        run("tpch", "--sf", "0.001", "--data", dir.toString(), "--table-format", "iceberg");
    assertThat(again).doesNotContain("loading");
    assertThat(rowCounts(again)).isEqualTo(rowCounts(parquet));

    Path lake = dir.resolve("lake");
    String catalog =
        run(
            "tpch",
            "--sf",
            "0.001",
            "--data",
            dir.toString(),
            "--queries",
            "3,18",
            "--table-format",
            "iceberg",
            "--catalog",
            "lake=iceberg:" + lake);
    assertThat(catalog).contains("loading lake.tpch_sf0_001.orders");
    assertThat(lake.resolve("tpch_sf0_001/orders/metadata")).isDirectory();
    assertThat(rowCounts(catalog))
        .containsExactly(rowCounts(parquet).get(2), rowCounts(parquet).get(17));
  }

  private static String run(String... args) {
    StringWriter out = new StringWriter();
    CommandLine cli = QuiverCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(new StringWriter(), true));
    int exit = cli.execute(args);
    assertThat(exit).as(out.toString()).isZero();
    return out.toString();
  }

  /** Each query's line without its time: "q01 4 rows". */
  private static List<String> rowCounts(String text) {
    Matcher m = Pattern.compile("(?m)^(q\\d\\d) +(\\d+) rows").matcher(text);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1) + " " + m.group(2));
    }
    return out;
  }
}
