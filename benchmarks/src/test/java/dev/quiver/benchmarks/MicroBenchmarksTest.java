package dev.quiver.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs each JMH benchmark's body once, outside JMH: a benchmark that no longer runs against the
 * engine's current code (the shuffle one once fetched a partition the store refused to serve) fails
 * here instead of in someone's measurement.
 */
@Timeout(120)
class MicroBenchmarksTest {

  @Test
  void everyShuffleBenchmarkFetchesTheWholePartition() throws Exception {
    for (String compression : new String[] {"none", "lz4", "zstd"}) {
      ShuffleBenchmarks b = new ShuffleBenchmarks();
      b.compression = compression;
      b.rows = 20_000;
      b.setUp();
      try {
        assertThat(b.fetchPartition()).as(compression).isEqualTo(20_000);
        assertThat(b.fetchPartition()).as(compression + ", again").isEqualTo(20_000);
      } finally {
        b.tearDown();
      }
    }
  }

  @Test
  void everyOperatorBenchmarkRuns() {
    OperatorBenchmarks b = new OperatorBenchmarks();
    b.rows = 50_000;
    b.setUp();
    try {
      assertThat(b.filter()).isPositive();
      assertThat(b.projectionDouble()).isPositive();
      assertThat(b.projectionDecimal()).isPositive();
      assertThat(b.hashAggregate()).isPositive();
      assertThat(b.hashJoinBuildAndProbe()).isPositive();
      assertThat(b.sort()).isPositive();
    } finally {
      b.tearDown();
    }
  }

  @Test
  void everyAggregateBenchmarkGroupsEveryKey() {
    for (int rowsPerKey : new int[] {1, 4}) {
      AggregateBenchmarks b = new AggregateBenchmarks();
      b.rows = 40_000;
      b.rowsPerKey = rowsPerKey;
      b.probeRows = 1_000; // gives up on the key per row
      b.setUp();
      try {
        assertThat(b.singleByOrderKey()).isEqualTo(40_000 / rowsPerKey);
        assertThat(b.partialThenFinalByOrderKey()).isEqualTo(40_000 / rowsPerKey);
      } finally {
        b.tearDown();
      }
    }
  }
}
