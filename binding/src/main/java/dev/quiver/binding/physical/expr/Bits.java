package dev.quiver.binding.physical.expr;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;

/**
 * Bitmaps as {@code long[]} words (bit i of word i/64): validity and boolean data are combined a
 * word at a time, and moved to and from Arrow buffers in bulk.
 */
final class Bits {
  private Bits() {}

  static int words(int n) {
    return (n + 63) >>> 6;
  }

  static boolean get(long[] words, int i) {
    return (words[i >>> 6] & (1L << i)) != 0;
  }

  static void set(long[] words, int i) {
    words[i >>> 6] |= 1L << i;
  }

  static void clear(long[] words, int i) {
    words[i >>> 6] &= ~(1L << i);
  }

  static long[] ones(int n) {
    long[] w = new long[words(n)];
    java.util.Arrays.fill(w, -1L);
    maskTail(w, n);
    return w;
  }

  static void maskTail(long[] w, int n) {
    int rem = n & 63;
    if (rem != 0 && w.length > 0) {
      w[w.length - 1] &= (1L << rem) - 1;
    }
  }

  /** Reads the first {@code n} bits of {@code buf}. */
  static long[] load(ArrowBuf buf, int n) {
    long[] w = new long[words(n)];
    int bytes = (n + 7) >>> 3;
    int full = bytes >>> 3;
    for (int j = 0; j < full; j++) {
      w[j] = buf.getLong(j * 8L);
    }
    for (int b = full * 8; b < bytes; b++) {
      w[b >>> 3] |= (buf.getByte(b) & 0xFFL) << ((b & 7) * 8);
    }
    maskTail(w, n);
    return w;
  }

  /** Writes the first {@code n} bits of {@code w} to {@code buf}. */
  static void store(long[] w, ArrowBuf buf, int n) {
    int bytes = (n + 7) >>> 3;
    int full = bytes >>> 3;
    for (int j = 0; j < full; j++) {
      buf.setLong(j * 8L, w[j]);
    }
    int rem = n & 63;
    if (rem != 0 && full == w.length) {
      // The last word is whole in the buffer: write it with its tail bits cleared.
      buf.setLong((full - 1) * 8L, w[full - 1] & ((1L << rem) - 1));
    }
    for (int b = full * 8; b < bytes; b++) {
      long word = w[b >>> 3];
      if (rem != 0 && (b >>> 3) == w.length - 1) {
        word &= (1L << rem) - 1;
      }
      buf.setByte(b, (byte) (word >>> ((b & 7) * 8)));
    }
  }

  /** Validity of {@code v} as words, or null when every value is valid. */
  static long[] validity(FieldVector v, int n) {
    if (v instanceof NullVector) {
      return new long[words(n)];
    }
    if (n == 0 || v.getNullCount() == 0) {
      return null;
    }
    return load(v.getValidityBuffer(), n);
  }

  /** Validity words, never null. */
  static long[] validityOrOnes(FieldVector v, int n) {
    long[] w = validity(v, n);
    return w == null ? ones(n) : w;
  }

  /** Intersection of two validity maps where null means all valid. */
  static long[] and(long[] a, long[] b) {
    if (a == null) {
      return b == null ? null : b.clone();
    }
    if (b == null) {
      return a.clone();
    }
    long[] r = new long[a.length];
    for (int j = 0; j < r.length; j++) {
      r[j] = a[j] & b[j];
    }
    return r;
  }

  static boolean valid(long[] validity, int i) {
    return validity == null || (validity[i >>> 6] & (1L << i)) != 0;
  }

  /** Sets the validity of a freshly allocated fixed or variable width vector. */
  static void storeValidity(long[] validity, FieldVector out, int n) {
    if (out instanceof NullVector) {
      return;
    }
    if (validity == null) {
      store(ones(n), out.getValidityBuffer(), n);
    } else {
      store(validity, out.getValidityBuffer(), n);
    }
  }

  /** Builds a BitVector from value and validity words (validity null: all valid). */
  static BitVector toBitVector(
      long[] values, long[] validity, int n, org.apache.arrow.memory.BufferAllocator allocator) {
    BitVector out =
        (BitVector)
            Vectors.allocate(
                org.apache.arrow.vector.types.pojo.ArrowType.Bool.INSTANCE, n, allocator);
    if (validity != null) {
      long[] v = values.clone();
      for (int j = 0; j < v.length; j++) {
        v[j] &= validity[j];
      }
      store(v, out.getDataBuffer(), n);
    } else {
      store(values, out.getDataBuffer(), n);
    }
    storeValidity(validity, out, n);
    out.setValueCount(n);
    return out;
  }
}
