package dev.quiver.binding.physical.scan;

import dev.quiver.binding.physical.kernel.Raw;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Set;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.apache.parquet.format.Encoding;

/**
 * Decodes a flat column chunk's pages a whole page at a time into primitive arrays, and copies them
 * into Arrow buffers with plain loops: the fast path of {@link ParquetRowGroupReader} for the
 * encodings nearly every writer uses (PLAIN and dictionary values, RLE definition levels).
 * parquet-java's column reader costs several calls per value; this costs a few array accesses.
 *
 * <p>Rows are copied in runs of defined rows (a whole page when it has no nulls, recognised from
 * its levels' single RLE run): validity bits are set a byte at a time, dictionary values gathered
 * in one loop per target, and PLAIN values already in the vector's layout copied in bulk.
 */
final class ParquetPageDecoder {
  /** Encodings (of values and levels) this decoder reads. */
  private static final Set<Encoding> ENCODINGS =
      Set.of(Encoding.PLAIN, Encoding.RLE, Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY);

  /**
   * How values are stored: 4-byte ints, 8-byte longs, fixed-length byte arrays (of {@code
   * typeLength} bytes: big-endian decimals and other fixed values), byte strings, or bits.
   */
  enum Layout {
    INT,
    LONG,
    BIG_ENDIAN,
    BYTES,
    BITS
  }

  /** How values land in the vector. */
  enum Target {
    INT8,
    INT16,
    INT32,
    INT64,
    INT32_AS_INT64,
    UINT32_AS_INT64,
    DECIMAL,
    /** Fixed-length byte arrays copied verbatim. */
    FIXED,
    BYTES,
    BITS
  }

  private static final boolean NATIVE_LITTLE_ENDIAN =
      ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** Eight bytes moved verbatim between a byte[] and an Arrow buffer (both in native order). */
  private static final VarHandle LONG_NATIVE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

  /** Bit unpackers by width (0 to 32), little-endian as the hybrid encoding packs its groups. */
  private static final BytePacker[] PACKERS = new BytePacker[33];

  static {
    for (int w = 0; w <= 32; w++) {
      PACKERS[w] = Packer.LITTLE_ENDIAN.newBytePacker(w);
    }
  }

  private final ParquetColumnPages pages;
  private final Layout layout;
  private final Target target;
  private final int typeLength;
  private final boolean optional;

  // The dictionary, decoded once per chunk (dictionarySize -1 when the chunk has none): ints for
  // an INT32 target, longs (already widened or sign-extended) for the 8- and 16-byte targets.
  private boolean dictionaryLoaded;
  private int dictionarySize = -1;
  private int[] dictInts;
  private long[] dictLongs;
  private long[] dictHigh; // the high words of decimals over 8 bytes, else null
  private byte[] dictBytes;
  private int dictStart; // where fixed-length values start in dictBytes
  private int[] dictOffsets;
  // A string dictionary whose values are at most SHORT_WORDS * 8 bytes long, as little-endian
  // words (dictWords[k * dictWordCount + w]) with their lengths: each value is then copied as
  // whole words with no per-value bounds arithmetic. dictWordCount is 0 for longer values.
  private static final int SHORT_WORDS = 3;
  private static final int SHORT_DICTIONARY_VALUES = 1 << 12;
  private long[] dictWords;
  private int[] dictLengths;
  private int dictWordCount;

  // The current page, decoded whole: definition levels, then either dictionary ids or plain
  // values; pageRow counts rows consumed, pageValue non-null values consumed. allDefined says
  // every row has a value (then valid is not filled); otherwise bit i of valid says row i has one.
  private int pageRows;
  private int pageRow;
  private int pageValue;
  private boolean allDefined;
  private long[] valid;
  private boolean dictionaryPage;
  private int[] ids = new int[0];
  private byte[] plain;
  private int plainStart;
  private int plainEnd;
  private int plainCursor; // BYTES in a plain page: value plainCursorValue's length prefix
  private int plainCursorValue; // at most pageValue: skipped values are walked over lazily
  private long[] bools; // BITS: the page's values as bits

  // The string vector being filled by readBytes: its data buffer grows as values arrive.
  private BaseVariableWidthVector strings;
  private long stringData;
  private long stringCapacity;
  private long bytesPerRow = 16; // the last batch's average, to size the next batch's buffer

  private final Scratch scratch;

  /**
   * Per-page arrays that one column's decoders hand on from row group to row group: a row-group
   * reader opens a new decoder per chunk, and each used to grow its own arrays from nothing.
   */
  static final class Scratch {
    private int[] ids = new int[0];
    private long[] valid = new long[0];
    private long[] bools = new long[0];
  }

  private ParquetPageDecoder(
      ParquetColumnPages pages,
      Layout layout,
      Target target,
      int typeLength,
      boolean optional,
      Scratch scratch) {
    this.pages = pages;
    this.layout = layout;
    this.target = target;
    this.typeLength = typeLength;
    this.optional = optional;
    this.scratch = scratch;
    this.ids = scratch.ids;
    this.valid = scratch.valid;
    this.bools = scratch.bools;
  }

