package dev.quiver.binding.physical.join;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.List;

/**
 * Hash table over the build side's keys, laid out bucket by bucket. {@code entries[b]} holds bucket
 * {@code b}'s start in the upper 32 bits (its end is the next entry's start) and in the lower 32 a
 * tag mask: bit {@code hash >>> 27} of each of its rows, so most probes of a key the bucket lacks
 * stop at the entry. The run {@code [start, end)} indexes {@code rowIds} (build rows in ascending
 * order) and, beside it, {@code runWords} (fixed-width keys as 64-bit words, a slot's words
 * adjacent) or {@code runHashes} (the full hashes of string keys). A probe thus reads one entry
 * pair and one short contiguous run instead of chasing a linked chain through rows scattered over
 * the build side, which made probing large build sides (orders, partsupp) cache-miss bound.
 * Read-only once built, hence safe to probe from several threads.
 */
final class JoinHashTable {
  private static final long HIGH = 0xFFFFFFFF00000000L;
  private static final long LOW = 0xFFFFFFFFL;

  private final JoinKeys keys;
  private final boolean nullEqualsNull;
  private final int shift;
  private final long[] entries;
  private final int[] rowIds;

  /**
   * The key words of run slot i at {@code [i * width, (i + 1) * width)}, or null when a build key
   * is null or a string (see {@link JoinKeys#words}).
   */
  private final long[] runWords;

  private final int width;

  /** Full hashes per run slot when {@link #runWords} is null, so a mismatch rarely reads keys. */
  private final int[] runHashes;

  JoinHashTable(JoinKeys keys, boolean nullEqualsNull) {
    this.keys = keys;
    this.nullEqualsNull = nullEqualsNull;
    int rows = keys.rows();
    int bits = bucketBits(rows);
    this.shift = 32 - bits;
    int buckets = 1 << bits;
    // Count rows per bucket into the upper half of entries[b + 1] and tag entries[b]; prefix-sum
    // the counts into ends; place rows last to first, decrementing the ends to the starts; then
    // shift each start down to its own bucket's entry.
    long[] ent = new long[buckets + 1];
    boolean skipNulls = !nullEqualsNull && keys.anyNull();
    for (int r = 0; r < rows; r++) {
      if (!skipNulls || !keys.hasNull(r)) {
        int h = keys.hash(r);
        int b = bucket(h);
        ent[b + 1] += 1L << 32;
        ent[b] |= tag(h);
      }
    }
    for (int b = 0; b < buckets; b++) {
      ent[b + 1] += ent[b] & HIGH;
    }
    int stored = (int) (ent[buckets] >>> 32);
    int[] ids = new int[stored];
    long[][] words = keys.words();
    if (words != null && (long) stored * words.length > Integer.MAX_VALUE - 8) {
      words = null; // too many words for one array: compare through the hashes and keys
    }
    int w = words != null ? words.length : 0;
    long[] kv = words != null ? new long[stored * w] : null;
    int[] hv = words == null ? new int[stored] : null;
    for (int r = rows - 1; r >= 0; r--) {
      if (skipNulls && keys.hasNull(r)) {
        continue;
      }
      int b = bucket(keys.hash(r)) + 1;
      ent[b] -= 1L << 32;
      int slot = (int) (ent[b] >>> 32);
      ids[slot] = r;
      if (w == 1) {
        kv[slot] = words[0][r];
      } else if (kv != null) {
        for (int k = 0; k < w; k++) {
          kv[slot * w + k] = words[k][r];
        }
      } else {
        hv[slot] = keys.hash(r);
      }
    }
    for (int b = 0; b < buckets; b++) {
      ent[b] = (ent[b + 1] & HIGH) | (ent[b] & LOW);
    }
    ent[buckets] = (long) stored << 32;
    this.entries = ent;
    this.rowIds = ids;
    this.runWords = kv;
    this.width = w;
    this.runHashes = hv;
  }

  private static long tag(int hash) {
    return 1L << (hash >>> 27);
  }

