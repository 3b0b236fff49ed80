package dev.quiver.binding.physical.kernel;

import org.apache.arrow.vector.BitVector;

/**
 * A filter's kept rows as 64-bit words (bit i of word i / 64 set when row i is kept): boolean masks
 * ANDed word-wise, then turned into ascending row indices for a take.
 */
public final class MaskWords {
  private MaskWords() {}

  /**
   * {@code keep} (null: all rows) AND the rows among the first {@code rows} that {@code mask} holds
   * true (null counts as false); written into {@code keep} when given, else into new words.
   */
  public static long[] andTrue(BitVector mask, int rows, long[] keep) {
    int words = (rows + 63) >>> 6;
    int bytes = (rows + 7) >>> 3;
    long data = Raw.address(mask.getDataBuffer(), bytes);
    boolean hasNulls = mask.getNullCount() > 0;
    long validity = hasNulls ? Raw.address(mask.getValidityBuffer(), bytes) : 0;
    long[] out = keep != null ? keep : new long[words];
    for (int j = 0; j < words; j++) {
      long w = word(data, j, bytes);
      if (hasNulls) {
        w &= word(validity, j, bytes);
      }
      out[j] = keep != null ? out[j] & w : w;
    }
    if ((rows & 63) != 0) {
      out[words - 1] &= (1L << (rows & 63)) - 1;
    }
    return out;
  }

  /** Bits {@code 64 j .. 64 j + 63} of the bitmap at {@code address} of {@code bytes} bytes. */
  private static long word(long address, int j, int bytes) {
    int at = j << 3;
    if (at + 8 <= bytes) {
      return Raw.getLong(address + at);
    }
    long w = 0;
    for (int b = at; b < bytes; b++) {
      w |= (Raw.getByte(address + b) & 0xFFL) << ((b - at) << 3);
    }
    return w;
  }

  /**
   * Writes the rows among the first {@code rows} that {@code mask} holds true (null counts as
   * false) to {@code out}, ascending; returns how many.
   */
  public static int trueRows(BitVector mask, int rows, int[] out) {
    boolean hasNulls = mask.getNullCount() > 0;
    int bytes = (rows + 7) >>> 3;
    long data = Raw.address(mask.getDataBuffer(), bytes);
    long validity = hasNulls ? Raw.address(mask.getValidityBuffer(), bytes) : 0;
    int n = 0;
    // A byte of the mask at a time: the selected rows of each are its set bits.
    for (int b = 0; b < bytes; b++) {
      int bits = Raw.getByte(data + b) & 0xFF;
      if (hasNulls) {
        bits &= Raw.getByte(validity + b);
      }
      if (b == bytes - 1 && (rows & 7) != 0) {
        bits &= (1 << (rows & 7)) - 1;
      }
      while (bits != 0) {
        out[n++] = (b << 3) + Integer.numberOfTrailingZeros(bits);
        bits &= bits - 1;
      }
    }
    return n;
  }

  /** How many rows {@code keep} holds. */
  public static int count(long[] keep) {
    int n = 0;
    for (long w : keep) {
      n += Long.bitCount(w);
    }
    return n;
  }

  /** Writes the rows set in {@code keep} to {@code out}, ascending; returns how many. */
  public static int toRows(long[] keep, int[] out) {
    int n = 0;
    for (int j = 0; j < keep.length; j++) {
      long w = keep[j];
      while (w != 0) {
        out[n++] = (j << 6) + Long.numberOfTrailingZeros(w);
        w &= w - 1;
      }
    }
    return n;
  }
}