  /**
   * The decoder for a column chunk, or null when the chunk uses an encoding or type this decoder
   * does not handle (the caller then uses parquet-java's column reader).
   */
  static ParquetPageDecoder of(
      ParquetColumnPages pages,
      java.util.List<Encoding> encodings,
      Layout layout,
      Target target,
      int typeLength,
      boolean optional) {
    return of(pages, encodings, layout, target, typeLength, optional, new Scratch());
  }

  /**
   * As {@link #of(ParquetColumnPages, java.util.List, Layout, Target, int, boolean)}, reusing the
   * arrays of {@code scratch}, which no other live decoder may use.
   */
  static ParquetPageDecoder of(
      ParquetColumnPages pages,
      java.util.List<Encoding> encodings,
      Layout layout,
      Target target,
      int typeLength,
      boolean optional,
      Scratch scratch) {
    if (layout == null || target == null || !ENCODINGS.containsAll(encodings)) {
      return null;
    }
    if (layout == Layout.BIG_ENDIAN && typeLength < 1) {
      return null;
    }
    boolean fits =
        switch (target) {
          case INT8, INT16, INT32, INT32_AS_INT64, UINT32_AS_INT64 -> layout == Layout.INT;
          case INT64 -> layout == Layout.LONG;
          case DECIMAL ->
              layout == Layout.INT
                  || layout == Layout.LONG
                  || (layout == Layout.BIG_ENDIAN && typeLength <= 16);
          case FIXED -> layout == Layout.BIG_ENDIAN;
          case BYTES -> layout == Layout.BYTES;
          case BITS -> layout == Layout.BITS;
        };
    return fits
        ? new ParquetPageDecoder(pages, layout, target, typeLength, optional, scratch)
        : null;
  }

  /** Writes the next {@code rows} values into {@code vector} (allocated for them) at 0. */
  void read(FieldVector vector, int rows) throws IOException {
    if (target == Target.BYTES) {
      readBytes((BaseVariableWidthVector) vector, rows);
      return;
    }
    BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
    long data =
        Raw.address(
            v.getDataBuffer(), target == Target.BITS ? (rows + 7) / 8 : (long) rows * width());
    long validity = Raw.address(v.getValidityBuffer(), (rows + 7) / 8);
    int done = 0;
    while (done < rows) {
      ensurePage();
      int n = Math.min(rows - done, pageRows - pageRow);
      if (allDefined) {
        setBits(validity, done, n);
        putValues(data, done, pageValue, n);
        pageValue += n;
      } else {
        // Nulls are the exception: copy each run of defined rows with the bulk loops.
        long[] d = valid;
        int end = pageRow + n;
        int from = ParquetBits.nextSet(d, pageRow, end);
        while (from < end) {
          int to = ParquetBits.nextClear(d, from, end);
          int row = done + from - pageRow;
          setBits(validity, row, to - from);
          putValues(data, row, pageValue, to - from);
          pageValue += to - from;
          from = ParquetBits.nextSet(d, to, end);
        }
      }
      pageRow += n;
      done += n;
    }
  }

  /**
   * Passes over the next {@code rows} rows; pages that lie wholly inside them are neither
   * decompressed nor decoded. Returns how many pages were passed over so.
   */
  int skip(int rows) throws IOException {
    int skipped = 0;
    int left = rows;
    while (left > 0) {
      if (pageRow >= pageRows) {
        int passed = pages.skipPageWithin(left);
        if (passed >= 0) {
          left -= passed;
          skipped++;
          continue;
        }
        ensurePage();
      }
      int n = Math.min(left, pageRows - pageRow);
      advance(n);
      left -= n;
    }
    return skipped;
  }

  /** Consumes {@code n} rows of the current page without writing them. */
  private void advance(int n) {
    pageValue += allDefined ? n : ParquetBits.count(valid, pageRow, pageRow + n);
    pageRow += n;
  }

