package dev.quiver.binding.physical.operator;

/**
 * The order one filter stream evaluates its conjuncts in, learnt from what they cost. Each
 * conjunct's rank is its time per row it decides divided by the fraction of those rows it drops:
 * for independent conjuncts, ascending rank is the order that minimises total time, so a cheap
 * selective test goes first and one that keeps every row goes last. The ranks are recomputed after
 * 4, 8, 16, ... batches and then every 64, so the order follows the data without churning.
 */
final class ConjunctOrder {
  private final int[] sequence;
  private final long[] rowsIn;
  private final long[] rowsOut;
  private final long[] nanos;
  private long batches;
  private long nextReview = 4;

  ConjunctOrder(int conjuncts) {
    sequence = new int[conjuncts];
    for (int c = 0; c < conjuncts; c++) {
      sequence[c] = c;
    }
    rowsIn = new long[conjuncts];
    rowsOut = new long[conjuncts];
    nanos = new long[conjuncts];
  }

  /** Conjunct indexes in evaluation order; do not modify. */
  int[] sequence() {
    return sequence;
  }

  /** Conjunct {@code c} decided {@code in} rows in {@code time} ns and kept {@code out}. */
  void record(int c, int in, int out, long time) {
    rowsIn[c] += in;
    rowsOut[c] += out;
    nanos[c] += time;
  }

  /** A batch went through; re-ranks the conjuncts when a review is due. */
  void batchDone() {
    batches++;
    if (batches < nextReview) {
      return;
    }
    nextReview = batches < 64 ? batches * 2 : batches + 64;
    double[] rank = new double[sequence.length];
    for (int c = 0; c < sequence.length; c++) {
      rank[c] = rank(c);
    }
    // Insertion sort by rank, stable: the sequence is short and nearly sorted.
    for (int i = 1; i < sequence.length; i++) {
      int c = sequence[i];
      int j = i - 1;
      while (j >= 0 && rank[sequence[j]] > rank[c]) {
        sequence[j + 1] = sequence[j];
        j--;
      }
      sequence[j + 1] = c;
    }
  }

  /** Time per row over fraction dropped; unmeasured conjuncts keep their place after measured. */
  double rank(int c) {
    if (rowsIn[c] == 0) {
      return Double.MAX_VALUE;
    }
    double perRow = (double) Math.max(nanos[c], 1) / rowsIn[c];
    double dropped = 1.0 - (double) rowsOut[c] / rowsIn[c];
    return perRow / Math.max(dropped, 1e-6);
  }
}
