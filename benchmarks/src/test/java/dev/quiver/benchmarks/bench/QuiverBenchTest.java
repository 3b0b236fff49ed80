package dev.quiver.benchmarks.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.quiver.benchmarks.engine.Engines;
import dev.quiver.examples.cli.QuiverCli;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The bench command line's option errors: one line, before any data is generated. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuiverBenchTest {
  @TempDir Path dir;

  private final BenchCli cli = new BenchCli();
  private final StringWriter out = cli.out;
  private final StringWriter err = cli.err;

  private int run(String... args) {
    return cli.run(args);
  }

  @Test
  void unknownEngineIsAOneLineErrorBeforeAnyWork() {
    int exit = run("bench", "--engines", "quiver,nope", "--data", dir.toString(), "--sf", "0.01");
    assertThat(exit).isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString().strip())
        .doesNotContain("\n")
        .startsWith("error: Unknown engine 'nope': use one of quiver, quiver-embedded2, duckdb")
        .contains("quiver-bench bench --help");
    assertThat(dir.toFile().list()).isEmpty(); // no data was generated
  }

  @Test
  void sparkOutsideTheSparkBuildNamesTheProfile() {
    assumeFalse(Engines.names().contains(Engines.SPARK), "this build has the spark profile");
    int exit = run("bench", "--engines", "quiver,spark", "--data", dir.toString(), "--sf", "0.01");
    assertThat(exit).isNotZero();
    assertThat(err.toString().strip())
        .doesNotContain("\n")
        .startsWith("error: Engine 'spark' is not in this build")
        .contains("-Pspark")
        .contains("quiver-bench-spark.sh");
    assertThat(dir.toFile().list()).isEmpty();
  }

  @Test
  void badRunsIsAUsageError() {
    int exit = run("bench", "--runs", "0", "--data", dir.toString());
    assertThat(exit).isEqualTo(QuiverCli.EXIT_USAGE);
    assertThat(err.toString()).contains("--runs must be at least 1");
    assertThat(dir.toFile().list()).isEmpty();
  }

  @Test
  void withoutACommandItPrintsUsage() {
    assertThat(run()).isZero();
    assertThat(out.toString()).contains("quiver-bench").contains("bench");
  }
}