  /**
   * Writes the values of rows {@code selected[0..n)} (ascending, counted from the next row) into
   * rows {@code 0..n} of {@code vector} (allocated for n values when fixed-width), and consumes
   * {@code rows} rows. Pages holding no selected row are skipped as by {@link #skip}; returns how
   * many were.
   */
  int readSelected(FieldVector vector, int rows, int[] selected, int n) throws IOException {
    long data = 0;
    long validity;
    long offsets = 0;
    long pos = 0;
    if (target == Target.BYTES) {
      BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
      startStrings(v, n);
      offsets = Raw.address(v.getOffsetBuffer(), (n + 1) * 4L);
      validity = Raw.address(v.getValidityBuffer(), (n + 7) / 8);
      Raw.putInt(offsets, 0);
    } else {
      BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
      data =
          Raw.address(v.getDataBuffer(), target == Target.BITS ? (n + 7) / 8 : (long) n * width());
      validity = Raw.address(v.getValidityBuffer(), (n + 7) / 8);
    }
    int skipped = 0;
    int done = 0;
    int k = 0;
    try {
      while (done < rows) {
        int next = k < n ? selected[k] : rows;
        if (next > done) {
          skipped += skip(next - done);
          done = next;
          continue;
        }
        ensurePage();
        int m = Math.min(rows - done, pageRows - pageRow);
        int end = k;
        while (end < n && selected[end] < done + m) {
          end++;
        }
        // Runs of consecutive selected rows go to the bulk loops; with nulls, each row's value
        // index is the page's count of defined rows before it.
        int rank = pageValue;
        int counted = pageRow;
        int at = k;
        while (at < end) {
          int run = 1;
          while (at + run < end && selected[at + run] == selected[at] + run) {
            run++;
          }
          int pageAt = pageRow + selected[at] - done;
          if (allDefined) {
            pos = putSelected(data, validity, offsets, at, rank + pageAt - pageRow, run, pos);
          } else {
            for (int r = 0; r < run; r++) {
              int row = pageAt + r;
              rank += ParquetBits.count(valid, counted, row);
              counted = row;
              if (ParquetBits.bit(valid, row)) {
                pos = putSelected(data, validity, offsets, at + r, rank, 1, pos);
              } else if (target == Target.BYTES) {
                Raw.putInt(offsets + (at + r + 1) * 4L, (int) pos);
              }
            }
          }
          at += run;
        }
        advance(m);
        done += m;
        k = end;
      }
    } finally {
      strings = null;
    }
    if (target == Target.BYTES) {
      BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
      v.setLastSet(n - 1);
      bytesPerRow = Math.min(1 << 20, pos / Math.max(n, 1) + 1);
    }
    return skipped;
  }

  /**
   * Writes {@code count} consecutive defined values of the current page, from value {@code value},
   * to output rows {@code row..row+count}; returns the string data's new end.
   */
  private long putSelected(
      long data, long validity, long offsets, int row, int value, int count, long pos)
      throws IOException {
    setBits(validity, row, count);
    if (target != Target.BYTES) {
      putValues(data, row, value, count);
      return pos;
    }
    int saved = pageValue;
    pageValue = value;
    try {
      return putStrings(offsets, row, count, pos);
    } finally {
      pageValue = saved;
    }
  }

  /** Bytes of one value in the vector (0 for strings and bits, which have their own layout). */
  private int width() {
    return switch (target) {
      case INT8 -> 1;
      case INT16 -> 2;
      case INT32 -> 4;
      case INT64, INT32_AS_INT64, UINT32_AS_INT64 -> 8;
      case DECIMAL -> 16;
      case FIXED -> typeLength;
      case BYTES, BITS -> 0;
    };
  }