  /**
   * Buckets as a power of two, between half as many as build rows and as many: runs average one to
   * two rows, which share a cache line, and the entries stay small enough to stay cached longer.
   */
  private static int bucketBits(int rows) {
    int bits = 31 - Integer.numberOfLeadingZeros(Math.max(1, rows - 1));
    return Math.min(Math.max(bits, 4), 30);
  }

  /**
   * Heap bytes the table and the build keys it holds will take, for memory accounting and the spill
   * decision before building: the bucket entries and, per row, the row id, the extracted keys' hash
   * and null flag, and per key its extracted values, null flag and run copy (17 bytes a 64-bit
   * word; a decimal has two) or, for a string key, its offset, run hash and null flag. A string
   * key's bytes are unknown until extracted; {@link #heapBytes} counts them once built.
   */
  static long estimateBytes(int rows, List<PhysicalExpr> keys) {
    long buckets = 1L << bucketBits(rows);
    long perRow = 4L + 4 + 1;
    for (PhysicalExpr k : keys) {
      perRow +=
          switch (k.dataType().getTypeID()) {
            case Decimal -> 2 * 17;
            case Utf8, Binary -> 4 + 4 + 1;
            default -> 17;
          };
    }
    return (buckets + 1) * 8 + rows * perRow;
  }

  /** Heap bytes the built table and its build keys take. */
  long heapBytes() {
    long bytes = 8L * entries.length + 4L * rowIds.length + keys.heapBytes();
    if (runWords != null) {
      bytes += 8L * runWords.length;
    }
    if (runHashes != null) {
      bytes += 4L * runHashes.length;
    }
    return bytes;
  }

  private int bucket(int hash) {
    return (hash * 0x9E3779B1) >>> shift;
  }

  JoinKeys keys() {
    return keys;
  }

  /** The probe's key words when they can be compared with the run words, else null. */
  private long[][] comparableWords(JoinKeys probe) {
    long[][] pw = probe.words();
    return runWords != null && pw != null && pw.length == width ? pw : null;
  }

  /** Whether run slot {@code i} holds a build row whose keys equal probe row {@code p}'s. */
  private boolean matches(int i, int h, JoinKeys probe, int p) {
    if (runHashes != null && runHashes[i] != h) {
      return false;
    }
    return keys.equal(rowIds[i], probe, p);
  }

  /** Whether run slot {@code i}'s words equal probe row {@code p}'s. */
  private boolean wordsEqual(int i, long[][] pw, int p) {
    int base = i * width;
    for (int k = 0; k < width; k++) {
      if (runWords[base + k] != pw[k][p]) {
        return false;
      }
    }
    return true;
  }

  /** Sets {@code out[p]} to whether probe row {@code p} has a build row with equal keys. */
  void anyMatches(JoinKeys probe, boolean[] out) {
    int rows = probe.rows();
    // Look up every row's run first: independent loads the CPU overlaps, where a per-row
    // lookup-then-compare would wait on each cache miss in turn.
    int[] starts = new int[rows];
    int[] ends = new int[rows];
    runs(probe, starts, ends);
    long[][] pw = comparableWords(probe);
    if (pw != null && width == 1) {
      long[] kv = runWords;
      long[] pl = pw[0];
      for (int p = 0; p < rows; p++) {
        boolean found = false;
        long v = pl[p];
        for (int i = starts[p], e = ends[p]; i < e; i++) {
          if (kv[i] == v) {
            found = true;
            break;
          }
        }
        out[p] = found;
      }
      return;
    }
    for (int p = 0; p < rows; p++) {
      boolean found = false;
      int h = probe.hash(p);
      for (int i = starts[p], e = ends[p]; i < e && !found; i++) {
        found = pw != null ? wordsEqual(i, pw, p) : matches(i, h, probe, p);
      }
      out[p] = found;
    }
  }

