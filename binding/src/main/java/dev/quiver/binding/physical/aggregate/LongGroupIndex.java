package dev.quiver.binding.physical.aggregate;

/**
 * Open-addressing map from a long key to a group id, each key stored next to its id so that a probe
 * touches one cache line: {@link GroupTable}'s index of packed keys. Slots come from Fibonacci
 * hashing of the key itself, so growing never needs the groups' column hashes.
 */
final class LongGroupIndex {
  private static final long FIBONACCI = 0x9E3779B97F4A7C15L;

  private final int initialSlots;
  // Pairs (key, group id + 1); id 0 marks an empty slot.
  private long[] table;
  private int shift;
  private int count;

  /** An index starting at {@code initialSlots} slots (a power of two). */
  LongGroupIndex(int initialSlots) {
    this.initialSlots = initialSlots;
    reset();
  }

  /** The group of key {@code k}, or -1. */
  int find(long k) {
    long[] t = table;
    int m = (t.length >> 1) - 1;
    int s = (int) ((k * FIBONACCI) >>> shift);
    while (true) {
      long id = t[2 * s + 1];
      if (id == 0) {
        return -1;
      }
      if (t[2 * s] == k) {
        return (int) id - 1;
      }
      s = (s + 1) & m;
    }
  }

  /** Adds key {@code k} (not present) for group {@code g}, growing at half full. */
  void put(long k, int g) {
    count++;
    if (count * 2 > table.length >> 1) {
      long[] old = table;
      table = new long[old.length * 2];
      shift--;
      for (int s = 0; s < old.length; s += 2) {
        if (old[s + 1] != 0) {
          place(old[s], old[s + 1]);
        }
      }
    }
    place(k, g + 1L);
  }

  private void place(long k, long id) {
    long[] t = table;
    int m = (t.length >> 1) - 1;
    int s = (int) ((k * FIBONACCI) >>> shift);
    while (t[2 * s + 1] != 0) {
      s = (s + 1) & m;
    }
    t[2 * s] = k;
    t[2 * s + 1] = id;
  }

  /** Heap bytes held. */
  long bytes() {
    return (long) table.length * 8;
  }

  /** Drops every key and returns to the initial size. */
  void reset() {
    table = new long[2 * initialSlots];
    shift = 64 - Integer.numberOfTrailingZeros(initialSlots);
    count = 0;
  }
}