  /**
   * Writes {@code n} consecutive values of the current page, from value {@code at}, into rows
   * {@code row..row+n} of the fixed-width buffer at {@code data}: one tight loop per target and
   * encoding, a bulk copy for PLAIN values already in the vector's layout.
   */
  private void putValues(long data, int row, int at, int n) {
    if (dictionaryPage) {
      int[] id = ids;
      switch (target) {
        case INT8 -> {
          int[] dict = dictInts;
          long p = data + row;
          for (int i = 0; i < n; i++) {
            Raw.putByte(p + i, (byte) dict[id[at + i]]);
          }
        }
        case INT16 -> {
          int[] dict = dictInts;
          long p = data + row * 2L;
          for (int i = 0; i < n; i++) {
            Raw.putShort(p + i * 2L, (short) dict[id[at + i]]);
          }
        }
        case INT32 -> {
          int[] dict = dictInts;
          long p = data + row * 4L;
          for (int i = 0; i < n; i++) {
            Raw.putInt(p + i * 4L, dict[id[at + i]]);
          }
        }
        case INT64, INT32_AS_INT64, UINT32_AS_INT64 -> {
          long[] dict = dictLongs;
          long p = data + row * 8L;
          for (int i = 0; i < n; i++) {
            Raw.putLong(p + i * 8L, dict[id[at + i]]);
          }
        }
        case DECIMAL -> {
          long[] dict = dictLongs;
          long p = data + row * 16L;
          if (dictHigh == null) {
            for (int i = 0; i < n; i++) {
              long x = dict[id[at + i]];
              Raw.putLong(p + i * 16L, x);
              Raw.putLong(p + i * 16L + 8, x >> 63);
            }
          } else {
            long[] high = dictHigh;
            for (int i = 0; i < n; i++) {
              int k = id[at + i];
              Raw.putLong(p + i * 16L, dict[k]);
              Raw.putLong(p + i * 16L + 8, high[k]);
            }
          }
        }
        case FIXED -> {
          int w = typeLength;
          byte[] dict = dictBytes;
          int start = dictStart;
          long p = data + (long) row * w;
          for (int i = 0; i < n; i++) { // checkIds has kept each id inside the dictionary
            Raw.copy(dict, start + id[at + i] * w, p + (long) i * w, w);
          }
        }
        case BYTES, BITS ->
            throw new IllegalStateException(target + " values have no dictionary gather here");
      }
      return;
    }
    byte[] b = plain;
    switch (target) {
      case INT8 -> {
        int from = plainStart + at * 4;
        long p = data + row;
        for (int i = 0; i < n; i++) {
          Raw.putByte(p + i, b[from + i * 4]); // the low byte of a little-endian int
        }
      }
      case INT16 -> {
        int from = plainStart + at * 4;
        long p = data + row * 2L;
        for (int i = 0; i < n; i++) {
          Raw.putShort(p + i * 2L, (short) (int) INT_LE.get(b, from + i * 4));
        }
      }
      case INT32 -> {
        int from = plainStart + at * 4;
        long p = data + row * 4L;
        if (NATIVE_LITTLE_ENDIAN) {
          Raw.copy(b, from, p, n * 4);
        } else {
          for (int i = 0; i < n; i++) {
            Raw.putInt(p + i * 4L, (int) INT_LE.get(b, from + i * 4));
          }
        }
      }
      case INT64 -> {
        int from = plainStart + at * 8;
        long p = data + row * 8L;
        if (NATIVE_LITTLE_ENDIAN) {
          Raw.copy(b, from, p, n * 8);
        } else {
          for (int i = 0; i < n; i++) {
            Raw.putLong(p + i * 8L, (long) LONG_LE.get(b, from + i * 8));
          }
        }
      }
      case UINT32_AS_INT64 -> {
        int from = plainStart + at * 4;
        long p = data + row * 8L;
        for (int i = 0; i < n; i++) {
          Raw.putLong(p + i * 8L, Integer.toUnsignedLong((int) INT_LE.get(b, from + i * 4)));
        }
      }
      case INT32_AS_INT64 -> {
        int from = plainStart + at * 4;
        long p = data + row * 8L;
        for (int i = 0; i < n; i++) {
          Raw.putLong(p + i * 8L, (int) INT_LE.get(b, from + i * 4));
        }
      }
      case FIXED ->
          Raw.copy(b, plainStart + at * typeLength, data + (long) row * typeLength, n * typeLength);
      case BITS -> ParquetBits.copyTo(bools, at, data, row, n);
      case DECIMAL -> {
        long p = data + row * 16L;
        switch (layout) {
          case INT -> {
            int from = plainStart + at * 4;
            for (int i = 0; i < n; i++) {
              long x = (int) INT_LE.get(b, from + i * 4);
              Raw.putLong(p + i * 16L, x);
              Raw.putLong(p + i * 16L + 8, x >> 63);
            }
          }
          case LONG -> {
            int from = plainStart + at * 8;
            for (int i = 0; i < n; i++) {
              long x = (long) LONG_LE.get(b, from + i * 8);
              Raw.putLong(p + i * 16L, x);
              Raw.putLong(p + i * 16L + 8, x >> 63);
            }
          }
          case BIG_ENDIAN -> {
            int w = typeLength;
            int from = plainStart + at * w;
            if (w <= 8) {
              for (int i = 0; i < n; i++) {
                long x = bigEndian(b, from + i * w, w);
                Raw.putLong(p + i * 16L, x);
                Raw.putLong(p + i * 16L + 8, x >> 63);
              }
            } else {
              for (int i = 0; i < n; i++) {
                int v = from + i * w;
                Raw.putLong(p + i * 16L, (long) LONG_BE.get(b, v + w - 8));
                Raw.putLong(p + i * 16L + 8, bigEndian(b, v, w - 8));
              }
            }
          }
          case BYTES, BITS ->
              throw new IllegalStateException("a decimal is not stored as " + layout + " here");
        }
      }
      case BYTES -> throw new IllegalStateException("strings are read by readBytes");
    }
  }

  /** Sets bits {@code from..from+count} of the bitmap at {@code address}: whole bytes at once. */
  static void setBits(long address, int from, int count) {
    int i = from;
    int end = from + count;
    while (i < end && (i & 7) != 0) {
      Raw.setBit(address, i++);
    }
    for (; i + 64 <= end; i += 64) {
      Raw.putLong(address + (i >>> 3), -1L);
    }
    for (; i + 8 <= end; i += 8) {
      Raw.putByte(address + (i >>> 3), (byte) -1);
    }
    while (i < end) {
      Raw.setBit(address, i++);
    }
  }

  private void readBytes(BaseVariableWidthVector v, int rows) throws IOException {
    // One pass: values are copied as they are decoded, and the data buffer grows when needed
    // (sized from the previous batch, so it rarely does).
    startStrings(v, rows);
    long offsets = Raw.address(v.getOffsetBuffer(), (rows + 1) * 4L);
    long validity = Raw.address(v.getValidityBuffer(), (rows + 7) / 8);
    long pos = 0;
    Raw.putInt(offsets, 0);
    int done = 0;
    try {
      while (done < rows) {
        ensurePage();
        int n = Math.min(rows - done, pageRows - pageRow);
        if (allDefined) {
          setBits(validity, done, n);
          pos = putStrings(offsets, done, n, pos);
        } else {
          long[] d = valid;
          int end = pageRow + n;
          int at = pageRow;
          while (at < end) {
            int from = ParquetBits.nextSet(d, at, end);
            for (; at < from; at++) { // null rows: empty values
              Raw.putInt(offsets + (done + at - pageRow + 1) * 4L, (int) pos);
            }
            int to = ParquetBits.nextClear(d, from, end);
            if (to > from) {
              setBits(validity, done + from - pageRow, to - from);
              pos = putStrings(offsets, done + from - pageRow, to - from, pos);
            }
            at = to;
          }
        }
        pageRow += n;
        done += n;
      }
    } finally {
      strings = null;
    }
    v.setLastSet(rows - 1);
    bytesPerRow = Math.min(1 << 20, pos / Math.max(rows, 1) + 1);
  }

