package dev.quiver.binding.physical.scan;

import dev.quiver.binding.physical.kernel.Raw;
import java.io.IOException;

/**
 * Bit strings of a Parquet page held as {@code long[]} words, bit i in word i / 64 at bit i % 64:
 * the definition levels of a flat optional column (1 = a value) and boolean values. The hybrid
 * encoding's bit-packed groups of width 1 and PLAIN booleans are already bitmaps in Arrow's bit
 * order, so they are copied a byte at a time and RLE runs filled a word at a time, never decoded a
 * value at a time.
 */
final class ParquetBits {
  private ParquetBits() {}

  /** Words that hold {@code bits} bits. */
  static int words(int bits) {
    return (bits + 63) >>> 6;
  }

  /** {@code bits}, or a larger array when it is too short, with bits {@code [0, n)} zero. */
  static long[] cleared(long[] bits, int n) {
    int words = words(n);
    if (bits.length < words) {
      return new long[words];
    }
    java.util.Arrays.fill(bits, 0, words, 0L);
    return bits;
  }

  /** Where {@link #runHeader} puts the header's length in bytes. */
  static final int HEADER_LENGTH_SHIFT = 56;

  /** The header's value in what {@link #runHeader} returns (at most 42 bits). */
  static final long HEADER_MASK = (1L << HEADER_LENGTH_SHIFT) - 1;

