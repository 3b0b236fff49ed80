package dev.quiver.binding.physical.scan;

import dev.quiver.binding.physical.kernel.Raw;
import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.format.Encoding;

/**
 * Decodes a flat column chunk's pages a whole page at a time into primitive arrays, and copies them
 * into Arrow buffers with plain loops: the fast path of {@link ParquetRowGroupReader} for the
 * encodings nearly every writer uses (PLAIN and dictionary values, RLE definition levels).
 * parquet-java's column reader costs several calls per value; this costs a few array accesses.
 */
final class ParquetPageDecoder {
  /** Encodings (of values and levels) this decoder reads. */
  private static final Set<Encoding> ENCODINGS =
      Set.of(Encoding.PLAIN, Encoding.RLE, Encoding.RLE_DICTIONARY, Encoding.PLAIN_DICTIONARY);

  /** How values are stored: 4-byte ints, 8-byte longs, big-endian decimals, or byte strings. */
  enum Layout {
    INT,
    LONG,
    BIG_ENDIAN,
    BYTES
  }

  /** How values land in the vector. */
  enum Target {
    INT32,
    INT64,
    UINT32_AS_INT64,
    DECIMAL,
    BYTES
  }

  private final ParquetColumnPages pages;
  private final Layout layout;
  private final Target target;
  private final int typeLength;
  private final boolean optional;

  // The dictionary, decoded once per chunk (dictionarySize -1 when the chunk has none).
  private boolean dictionaryLoaded;
  private int dictionarySize = -1;
  private int[] dictInts;
  private long[] dictLongs;
  private byte[] dictBytes;
  private int[] dictOffsets;

  // The current page, decoded whole: definition levels, then either dictionary ids or plain
  // values; pageRow counts rows consumed, pageValue non-null values consumed.
  private int pageRows;
  private int pageRow;
  private int pageValue;
  private byte[] defined = new byte[0];
  private int[] levelBuffer = new int[0];
  private boolean dictionaryPage;
  private int[] ids = new int[0];
  private byte[] plain;
  private int plainStart;
  private int[] plainOffsets = new int[0]; // BYTES in a plain page: start of value i, then end

  private ParquetPageDecoder(
      ParquetColumnPages pages, Layout layout, Target target, int typeLength, boolean optional) {
    this.pages = pages;
    this.layout = layout;
    this.target = target;
    this.typeLength = typeLength;
    this.optional = optional;
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
    if (layout == null || target == null || !ENCODINGS.containsAll(encodings)) {
      return null;
    }
    if (layout == Layout.BIG_ENDIAN && (typeLength < 1 || typeLength > 8)) {
      return null;
    }
    return new ParquetPageDecoder(pages, layout, target, typeLength, optional);
  }

  /** Writes the next {@code rows} values into {@code vector} (allocated for them) at 0. */
  void read(FieldVector vector, int rows) throws IOException {
    if (target == Target.BYTES) {
      readBytes((BaseVariableWidthVector) vector, rows);
      return;
    }
    BaseFixedWidthVector v = (BaseFixedWidthVector) vector;
    long data = Raw.address(v.getDataBuffer(), (long) rows * width());
    long validity = Raw.address(v.getValidityBuffer(), (rows + 7) / 8);
    int done = 0;
    while (done < rows) {
      ensurePage();
      int n = Math.min(rows - done, pageRows - pageRow);
      for (int i = 0; i < n; i++) {
        if (optional && defined[pageRow + i] == 0) {
          continue;
        }
        int row = done + i;
        Raw.setBit(validity, row);
        int at = pageValue++;
        switch (target) {
          case INT32 -> Raw.putInt(data + row * 4L, intValue(at));
          case INT64 -> Raw.putLong(data + row * 8L, longValue(at));
          case UINT32_AS_INT64 ->
              Raw.putLong(data + row * 8L, Integer.toUnsignedLong(intValue(at)));
          case DECIMAL -> {
            long x = layout == Layout.INT ? intValue(at) : longValue(at);
            Raw.putLong(data + row * 16L, x);
            Raw.putLong(data + row * 16L + 8, x >> 63);
          }
          default -> throw new IllegalStateException("unexpected target " + target);
        }
      }
      pageRow += n;
      done += n;
    }
  }

  private int width() {
    return switch (target) {
      case INT32 -> 4;
      case INT64, UINT32_AS_INT64 -> 8;
      case DECIMAL -> 16;
      case BYTES -> 0;
    };
  }

  private int intValue(int at) {
    if (dictionaryPage) {
      return dictInts[ids[at]];
    }
    int p = plainStart + at * 4;
    return (plain[p] & 0xFF)
        | (plain[p + 1] & 0xFF) << 8
        | (plain[p + 2] & 0xFF) << 16
        | (plain[p + 3] & 0xFF) << 24;
  }

