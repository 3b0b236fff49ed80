package dev.quiver.binding.physical.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConjunctOrderTest {

  /**
   * Feeds {@code batches} batches of 1000 rows through conjuncts of the given cost and keep rate.
   */
  private static void run(ConjunctOrder order, long[] nanosPerRow, double[] keeps, int batches) {
    for (int b = 0; b < batches; b++) {
      int rows = 1000;
      for (int c : order.sequence()) {
        int out = (int) Math.round(rows * keeps[c]);
        order.record(c, rows, out, rows * nanosPerRow[c]);
        rows = out;
      }
      order.batchDone();
    }
  }

  @Test
  void startsInTheGivenOrderAndMovesCheapSelectiveConjunctsFirst() {
    ConjunctOrder order = new ConjunctOrder(4);
    assertThat(order.sequence()).containsExactly(0, 1, 2, 3);
    // 0 keeps every row (drops nothing), 1 is cheap but keeps 60%, 2 is 3x dearer but keeps 25%,
    // 3 is very dear and keeps 30%.
    long[] cost = {2, 2, 6, 40};
    double[] keep = {1.0, 0.6, 0.25, 0.3};
    run(order, cost, keep, 3);
    assertThat(order.sequence()).containsExactly(0, 1, 2, 3); // no review before 4 batches
    run(order, cost, keep, 1);
    // ranks: 0 -> 2 / 0 (last), 1 -> 2 / 0.4 = 5, 2 -> 6 / 0.75 = 8, 3 -> 40 / 0.7 = 57
    assertThat(order.sequence()).containsExactly(1, 2, 3, 0);
  }

  @Test
  void followsTheDataWhenSelectivitiesChange() {
    ConjunctOrder order = new ConjunctOrder(2);
    run(order, new long[] {1, 1}, new double[] {0.9, 0.1}, 4);
    assertThat(order.sequence()).containsExactly(1, 0);
    // Later data: conjunct 1 keeps everything, conjunct 0 drops nearly everything.
    run(order, new long[] {1, 1}, new double[] {0.01, 1.0}, 200);
    assertThat(order.sequence()).containsExactly(0, 1);
  }

  @Test
  void aConjunctNoRowHasReachedKeepsItsPlaceAfterTheMeasuredOnes() {
    ConjunctOrder order = new ConjunctOrder(3);
    // Conjunct 0 drops every row: 1 and 2 are never evaluated.
    run(order, new long[] {1, 1, 1}, new double[] {0.0, 0.5, 0.5}, 4);
    assertThat(order.sequence()).containsExactly(0, 1, 2);
  }
}