  /**
   * Reads the ULEB128 header of a run of the RLE / bit-packing hybrid encoding at {@code b[pos,
   * end)}: its value in the low bits ({@link #HEADER_MASK}) and its length in bytes from bit {@link
   * #HEADER_LENGTH_SHIFT}, one long so that the decoders' loops allocate nothing.
   */
  static long runHeader(byte[] b, int pos, int end) throws IOException {
    long header = 0;
    int shift = 0;
    int at = pos;
    while (true) {
      if (at >= end) {
        throw new IOException("a page is shorter than its values need");
      }
      int x = b[at++] & 0xFF;
      header |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return header | ((long) (at - pos) << HEADER_LENGTH_SHIFT);
      }
      shift += 7;
      if (shift > 35) {
        throw new IOException("run header too long");
      }
    }
  }

  /**
   * Decodes {@code count} values of width 1 of the RLE / bit-packing hybrid encoding at {@code
   * b[pos, end)} into bits {@code [0, count)} of {@code out}, which must be zero there; returns how
   * many are 1. A value over 1 fails (definition levels of a flat column are 0 or 1).
   */
  static int decodeHybrid(byte[] b, int pos, int end, long[] out, int count) throws IOException {
    int n = 0;
    while (n < count) {
      if (pos >= end) {
        throw new IOException("run-length data ends after " + n + " of " + count + " values");
      }
      long read = ParquetBits.runHeader(b, pos, end);
      pos += (int) (read >>> ParquetBits.HEADER_LENGTH_SHIFT);
      long header = read & ParquetBits.HEADER_MASK;
      if ((header & 1) == 0) {
        int run = (int) Math.min(header >>> 1, count - n);
        if (pos >= end) {
          throw new IOException("a page is shorter than its values need");
        }
        int value = b[pos++] & 0xFF;
        if (value > 1) {
          throw new IOException("a definition level is over the column's maximum of 1");
        }
        if (value == 1) {
          set(out, n, run);
        }
        n += run;
      } else {
        // Groups of 8 values, one byte each; the last group of a page may be cut short.
        long groups = header >>> 1;
        int take = (int) Math.min(groups * 8, count - n);
        if (take == groups * 8 && pos + groups > end) {
          throw new IOException("bit-packed run ends past the page");
        }
        for (int k = 0; k < take; k += 8) {
          int bits = pos + (k >>> 3) < end ? b[pos + (k >>> 3)] & 0xFF : 0;
          if (take - k < 8) {
            bits &= (1 << (take - k)) - 1;
          }
          orByte(out, n + k, bits);
        }
        n += take;
        pos = (int) Math.min((long) end, pos + groups);
      }
    }
    return count(out, count);
  }

  /**
   * Copies {@code count} bits of the bitmap {@code b} from its byte {@code pos} (PLAIN booleans)
   * into bits {@code [0, count)} of {@code out}, which must be zero there.
   */
  static void fromBytes(byte[] b, int pos, long[] out, int count) {
    for (int k = 0; k < count; k += 8) {
      int bits = b[pos + (k >>> 3)] & 0xFF;
      if (count - k < 8) {
        bits &= (1 << (count - k)) - 1;
      }
      orByte(out, k, bits);
    }
  }

  /** ORs the 8 bits of {@code bits} into {@code out} at bit {@code at}. */
  private static void orByte(long[] out, int at, int bits) {
    int w = at >>> 6;
    int s = at & 63;
    out[w] |= (long) bits << s;
    if (s > 56 && (bits >>> (64 - s)) != 0) {
      out[w + 1] |= (long) bits >>> (64 - s);
    }
  }

  /** Sets bits {@code [from, from + n)} of {@code out}: whole words where it can. */
  static void set(long[] out, int from, int n) {
    int i = from;
    int end = from + n;
    while (i < end && (i & 63) != 0) {
      out[i >>> 6] |= 1L << i;
      i++;
    }
    for (; i + 64 <= end; i += 64) {
      out[i >>> 6] = -1L;
    }
    while (i < end) {
      out[i >>> 6] |= 1L << i;
      i++;
    }
  }

  /** How many of bits {@code [0, count)} of {@code bits} are set (the rest must be zero). */
  static int count(long[] bits, int count) {
    int c = 0;
    for (int w = 0, n = words(count); w < n; w++) {
      c += Long.bitCount(bits[w]);
    }
    return c;
  }

  /** How many of bits {@code [from, end)} of {@code bits} are set. */
  static int count(long[] bits, int from, int end) {
    if (from >= end) {
      return 0;
    }
    int first = from >>> 6;
    int last = (end - 1) >>> 6;
    long head = -1L << from; // shifts are mod 64: the bits of the first word from `from` on
    long tail = -1L >>> (63 - ((end - 1) & 63));
    if (first == last) {
      return Long.bitCount(bits[first] & head & tail);
    }
    int c = Long.bitCount(bits[first] & head);
    for (int w = first + 1; w < last; w++) {
      c += Long.bitCount(bits[w]);
    }
    return c + Long.bitCount(bits[last] & tail);
  }

  /** The first set bit in {@code [from, end)}, or {@code end} when there is none. */
  static int nextSet(long[] bits, int from, int end) {
    if (from >= end) {
      return end;
    }
    int w = from >>> 6;
    long word = bits[w] & (-1L << from);
    while (word == 0) {
      if (++w >= words(end)) {
        return end;
      }
      word = bits[w];
    }
    return Math.min(end, (w << 6) + Long.numberOfTrailingZeros(word));
  }

  /** The first clear bit in {@code [from, end)}, or {@code end} when there is none. */
  static int nextClear(long[] bits, int from, int end) {
    if (from >= end) {
      return end;
    }
    int w = from >>> 6;
    long word = ~bits[w] & (-1L << from);
    while (word == 0) {
      if (++w >= words(end)) {
        return end;
      }
      word = ~bits[w];
    }
    return Math.min(end, (w << 6) + Long.numberOfTrailingZeros(word));
  }

  /**
   * Copies bits {@code [from, from + n)} of {@code bits} to the Arrow bitmap at {@code address},
   * from its bit {@code to}, whose bits there must be zero: a byte at a time once {@code to} is at
   * a byte boundary.
   */
  static void copyTo(long[] bits, int from, long address, int to, int n) {
    int i = 0;
    while (i < n && ((to + i) & 7) != 0) {
      if (bit(bits, from + i)) {
        Raw.setBit(address, to + i);
      }
      i++;
    }
    for (; i + 8 <= n; i += 8) {
      Raw.putByte(address + ((to + i) >>> 3), (byte) byteAt(bits, from + i));
    }
    for (; i < n; i++) {
      if (bit(bits, from + i)) {
        Raw.setBit(address, to + i);
      }
    }
  }

  /** The 8 bits of {@code bits} from bit {@code at} (bits past the array are 0). */
  private static int byteAt(long[] bits, int at) {
    int w = at >>> 6;
    int s = at & 63;
    long x = bits[w] >>> s;
    if (s > 56 && w + 1 < bits.length) {
      x |= bits[w + 1] << (64 - s);
    }
    return (int) x & 0xFF;
  }

  static boolean bit(long[] bits, int i) {
    return (bits[i >>> 6] & (1L << i)) != 0;
  }
}
