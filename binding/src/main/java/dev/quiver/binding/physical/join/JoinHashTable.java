package dev.quiver.binding.physical.join;

import java.util.Arrays;

/**
 * Hash table over the build side's keys: bucket heads and per-row next links in int arrays, so a
 * bucket's rows form a chain in ascending row order. Read-only once built, hence safe to probe from
 * several threads.
 */
final class JoinHashTable {
  private final JoinKeys keys;
  private final boolean nullEqualsNull;
  private final int[] heads;
  private final int[] next;
  private final int shift;

  JoinHashTable(JoinKeys keys, boolean nullEqualsNull) {
    this.keys = keys;
    this.nullEqualsNull = nullEqualsNull;
    int rows = keys.rows();
    int bits = Math.max(4, 32 - Integer.numberOfLeadingZeros(Math.max(1, rows * 2 - 1)));
    bits = Math.min(bits, 30);
    this.shift = 32 - bits;
    this.heads = new int[1 << bits];
    Arrays.fill(heads, -1);
    this.next = new int[rows];
    for (int r = rows - 1; r >= 0; r--) {
      if (!nullEqualsNull && keys.hasNull(r)) {
        continue;
      }
      int b = bucket(keys.hash(r));
      next[r] = heads[b];
      heads[b] = r;
    }
  }

  /** Heap bytes the table's arrays take, for memory accounting. */
  static long estimateBytes(int rows, int keyCount) {
    long buckets = Long.highestOneBit(Math.max(16L, rows * 2L - 1)) * 2;
    return buckets * 4 + rows * (4L + 4 + 9L * keyCount);
  }

  private int bucket(int hash) {
    return (hash * 0x9E3779B1) >>> shift;
  }

  JoinKeys keys() {
    return keys;
  }

  /** Whether probe row {@code p} has at least one build row with equal keys. */
  boolean anyMatch(JoinKeys probe, int p) {
    if (!nullEqualsNull && probe.hasNull(p)) {
      return false;
    }
    int h = probe.hash(p);
    for (int b = heads[bucket(h)]; b >= 0; b = next[b]) {
      if (keys.hash(b) == h && keys.equal(b, probe, p)) {
        return true;
      }
    }
    return false;
  }

  /** Sets {@code out[p]} to whether probe row {@code p} has a build row with equal keys. */
  void anyMatches(JoinKeys probe, boolean[] out) {
    int rows = probe.rows();
    long[] bl = keys.singleLong();
    long[] pl = probe.singleLong();
    if (bl == null || pl == null) {
      for (int p = 0; p < rows; p++) {
        out[p] = anyMatch(probe, p);
      }
      return;
    }
    // One integer key (the common case): compare values along the chain, no per-row dispatch.
    for (int p = 0; p < rows; p++) {
      boolean found = false;
      if (nullEqualsNull || !probe.hasNull(p)) {
        long v = pl[p];
        for (int b = heads[bucket(probe.hash(p))]; b >= 0; b = next[b]) {
          if (bl[b] == v) {
            found = true;
            break;
          }
        }
      }
      out[p] = found;
    }
  }

  /** Resumable enumeration of (build row, probe row) pairs with equal keys for one probe batch. */
  final class Probe {
    private final JoinKeys probe;
    private int row;
    private int chain = -1;

    Probe(JoinKeys probe) {
      this.probe = probe;
    }

    boolean done() {
      return row >= probe.rows() && chain < 0;
    }

    /** Fills up to {@code cap} pairs into the arrays; returns how many. */
    int fill(int[] buildOut, int[] probeOut, int cap) {
      int n = 0;
      int rows = probe.rows();
      long[] bl = keys.singleLong();
      long[] pl = probe.singleLong();
      boolean fast = bl != null && pl != null;
      while (n < cap) {
        if (chain < 0) {
          if (row >= rows) {
            break;
          }
          int p = row;
          if (!nullEqualsNull && probe.hasNull(p)) {
            row++;
            continue;
          }
          chain = heads[bucket(probe.hash(p))];
          if (chain < 0) {
            row++;
            continue;
          }
        }
        int p = row;
        int h = probe.hash(p);
        int b = chain;
        if (fast) {
          long v = pl[p];
          while (b >= 0 && n < cap) {
            if (bl[b] == v) {
              buildOut[n] = b;
              probeOut[n++] = p;
            }
            b = next[b];
          }
        } else {
          while (b >= 0 && n < cap) {
            if (keys.hash(b) == h && keys.equal(b, probe, p)) {
              buildOut[n] = b;
              probeOut[n++] = p;
            }
            b = next[b];
          }
        }
        chain = b;
        if (b < 0) {
          row++;
        }
      }
      return n;
    }
  }
}