  /** Allocates {@code v} for {@code rows} strings and makes it the one being filled. */
  private void startStrings(BaseVariableWidthVector v, int rows) {
    v.allocateNew(Math.min(rows * bytesPerRow + 64, 1L << 26), rows);
    strings = v;
    stringCapacity = v.getDataBuffer().capacity();
    stringData = Raw.address(v.getDataBuffer(), stringCapacity);
  }

  /**
   * Appends {@code n} consecutive values of the current page to the string vector at byte {@code
   * pos}, setting the offsets of rows {@code row..row+n}; returns the new end.
   */
  private long putStrings(long offsets, int row, int n, long pos) throws IOException {
    if (dictionaryPage && dictWordCount > 0) {
      return putShortStrings(offsets, row, n, pos);
    }
    if (dictionaryPage) {
      byte[] b = dictBytes;
      int[] off = dictOffsets;
      int[] id = ids;
      int at = pageValue;
      for (int i = 0; i < n; i++) {
        int k = id[at + i];
        int start = off[k] + 4;
        int len = off[k + 1] - start;
        pos = putString(b, start, len, pos);
        Raw.putInt(offsets + (row + i + 1) * 4L, (int) pos);
      }
      pageValue = at + n;
      return pos;
    }
    seekPlain(pageValue);
    byte[] b = plain;
    int p = plainCursor;
    int end = plainEnd;
    for (int i = 0; i < n; i++) {
      checkLength(end, p, 4);
      int len = (int) INT_LE.get(b, p);
      checkLength(end, p + 4L, len);
      pos = putString(b, p + 4, len, pos);
      p += 4 + len;
      Raw.putInt(offsets + (row + i + 1) * 4L, (int) pos);
    }
    plainCursor = p;
    pageValue += n;
    plainCursorValue = pageValue;
    return pos;
  }

  /** Moves the plain string cursor forward to value {@code value} of the page. */
  private void seekPlain(int value) throws IOException {
    byte[] b = plain;
    int p = plainCursor;
    int end = plainEnd;
    for (int i = plainCursorValue; i < value; i++) {
      checkLength(end, p, 4);
      int len = (int) INT_LE.get(b, p);
      checkLength(end, p + 4L, len);
      p += 4 + len;
    }
    plainCursor = p;
    plainCursorValue = value;
  }

  /**
   * {@link #putStrings} for a dictionary of short values: each is written as its whole words, the
   * next value overwriting the zero padding, after one capacity check for the run.
   */
  private long putShortStrings(long offsets, int row, int n, long pos) throws IOException {
    int words = dictWordCount;
    long need = pos + (long) n * words * 8 + 8;
    if (need > stringCapacity) {
      growStrings(need);
    }
    long data = stringData;
    long[] w = dictWords;
    int[] lengths = dictLengths;
    int[] id = ids;
    int at = pageValue;
    long out = offsets + (row + 1) * 4L;
    if (words == 1) {
      for (int i = 0; i < n; i++) {
        int k = id[at + i];
        Raw.putLong(data + pos, w[k]);
        pos += lengths[k];
        Raw.putInt(out + i * 4L, (int) pos);
      }
    } else if (words == 2) {
      for (int i = 0; i < n; i++) {
        int k = id[at + i];
        Raw.putLong(data + pos, w[2 * k]);
        Raw.putLong(data + pos + 8, w[2 * k + 1]);
        pos += lengths[k];
        Raw.putInt(out + i * 4L, (int) pos);
      }
    } else {
      for (int i = 0; i < n; i++) {
        int k = id[at + i];
        for (int j = 0; j < words; j++) {
          Raw.putLong(data + pos + j * 8L, w[k * words + j]);
        }
        pos += lengths[k];
        Raw.putInt(out + i * 4L, (int) pos);
      }
    }
    pageValue = at + n;
    return pos;
  }

  /** Copies one value to byte {@code pos} of the string vector's data; returns its end. */
  private long putString(byte[] b, int start, int len, long pos) throws IOException {
    // 8 bytes of slack let short values go as whole words whose tail the next value overwrites.
    if (pos + len + 8 > stringCapacity) {
      growStrings(pos + len + 8);
    }
    long to = stringData + pos;
    if (len <= 64 && start + len + 8 <= b.length) {
      for (int k = 0; k < len; k += 8) {
        Raw.putLong(to + k, (long) LONG_NATIVE.get(b, start + k));
      }
    } else if (len <= 64) {
      for (int k = 0; k < len; k++) {
        Raw.putByte(to + k, b[start + k]);
      }
    } else {
      Raw.copy(b, start, to, len);
    }
    return pos + len;
  }