  /**
   * Each probe row's run [starts[p], ends[p]); empty when its bucket has no row with its tag, and
   * for rows with a null key that match none.
   */
  private void runs(JoinKeys probe, int[] starts, int[] ends) {
    int rows = probe.rows();
    long[] ent = entries;
    for (int p = 0; p < rows; p++) {
      int h = probe.hash(p);
      int b = bucket(h);
      long e = ent[b];
      int start = (int) (e >>> 32);
      starts[p] = start;
      ends[p] = (e & tag(h)) != 0 ? (int) (ent[b + 1] >>> 32) : start;
    }
    if (!nullEqualsNull && probe.anyNull()) {
      for (int p = 0; p < rows; p++) {
        if (probe.hasNull(p)) {
          ends[p] = starts[p];
        }
      }
    }
  }

  /** Resumable enumeration of (build row, probe row) pairs with equal keys for one probe batch. */
  final class Probe {
    private final JoinKeys probe;
    private final int[] starts;
    private final int[] ends;
    private final long[][] probeWords;

    /** The next probe row to look at, and the next slot of its run. */
    private int row;

    private int slot;

    Probe(JoinKeys probe) {
      this.probe = probe;
      int rows = probe.rows();
      this.starts = new int[rows];
      this.ends = new int[rows];
      runs(probe, starts, ends);
      this.probeWords = comparableWords(probe);
      this.slot = rows > 0 ? starts[0] : 0;
    }

    boolean done() {
      return row >= probe.rows();
    }

    /** Fills up to {@code cap} pairs into the arrays; returns how many. */
    int fill(int[] buildOut, int[] probeOut, int cap) {
      if (probeWords == null) {
        return fillGeneric(buildOut, probeOut, cap);
      }
      return switch (width) {
        case 1 -> fillOneWord(probeWords[0], buildOut, probeOut, cap);
        case 2 -> fillTwoWords(probeWords[0], probeWords[1], buildOut, probeOut, cap);
        default -> fillGeneric(buildOut, probeOut, cap);
      };
    }

    /** One integer-like key: the common case, compared in a tight loop. */
    private int fillOneWord(long[] pl, int[] buildOut, int[] probeOut, int cap) {
      long[] kv = runWords;
      int[] ids = rowIds;
      int rows = probe.rows();
      int n = 0;
      int p = row;
      int i = slot;
      while (p < rows) {
        long v = pl[p];
        for (int e = ends[p]; i < e; i++) {
          if (kv[i] == v) {
            if (n == cap) {
              row = p;
              slot = i;
              return n;
            }
            buildOut[n] = ids[i];
            probeOut[n++] = p;
          }
        }
        if (++p < rows) {
          i = starts[p];
        }
      }
      row = p;
      return n;
    }

    /** Two integer-like keys (or one decimal), as in partsupp's (partkey, suppkey). */
    private int fillTwoWords(long[] pa, long[] pb, int[] buildOut, int[] probeOut, int cap) {
      long[] kv = runWords;
      int[] ids = rowIds;
      int rows = probe.rows();
      int n = 0;
      int p = row;
      int i = slot;
      while (p < rows) {
        long a = pa[p];
        long b = pb[p];
        for (int e = ends[p]; i < e; i++) {
          if (kv[2 * i] == a && kv[2 * i + 1] == b) {
            if (n == cap) {
              row = p;
              slot = i;
              return n;
            }
            buildOut[n] = ids[i];
            probeOut[n++] = p;
          }
        }
        if (++p < rows) {
          i = starts[p];
        }
      }
      row = p;
      return n;
    }

    private int fillGeneric(int[] buildOut, int[] probeOut, int cap) {
      long[][] pw = probeWords;
      int[] ids = rowIds;
      int rows = probe.rows();
      int n = 0;
      int p = row;
      int i = slot;
      while (p < rows) {
        int e = ends[p];
        if (i < e) {
          int h = probe.hash(p);
          for (; i < e; i++) {
            if (pw != null ? wordsEqual(i, pw, p) : matches(i, h, probe, p)) {
              if (n == cap) {
                row = p;
                slot = i;
                return n;
              }
              buildOut[n] = ids[i];
              probeOut[n++] = p;
            }
          }
        }
        if (++p < rows) {
          i = starts[p];
        }
      }
      row = p;
      return n;
    }
  }
}
