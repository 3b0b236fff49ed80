package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar benchmarks/target/quiver-bench.jar bench --sf 0.01 --engines
 * quiver,quiver-embedded2,duckdb --runs 1} end to end, as a process (the embedded cluster's
 * scheduler and 2 executors run inside it).
 */
class BenchCommandTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 420, unit = TimeUnit.SECONDS)
  void benchRunsEveryQueryOnEveryEngineAndPrintsTheTotalRatios() throws Exception {
    Path data = TpchFixture.data(0.01);
    // The engine under test is Quiver unless -Dquiver.tests.actual=duckdb checks the harness alone.
    String engine =
        System.getProperty(Differential.ACTUAL_ENGINE, "quiver").trim().toLowerCase(Locale.ROOT);
    // The harness check (DuckDB on both sides) has no cluster to compare.
    boolean quiver = engine.equals("quiver");
    String engines = quiver ? "quiver,quiver-embedded2,duckdb" : engine + ",duckdb";
    Path stdout = dir.resolve("out.txt");
    Path stderr = dir.resolve("err.txt");
    int exit =
        runBench(
            List.of(
                "--sf",
                "0.01",
                "--data",
                data.toString(),
                "--engines",
                engines,
                "--runs",
                "1",
                "--threads",
                "2"),
            stdout,
            stderr,
            400);

    String text = Files.readString(stdout, StandardCharsets.UTF_8);
    // stderr carries the process's log (e.g. a WARN from an executor stopping with the embedded
    // cluster), but no error and no stack trace.
    assertThat(Files.readString(stderr, StandardCharsets.UTF_8))
        .as(text)
        .doesNotContainPattern("(?m)^error:")
        .doesNotContain("ERROR")
        .doesNotContain("Exception in thread");
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

  /**
   * {@code bench --table-formats parquet,iceberg --interleave}: the Iceberg tables are written into
   * {@code DATA/iceberg}, every query runs over both formats with the same row counts, and the run
   * ends with the Iceberg/Parquet total ratio.
   */
  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void benchTimesIcebergAgainstParquetInterleaved() throws Exception {
    Path data = dir.resolve("tpch");
    Path stdout = dir.resolve("iceberg-out.txt");
    int exit =
        runBench(
            List.of(
                "--sf",
                "0.01",
                "--data",
                data.toString(),
                "--engines",
                "quiver",
                "--table-formats",
                "parquet,iceberg",
                "--interleave",
                "--runs",
                "1",
                "--threads",
                "2"),
            stdout,
            dir.resolve("iceberg-err.txt"),
            280);
    String text = Files.readString(stdout, StandardCharsets.UTF_8);
    assertThat(exit).as(text).isZero();
    assertThat(text)
        .contains("loading tpch.tpch_sf0_01.lineitem")
        .contains("quiver+iceberg ms")
        .contains("q22")
        .doesNotContain("failed")
        .doesNotContain("rows differ");
    assertThat(data.resolve("iceberg/tpch_sf0_01/lineitem/metadata")).isDirectory();
    String[] lines = text.strip().split("\n");
    assertThat(lines[lines.length - 1])
        .matches("total ratio quiver\\+iceberg/quiver: \\d+\\.\\d\\d");
  }

  /**
   * Runs {@code java -Xmx2g -jar quiver-bench.jar bench ARGS} to its end within {@code seconds},
   * its output in {@code stdout} and {@code stderr}, and returns its exit code.
   */
  private static int runBench(List<String> args, Path stdout, Path stderr, long seconds)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx2g");
    cmd.add("-jar");
    cmd.add(ProcessCluster.jar("benchmarks", "quiver-bench.jar").toString());
    cmd.add("bench");
    cmd.addAll(args);
    Process process =
        new ProcessBuilder(cmd)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    try {
      assertThat(process.waitFor(seconds, TimeUnit.SECONDS)).as("bench finished in time").isTrue();
      return process.exitValue();
    } finally {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
