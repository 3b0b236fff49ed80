package dev.quiver.tests.fuzz;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fixed-seed run of the random query generator: DuckDB against Quiver in process (with TLP
 * checks), and Quiver in process against an embedded cluster of 2 executors. {@link FuzzLongTest}
 * runs more queries and other seeds.
 *
 * <p>Tagged slow until its findings are fixed: this seed still finds wrong results (correlated
 * NOT EXISTS over outer-joined rows) and internal failures of Calcite's decorrelator (issue 13);
 * it joins the default suite when it passes.
 */
@Tag("slow")
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
        2000,
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