  private long longValue(int at) {
    if (dictionaryPage) {
      return dictLongs[ids[at]];
    }
    if (layout == Layout.BIG_ENDIAN) {
      return bigEndian(plain, plainStart + at * typeLength, typeLength);
    }
    return littleEndianLong(plain, plainStart + at * 8);
  }

  private byte[][] rowSources = new byte[0][];
  private int[] rowStarts = new int[0];
  private int[] rowEnds = new int[0];

  private void readBytes(BaseVariableWidthVector v, int rows) throws IOException {
    // Values may span pages: gather (array, start, end) per row first, then size the buffer once.
    if (rowSources.length < rows) {
      rowSources = new byte[rows][];
      rowStarts = new int[rows];
      rowEnds = new int[rows];
    }
    byte[][] src = rowSources;
    int[] start = rowStarts;
    int[] end = rowEnds;
    Arrays.fill(src, 0, rows, null);
    long total = 0;
    int done = 0;
    while (done < rows) {
      ensurePage();
      int n = Math.min(rows - done, pageRows - pageRow);
      for (int i = 0; i < n; i++) {
        if (optional && defined[pageRow + i] == 0) {
          continue;
        }
        int row = done + i;
        int at = pageValue++;
        if (dictionaryPage) {
          int id = ids[at];
          src[row] = dictBytes;
          start[row] = dictOffsets[id] + 4;
          end[row] = dictOffsets[id + 1];
        } else {
          src[row] = plain;
          start[row] = plainOffsets[at] + 4;
          end[row] = plainOffsets[at + 1];
        }
        total += end[row] - start[row];
      }
      pageRow += n;
      done += n;
    }
    v.allocateNew(Math.max(total, 1), rows);
    long offsets = Raw.address(v.getOffsetBuffer(), (rows + 1) * 4L);
    long data = Raw.address(v.getDataBuffer(), Math.max(total, 1));
    long validity = Raw.address(v.getValidityBuffer(), (rows + 7) / 8);
    int pos = 0;
    Raw.putInt(offsets, 0);
    for (int row = 0; row < rows; row++) {
      byte[] from = src[row];
      if (from != null) {
        Raw.setBit(validity, row);
        int at = start[row];
        int len = end[row] - at;
        // Codes and flags are a few bytes: a loop beats a bulk copy's per-call cost.
        if (len <= 16) {
          for (int k = 0; k < len; k++) {
            Raw.putByte(data + pos + k, from[at + k]);
          }
        } else {
          Raw.copy(from, at, data + pos, len);
        }
        pos += len;
      }
      Raw.putInt(offsets + (row + 1) * 4L, pos);
    }
    v.setLastSet(rows - 1);
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
        dictInts = new int[n];
        for (int i = 0; i < n; i++) {
          dictInts[i] = (int) littleEndianInt(b, at + i * 4);
        }
      }
      case LONG, BIG_ENDIAN -> {
        int w = layout == Layout.LONG ? 8 : typeLength;
        checkLength(end, at, (long) n * w);
        dictLongs = new long[n];
        for (int i = 0; i < n; i++) {
          int p = at + i * w;
          dictLongs[i] = layout == Layout.LONG ? littleEndianLong(b, p) : bigEndian(b, p, w);
        }
      }
      case BYTES -> {
        dictOffsets = byteOffsets(b, at, end, n, new int[n + 1]);
        dictBytes = b;
      }
    }
    dictionarySize = n;
  }

  private void loadPage(ParquetColumnPages.RawPage page) throws IOException {
    int rows = page.rows();
    byte[] levels = null;
    int levelsStart = 0;
    int levelsEnd = 0;
    byte[] values = page.values().data();
    int valuesStart = page.values().start();
    int valuesEnd = page.values().end();
    if (optional && page.levels() == null) {
      // V1: the definition levels come first, after their 4-byte length.
      checkLength(valuesEnd, valuesStart, 4);
      int len = (int) littleEndianInt(values, valuesStart);
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
    if (defined.length < rows) {
      defined = new byte[rows];
    }
    int nonNull = rows;
    if (optional) {
      if (levelBuffer.length < rows) {
        levelBuffer = new int[rows];
      }
      int[] lv = levelBuffer;
      decodeHybrid(levels, levelsStart, levelsEnd, 1, lv, rows);
      nonNull = 0;
      for (int i = 0; i < rows; i++) {
        defined[i] = (byte) lv[i];
        nonNull += lv[i];
      }
    }
    dictionaryPage = encoding == Encoding.RLE_DICTIONARY || encoding == Encoding.PLAIN_DICTIONARY;
    if (nonNull == 0) {
      // Every row is null: no value is read, whatever (possibly nothing) the values section holds.
      dictionaryPage = false;
    } else if (dictionaryPage) {
      if (dictionarySize < 0) {
        throw new IOException("a dictionary-encoded page has no dictionary page");
      }
      int dictSize = dictionarySize;
      checkLength(valuesEnd, valuesStart, 1);
      int bitWidth = values[valuesStart] & 0xFF;
      if (bitWidth > 32) {
        throw new IOException("dictionary id bit width " + bitWidth + " is over 32");
      }
      if (ids.length < nonNull) {
        ids = new int[nonNull];
      }
      decodeHybrid(values, valuesStart + 1, valuesEnd, bitWidth, ids, nonNull);
      for (int i = 0; i < nonNull; i++) {
        if (ids[i] < 0 || ids[i] >= dictSize) {
          throw new IOException("dictionary id " + ids[i] + " is outside the dictionary");
        }
      }
    } else if (encoding == Encoding.PLAIN) {
      plain = values;
      plainStart = valuesStart;
      switch (layout) {
        case INT -> checkLength(valuesEnd, valuesStart, (long) nonNull * 4);
        case LONG -> checkLength(valuesEnd, valuesStart, (long) nonNull * 8);
        case BIG_ENDIAN -> checkLength(valuesEnd, valuesStart, (long) nonNull * typeLength);
        case BYTES -> {
          if (plainOffsets.length < nonNull + 1) {
            plainOffsets = new int[nonNull + 1];
          }
          byteOffsets(values, valuesStart, valuesEnd, nonNull, plainOffsets);
        }
      }
    } else {
      throw new IOException("page encoding " + encoding + " is not supported");
    }
    pageRows = rows;
    pageRow = 0;
    pageValue = 0;
  }

  /**
   * Positions of {@code n} length-prefixed byte strings from {@code at}: value i's length prefix is
   * at out[i], so its bytes run from out[i] + 4 to out[i + 1].
   */
  private static int[] byteOffsets(byte[] b, int at, int end, int n, int[] out) throws IOException {
    int p = at;
    for (int i = 0; i < n; i++) {
      checkLength(end, p, 4);
      int len = (int) littleEndianInt(b, p);
      checkLength(end, p + 4, len);
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
      long header = 0;
      int shift = 0;
      while (true) {
        checkLength(end, pos, 1);
        int x = b[pos++] & 0xFF;
        header |= (long) (x & 0x7F) << shift;
        if ((x & 0x80) == 0) {
          break;
        }
        shift += 7;
        if (shift > 35) {
          throw new IOException("run header too long");
        }
      }
      if ((header & 1) == 0) {
        int run = (int) Math.min(header >>> 1, count - n);
        checkLength(end, pos, valueBytes);
        int value = 0;
        for (int k = 0; k < valueBytes; k++) {
          value |= (b[pos + k] & 0xFF) << (8 * k);
        }
        pos += valueBytes;
        java.util.Arrays.fill(out, n, n + run, value);
        n += run;
      } else {
        long values = (header >>> 1) * 8;
        long bytes = (header >>> 1) * bitWidth;
        // The last group of a page may be cut short of its declared size.
        int take = (int) Math.min(values, count - n);
        if (bitWidth > 0 && pos + bytes <= end) {
          // The whole run is present: each value is one unaligned 8-byte read, a shift and a mask.
          for (int k = 0; k < take; k++) {
            long bit = (long) k * bitWidth;
            int at = pos + (int) (bit >>> 3);
            long word = at + 8 <= end ? (long) LONG_LE.get(b, at) : tailWord(b, at, end);
            out[n + k] = (int) ((word >>> (bit & 7)) & mask);
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

  private static final java.lang.invoke.VarHandle LONG_LE =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
          long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

  /** The little-endian bytes from {@code at} to {@code end} (fewer than 8), zero-extended. */
  private static long tailWord(byte[] b, int at, int end) {
    long word = 0;
    for (int i = end - 1; i >= at; i--) {
      word = (word << 8) | (b[i] & 0xFF);
    }
    return word;
  }

  private static void checkLength(int limit, long at, long length) throws IOException {
    if (length < 0 || at + length > limit) {
      throw new IOException("a page is shorter than its values need");
    }
  }

  private static long littleEndianInt(byte[] b, int p) {
    return (b[p] & 0xFF)
        | (b[p + 1] & 0xFF) << 8
        | (b[p + 2] & 0xFF) << 16
        | (long) (b[p + 3] & 0xFF) << 24;
  }

  private static long littleEndianLong(byte[] b, int p) {
    return (littleEndianInt(b, p) & 0xFFFFFFFFL) | littleEndianInt(b, p + 4) << 32;
  }

  /** The big-endian two's-complement integer in {@code length} (1 to 8) bytes at {@code p}. */
  private static long bigEndian(byte[] b, int p, int length) {
    long x = b[p]; // the sign extends from the first byte
    for (int k = 1; k < length; k++) {
      x = (x << 8) | (b[p + k] & 0xFF);
    }
    return x;
  }
}
