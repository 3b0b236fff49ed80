package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.physical.expr.Vectors;
import org.apache.arrow.vector.FieldVector;

/**
 * The per-group state every accumulator keeps: arrays indexed by group id, grown by doubling as
 * groups appear, read back in the order of an emitted batch's group ids.
 */
final class GroupStates {
  private GroupStates() {}

  /** Capacity for at least {@code needed} groups, doubling from {@code current} (16 or more). */
  static int grow(int current, int needed) {
    int c = Math.max(current, 16);
    while (c < needed) {
      c *= 2;
    }
    return c;
  }

  /** The values of groups {@code gids[0..n)} in that order. */
  static long[] gather(long[] perGroup, int[] gids, int n) {
    long[] v = new long[n];
    for (int i = 0; i < n; i++) {
      v[i] = perGroup[gids[i]];
    }
    return v;
  }

  /** Validity of every row of {@code v} as a mask, or null when all rows are valid. */
  static boolean[] validMask(FieldVector v, int rows) {
    boolean[] nulls = new boolean[Math.max(rows, 1)];
    if (!Vectors.nulls(v, rows, nulls)) {
      return null;
    }
    for (int i = 0; i < rows; i++) {
      nulls[i] = !nulls[i];
    }
    return nulls;
  }
}
