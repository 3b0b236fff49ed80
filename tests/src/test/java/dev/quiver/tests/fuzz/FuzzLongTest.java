package dev.quiver.tests.fuzz;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Long runs of the random query generator (tagged slow). System properties: {@code fuzz.seed}
 * (default: the time), {@code fuzz.queries} (default 20000 in process, 2000 on the cluster), {@code
 * fuzz.first} (first query index, default 0), {@code fuzz.only} (a comma-separated list of query
 * indices to run instead, e.g. a previous run's findings) and {@code fuzz.minutes} (time bound,
 * default 600). Each finding prints the line that reruns just its query, e.g.
 *
 * <pre>
 * mvn -B -ntp -pl tests -am verify -Djacoco.skip=true -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dtest=FuzzLongTest#singleNode -Dexcluded.test.groups= -Dtests.fork.timeout=0 \
 *   -Dfuzz.seed=1 -Dfuzz.queries=100000
 * </pre>
 */
@Tag("slow")
class FuzzLongTest {
  @Test
  void singleNode() {
    long seed = FuzzRuns.property("fuzz.seed", System.currentTimeMillis());
    System.out.println("fuzz seed " + seed);
    FuzzRuns.runAndCheck(
        Fuzzer.againstDuckDb(seed, getClass().getSimpleName() + "#singleNode"),
        "single",
        seed,
        (int) FuzzRuns.property("fuzz.first", 0L),
        (int) FuzzRuns.property("fuzz.queries", 20_000L),
        FuzzRuns.property("fuzz.minutes", 600L));
  }

  @Test
  void cluster() {
    long seed = FuzzRuns.property("fuzz.seed", System.currentTimeMillis());
    System.out.println("fuzz seed " + seed);
    FuzzRuns.runAndCheck(
        Fuzzer.againstCluster(seed, 2, getClass().getSimpleName() + "#cluster"),
        "cluster",
        seed,
        (int) FuzzRuns.property("fuzz.first", 0L),
        (int) FuzzRuns.property("fuzz.queries", 2_000L),
        FuzzRuns.property("fuzz.minutes", 600L));
  }
}