  private void growStrings(long needed) throws IOException {
    if (needed > Integer.MAX_VALUE) {
      throw new IOException("a batch's strings exceed 2 GiB; use a smaller batch size");
    }
    strings.reallocDataBuffer(Math.max(needed, stringCapacity * 2));
    stringCapacity = strings.getDataBuffer().capacity();
    stringData = Raw.address(strings.getDataBuffer(), stringCapacity);
  }

  /** Loads the next page when the current one is used up. */
  private void ensurePage() throws IOException {
    while (pageRow >= pageRows) {
      if (!dictionaryLoaded) {
        loadDictionary();
        dictionaryLoaded = true;
      }
      ParquetColumnPages.RawPage page = pages.readRawPage();
      if (page == null) {
        throw new IOException("the column chunk has fewer values than its row group");
      }
      loadPage(page);
    }
  }

  /**
   * Fills dictWords/dictLengths when every one of the {@code n} dictionary values is short and the
   * dictionary is small (a large one holds mostly distinct values, each copied about once).
   */
  private void shortWords(int n) {
    dictWordCount = 0;
    if (n == 0 || n > SHORT_DICTIONARY_VALUES) {
      return;
    }
    int longest = 0;
    for (int k = 0; k < n; k++) {
      longest = Math.max(longest, dictOffsets[k + 1] - dictOffsets[k] - 4);
    }
    int words = Math.max((longest + 7) >>> 3, 1);
    if (words > SHORT_WORDS) {
      return;
    }
    byte[] b = dictBytes;
    long[] w = new long[n * words];
    int[] lengths = new int[n];
    for (int k = 0; k < n; k++) {
      int start = dictOffsets[k] + 4;
      int len = dictOffsets[k + 1] - start;
      lengths[k] = len;
      for (int j = 0; j < words && j * 8 < len; j++) {
        int at = start + j * 8;
        int take = Math.min(8, len - j * 8);
        long word;
        if (at + 8 <= b.length) {
          word = (long) LONG_LE.get(b, at);
          if (take < 8) {
            word &= (1L << (take * 8)) - 1;
          }
        } else {
          word = 0;
          for (int q = 0; q < take; q++) {
            word |= (b[at + q] & 0xFFL) << (q * 8);
          }
        }
        w[k * words + j] = word;
      }
    }
    dictWords = w;
    dictLengths = lengths;
    dictWordCount = words;
  }

  private void loadDictionary() throws IOException {
    ParquetColumnPages.RawDictionary d = pages.rawDictionary();
    if (d == null) {
      return;
    }
    if (d.encoding() != Encoding.PLAIN && d.encoding() != Encoding.PLAIN_DICTIONARY) {
      throw new IOException("dictionary page encoding " + d.encoding() + " is not supported");
    }
    byte[] b = d.values().data();
    int at = d.values().start();
    int end = d.values().end();
    int n = d.count();
    if (n < 0) {
      throw new IOException("negative dictionary size " + n);
    }
    switch (layout) {
      case INT -> {
        checkLength(end, at, (long) n * 4);
        if (target == Target.INT32 || target == Target.INT8 || target == Target.INT16) {
          int[] dict = new int[n];
          ByteBuffer.wrap(b, at, n * 4).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(dict);
          dictInts = dict;
        } else {
          // Widened once here rather than once per value (DECIMAL and INT32_AS_INT64 signed).
          boolean unsigned = target == Target.UINT32_AS_INT64;
          long[] dict = new long[n];
          for (int i = 0; i < n; i++) {
            int x = (int) INT_LE.get(b, at + i * 4);
            dict[i] = unsigned ? Integer.toUnsignedLong(x) : x;
          }
          dictLongs = dict;
        }
      }
      case LONG -> {
        checkLength(end, at, (long) n * 8);
        long[] dict = new long[n];
        // One bulk (intrinsic) copy, byte-swapped only on a big-endian machine.
        ByteBuffer.wrap(b, at, n * 8).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(dict);
        dictLongs = dict;
      }
      case BIG_ENDIAN -> {
        int w = typeLength;
        checkLength(end, at, (long) n * w);
        if (target == Target.FIXED) {
          dictBytes = b;
          dictStart = at;
        } else if (w <= 8) {
          long[] dict = new long[n];
          for (int i = 0; i < n; i++) {
            dict[i] = bigEndian(b, at + i * w, w);
          }
          dictLongs = dict;
        } else {
          long[] low = new long[n];
          long[] high = new long[n];
          for (int i = 0; i < n; i++) {
            low[i] = (long) LONG_BE.get(b, at + i * w + w - 8);
            high[i] = bigEndian(b, at + i * w, w - 8);
          }
          dictLongs = low;
          dictHigh = high;
        }
      }
      case BYTES -> {
        dictOffsets = byteOffsets(b, at, end, n, new int[n + 1]);
        dictBytes = b;
        shortWords(n);
      }
      case BITS -> throw new IOException("a boolean column has a dictionary page");
    }
    dictionarySize = n;
  }

