package dev.quiver.tests.fuzz;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fixed-seed run of the random query generator: DuckDB against Quiver in process (with TLP
 * checks), and Quiver in process against an embedded cluster of 2 executors. {@link FuzzLongTest}
 * runs more queries and other seeds.
 *
 * <p>Runs in the default suite: 600 queries in process and 200 on the cluster (about two minutes).
 * Valid queries that Calcite's decorrelator cannot plan are counted, not failed, up to a bound (see
 * {@link FuzzRuns}).
 */
class FuzzTest {
  static final long SEED = 20_260_312L;

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void generatedQueriesAgreeWithDuckDb() {
    FuzzRuns.runAndCheck(
        Fuzzer.againstDuckDb(SEED, FuzzLongTest.class.getSimpleName() + "#singleNode"),
        "single",
        SEED,
        0,
        600,
        8);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void generatedQueriesAgreeOnAnEmbeddedCluster() {
    FuzzRuns.runAndCheck(
        Fuzzer.againstCluster(SEED, 2, FuzzLongTest.class.getSimpleName() + "#cluster"),
        "cluster",
        SEED,
        0,
        200,
        8);
  }
}
