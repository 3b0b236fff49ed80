package dev.quiver.scheduler.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MemorySharesTest {
  @Test
  void aGroupHoldingItsShareOfTheClusterOrMoreIsOver() {
    Map<String, Double> shares = Map.of("etl", 0.6, "adhoc", 0.4, "all", 1.0);
    assertThat(MemoryShares.over(Map.of("etl", 600L, "adhoc", 399L), shares, 1000))
        .containsExactly("etl");
    assertThat(MemoryShares.over(Map.of("etl", 599L, "adhoc", 400L), shares, 1000))
        .containsExactly("adhoc");
    assertThat(MemoryShares.over(Map.of("all", 5000L), shares, 1000))
        .as("a share of 1 is the whole cluster, which the killer guards")
        .isEmpty();
    assertThat(MemoryShares.over(Map.of("etl", 600L), shares, 0))
        .as("no executors: nothing to share")
        .isEmpty();
  }
}