  private void loadPage(ParquetColumnPages.RawPage page) throws IOException {
    int rows = page.rows();
    if (rows < 0) {
      throw new IOException("a page has " + rows + " values");
    }
    byte[] levels = null;
    int levelsStart = 0;
    int levelsEnd = 0;
    byte[] values = page.values().data();
    int valuesStart = page.values().start();
    int valuesEnd = page.values().end();
    if (optional && page.levels() == null) {
      // V1: the definition levels come first, after their 4-byte length.
      checkLength(valuesEnd, valuesStart, 4);
      int len = (int) INT_LE.get(values, valuesStart);
      checkLength(valuesEnd, valuesStart + 4L, len);
      levels = values;
      levelsStart = valuesStart + 4;
      levelsEnd = levelsStart + len;
      valuesStart = levelsEnd;
    } else if (optional) {
      levels = page.levels().data();
      levelsStart = page.levels().start();
      levelsEnd = page.levels().end();
    }
    Encoding encoding = page.valueEncoding();
    int nonNull = rows;
    allDefined = true;
    if (optional && !oneRunOfOnes(levels, levelsStart, levelsEnd, rows)) {
      nonNull = decodeLevels(levels, levelsStart, levelsEnd, rows);
      allDefined = nonNull == rows;
    }
    dictionaryPage = encoding == Encoding.RLE_DICTIONARY || encoding == Encoding.PLAIN_DICTIONARY;
    if (nonNull == 0) {
      // Every row is null: no value is read, whatever (possibly nothing) the values section holds.
      dictionaryPage = false;
    } else if (dictionaryPage) {
      if (dictionarySize < 0) {
        throw new IOException("a dictionary-encoded page has no dictionary page");
      }
      checkLength(valuesEnd, valuesStart, 1);
      int bitWidth = values[valuesStart] & 0xFF;
      if (bitWidth > 32) {
        throw new IOException("dictionary id bit width " + bitWidth + " is over 32");
      }
      if (ids.length < nonNull) {
        ids = new int[nonNull];
        scratch.ids = ids;
      }
      decodeHybrid(values, valuesStart + 1, valuesEnd, bitWidth, ids, nonNull);
      checkIds(ids, nonNull, dictionarySize);
    } else if (encoding == Encoding.PLAIN) {
      plain = values;
      plainStart = valuesStart;
      plainEnd = valuesEnd;
      plainCursor = valuesStart;
      plainCursorValue = 0;
      switch (layout) {
        case INT -> checkLength(valuesEnd, valuesStart, (long) nonNull * 4);
        case LONG -> checkLength(valuesEnd, valuesStart, (long) nonNull * 8);
        case BIG_ENDIAN -> checkLength(valuesEnd, valuesStart, (long) nonNull * typeLength);
        case BYTES -> {} // each value's length is checked as it is read
        case BITS -> {
          checkLength(valuesEnd, valuesStart, (nonNull + 7L) / 8);
          ParquetBits.fromBytes(values, valuesStart, clearedBools(nonNull), nonNull);
        }
      }
    } else if (encoding == Encoding.RLE && layout == Layout.BITS) {
      // Booleans in the hybrid encoding of width 1, after their 4-byte length.
      checkLength(valuesEnd, valuesStart, 4);
      int len = (int) INT_LE.get(values, valuesStart);
      checkLength(valuesEnd, valuesStart + 4L, len);
      ParquetBits.decodeHybrid(
          values, valuesStart + 4, valuesStart + 4 + len, clearedBools(nonNull), nonNull);
    } else {
      throw new IOException("page encoding " + encoding + " is not supported");
    }
    pageRows = rows;
    pageRow = 0;
    pageValue = 0;
  }

