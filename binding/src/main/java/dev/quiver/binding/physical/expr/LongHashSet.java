package dev.quiver.binding.physical.expr;

/** Open-addressing set of longs for IN-list probes without boxing. */
final class LongHashSet {
  private final long[] keys;
  private final boolean[] used;
  private final int mask;

  LongHashSet(long[] values) {
    int cap = Integer.highestOneBit(Math.max(4, values.length * 2 - 1)) << 1;
    keys = new long[cap];
    used = new boolean[cap];
    mask = cap - 1;
    for (long v : values) {
      int slot = slot(v);
      while (used[slot] && keys[slot] != v) {
        slot = (slot + 1) & mask;
      }
      used[slot] = true;
      keys[slot] = v;
    }
  }

  private int slot(long v) {
    long h = v * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  boolean contains(long v) {
    int slot = slot(v);
    while (used[slot]) {
      if (keys[slot] == v) {
        return true;
      }
      slot = (slot + 1) & mask;
    }
    return false;
  }
}
