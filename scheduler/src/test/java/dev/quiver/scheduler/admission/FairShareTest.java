package dev.quiver.scheduler.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.scheduler.admission.FairShare.Demand;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FairShareTest {

  /** Hands out {@code slots} slots from nothing running; returns how many each group got. */
  private static int[] handOut(int slots, double... weights) {
    int[] running = new int[weights.length];
    for (int s = 0; s < slots; s++) {
      List<Demand> demands = new ArrayList<>();
      for (int g = 0; g < weights.length; g++) {
        demands.add(new Demand(weights[g], running[g], g));
      }
      running[FairShare.next(demands)]++;
    }
    return running;
  }

  @Test
  void slotsSplitInTheRatioOfTheWeights() {
    assertThat(handOut(8, 1, 3)).containsExactly(2, 6);
    assertThat(handOut(12, 1, 1, 2)).containsExactly(3, 3, 6);
    assertThat(handOut(7, 1, 1)).containsExactly(4, 3);
  }

  @Test
  void aGroupThatStartsLateGetsTheFreedSlotsUntilItHasItsShare() {
    // Group 0 (submitted first) holds all 4 slots; group 1 arrives with the same weight.
    assertThat(FairShare.next(List.of(new Demand(1, 3, 0), new Demand(1, 0, 5)))).isEqualTo(1);
    assertThat(FairShare.next(List.of(new Demand(1, 2, 0), new Demand(1, 1, 5)))).isEqualTo(1);
    // At equal shares the earlier job wins: first come, first served.
    assertThat(FairShare.next(List.of(new Demand(1, 2, 0), new Demand(1, 2, 5)))).isZero();
    assertThat(FairShare.next(List.of(new Demand(1, 2, 9), new Demand(1, 2, 5)))).isEqualTo(1);
  }

  @Test
  void nobodyAskingMeansNoChoice() {
    assertThat(FairShare.next(List.of())).isEqualTo(-1);
  }
}