  /**
   * Whether the definition levels are a single RLE run of 1s covering all {@code rows}: what every
   * writer emits for a page without nulls, recognised without decoding a level per row.
   */
  private static boolean oneRunOfOnes(byte[] b, int pos, int end, int rows) {
    long header = 0;
    int shift = 0;
    while (true) {
      if (pos >= end || shift > 28) {
        return false;
      }
      int x = b[pos++] & 0xFF;
      header |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        break;
      }
      shift += 7;
    }
    return (header & 1) == 0 && (header >>> 1) >= rows && pos < end && b[pos] == 1;
  }

  /** {@link #bools}, grown to hold {@code n} bits and zero there. */
  private long[] clearedBools(int n) {
    bools = ParquetBits.cleared(bools, n);
    scratch.bools = bools;
    return bools;
  }

  /** Decodes a page's definition levels into {@link #valid}; returns how many are 1. */
  private int decodeLevels(byte[] b, int pos, int end, int rows) throws IOException {
    valid = ParquetBits.cleared(valid, rows);
    scratch.valid = valid;
    return ParquetBits.decodeHybrid(b, pos, end, valid, rows);
  }

  /**
   * Fails when an id lies outside the dictionary: one branch-free OR reduction over the page (the
   * sign bit of {@code id | (size - 1 - id)} is set exactly when id is negative or at least size),
   * not a branch per value.
   */
  static void checkIds(int[] ids, int count, int dictionarySize) throws IOException {
    int last = dictionarySize - 1;
    int bad = 0;
    for (int i = 0; i < count; i++) {
      int id = ids[i];
      bad |= id | (last - id);
    }
    if (bad < 0) {
      for (int i = 0; i < count; i++) {
        if (ids[i] < 0 || ids[i] >= dictionarySize) {
          throw new IOException(
              "dictionary id "
                  + Integer.toUnsignedString(ids[i])
                  + " is outside the dictionary of "
                  + dictionarySize
                  + " values");
        }
      }
    }
  }

  /**
   * Positions of {@code n} length-prefixed byte strings from {@code at}: value i's length prefix is
   * at out[i], so its bytes run from out[i] + 4 to out[i + 1].
   */
  private static int[] byteOffsets(byte[] b, int at, int end, int n, int[] out) throws IOException {
    int p = at;
    for (int i = 0; i < n; i++) {
      checkLength(end, p, 4);
      int len = (int) INT_LE.get(b, p);
      checkLength(end, p + 4L, len);
      out[i] = p;
      p += 4 + len;
    }
    out[n] = p;
    return out;
  }

  /** Decodes {@code count} values of the RLE / bit-packing hybrid encoding into {@code out}. */
  static void decodeHybrid(byte[] b, int pos, int end, int bitWidth, int[] out, int count)
      throws IOException {
    int n = 0;
    int valueBytes = (bitWidth + 7) / 8;
    long mask = bitWidth == 32 ? 0xFFFFFFFFL : (1L << bitWidth) - 1;
    while (n < count) {
      if (pos >= end) {
        throw new IOException("run-length data ends after " + n + " of " + count + " values");
      }
      long read = ParquetBits.runHeader(b, pos, end);
      pos += (int) (read >>> ParquetBits.HEADER_LENGTH_SHIFT);
      long header = read & ParquetBits.HEADER_MASK;
      if ((header & 1) == 0) {
        int run = (int) Math.min(header >>> 1, count - n);
        checkLength(end, pos, valueBytes);
        int value = 0;
        for (int k = 0; k < valueBytes; k++) {
          value |= (b[pos + k] & 0xFF) << (8 * k);
        }
        pos += valueBytes;
        Arrays.fill(out, n, n + run, value);
        n += run;
      } else {
        long values = (header >>> 1) * 8;
        long bytes = (header >>> 1) * bitWidth;
        // The last group of a page may be cut short of its declared size.
        int take = (int) Math.min(values, count - n);
        if (bitWidth > 0 && pos + bytes <= end) {
          // The whole run is present: parquet-java's packers, generated per width, unpack each
          // group of 8 (32 at a time where possible) with fixed shifts; a partial last group goes
          // through a scratch group.
          BytePacker packer = PACKERS[bitWidth];
          int k = 0;
          int at = pos;
          for (; k + 32 <= take; k += 32, at += 4 * bitWidth) {
            packer.unpack32Values(b, at, out, n + k);
          }
          for (; k + 8 <= take; k += 8, at += bitWidth) {
            packer.unpack8Values(b, at, out, n + k);
          }
          if (k < take) {
            int[] group = new int[8];
            packer.unpack8Values(b, at, group, 0);
            System.arraycopy(group, 0, out, n + k, take - k);
          }
          n += take;
          pos += (int) bytes;
          continue;
        }
        long buffer = 0;
        int bits = 0;
        int p = pos;
        for (int k = 0; k < take; k++) {
          while (bits < bitWidth) {
            buffer |= (long) (p < end ? b[p] & 0xFF : 0) << bits;
            p++;
            bits += 8;
          }
          out[n + k] = (int) (buffer & mask);
          buffer >>>= bitWidth;
          bits -= bitWidth;
        }
        if (p > end && take == values) {
          throw new IOException("bit-packed run ends past the page");
        }
        n += take;
        pos = (int) Math.min((long) end, pos + bytes);
      }
    }
  }

  private static void checkLength(int limit, long at, long length) throws IOException {
    if (length < 0 || at + length > limit) {
      throw new IOException("a page is shorter than its values need");
    }
  }

  /**
   * The big-endian two's-complement integer in {@code length} (1 to 8) bytes at {@code p}: one
   * 8-byte load and an arithmetic shift (which extends the sign) where the array has 8 bytes there,
   * the byte loop only at its very end.
   */
  static long bigEndian(byte[] b, int p, int length) {
    if (p + 8 <= b.length) {
      return (long) LONG_BE.get(b, p) >> (64 - 8 * length);
    }
    long x = b[p]; // the sign extends from the first byte
    for (int k = 1; k < length; k++) {
      x = (x << 8) | (b[p + k] & 0xFF);
    }
    return x;
  }
}
