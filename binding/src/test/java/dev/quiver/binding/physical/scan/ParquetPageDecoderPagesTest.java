package dev.quiver.binding.physical.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The page decoder's bulk paths on column chunks built page by page as writers lay them out (a
 * dictionary page, RLE_DICTIONARY pages, then PLAIN fallback pages; V1 and V2 pages; pages with no
 * nulls, some, and only nulls), read in batches that cross page boundaries. Every value is checked
 * against the values written and against parquet-java's column reader over the same bytes (the slow
 * path the row-group reader falls back to).
 */
@Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
class ParquetPageDecoderPagesTest {
  private RootAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).isZero();
    allocator.close();
  }

  /** How the test column is stored and read. */
  private record Shape(
      ParquetPageDecoder.Layout layout,
      ParquetPageDecoder.Target target,
      PrimitiveTypeName physical,
      int typeLength) {
    /** Whether values are BigIntegers (decimals over 8 bytes) rather than Longs. */
    boolean wide() {
      return layout == ParquetPageDecoder.Layout.BIG_ENDIAN && typeLength > 8;
    }
  }

  private static final Shape INT32 =
      new Shape(
          ParquetPageDecoder.Layout.INT,
          ParquetPageDecoder.Target.INT32,
          PrimitiveTypeName.INT32,
          0);
  private static final Shape INT64 =
      new Shape(
          ParquetPageDecoder.Layout.LONG,
          ParquetPageDecoder.Target.INT64,
          PrimitiveTypeName.INT64,
          0);
  private static final Shape UINT32 =
      new Shape(
          ParquetPageDecoder.Layout.INT,
          ParquetPageDecoder.Target.UINT32_AS_INT64,
          PrimitiveTypeName.INT32,
          0);
  private static final Shape DECIMAL_INT32 =
      new Shape(
          ParquetPageDecoder.Layout.INT,
          ParquetPageDecoder.Target.DECIMAL,
          PrimitiveTypeName.INT32,
          0);
  private static final Shape DECIMAL_INT64 =
      new Shape(
          ParquetPageDecoder.Layout.LONG,
          ParquetPageDecoder.Target.DECIMAL,
          PrimitiveTypeName.INT64,
          0);
  private static final Shape STRINGS =
      new Shape(
          ParquetPageDecoder.Layout.BYTES,
          ParquetPageDecoder.Target.BYTES,
          PrimitiveTypeName.BINARY,
          0);

  private static final Shape INT8 =
      new Shape(
          ParquetPageDecoder.Layout.INT,
          ParquetPageDecoder.Target.INT8,
          PrimitiveTypeName.INT32,
          0);
  private static final Shape INT16 =
      new Shape(
          ParquetPageDecoder.Layout.INT,
          ParquetPageDecoder.Target.INT16,
          PrimitiveTypeName.INT32,
          0);
  private static final Shape INT32_AS_INT64 =
      new Shape(
          ParquetPageDecoder.Layout.INT,
          ParquetPageDecoder.Target.INT32_AS_INT64,
          PrimitiveTypeName.INT32,
          0);
  private static final Shape BOOLEANS =
      new Shape(
          ParquetPageDecoder.Layout.BITS,
          ParquetPageDecoder.Target.BITS,
          PrimitiveTypeName.BOOLEAN,
          0);

  private static Shape flba(int length) {
    return new Shape(
        ParquetPageDecoder.Layout.BIG_ENDIAN,
        ParquetPageDecoder.Target.DECIMAL,
        PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY,
        length);
  }

  /** Fixed-length byte arrays copied verbatim (read back as big-endian numbers). */
  private static Shape fixed(int length) {
    return new Shape(
        ParquetPageDecoder.Layout.BIG_ENDIAN,
        ParquetPageDecoder.Target.FIXED,
        PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY,
        length);
  }

  /** Where a page's rows are null. */
  private enum Nulls {
    NONE,
    SOME,
    ALL
  }

  /** One page to write: its rows' values (null for a null row) and its encoding. */
  private record Page(List<Object> values, boolean dictionary, boolean v2) {}

  // ---------------------------------------------------------------- values

  /** A random value of the shape: Long for numbers, String for strings. */
  private static Object randomValue(Shape s, Random r, List<Object> pool) {
    if (!pool.isEmpty() && r.nextInt(3) > 0) {
      return pool.get(r.nextInt(pool.size()));
    }
    Object v =
        switch (s.layout()) {
          case INT -> (long) r.nextInt();
          case LONG -> r.nextLong();
          case BIG_ENDIAN -> {
            int bits = 8 * s.typeLength();
            if (s.wide()) {
              yield new java.math.BigInteger(bits, r).subtract(BigInteger.ONE.shiftLeft(bits - 1));
            }
            long x = r.nextLong();
            yield bits == 64 ? x : x >> (64 - bits); // the full signed range of the width
          }
          case BITS -> r.nextBoolean();
          case BYTES -> {
            // Empty, short (word copies), longer than 64 bytes (bulk copies), some non-ASCII; a
            // positive typeLength bounds the length instead (dictionaries of short values only).
            int len =
                s.typeLength() > 0
                    ? r.nextInt(s.typeLength() + 1)
                    : r.nextInt(10) == 0 ? 65 + r.nextInt(60) : r.nextInt(24);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < len; i++) {
              b.append(i % 17 == 5 ? 'é' : (char) ('a' + r.nextInt(26)));
            }
            yield b.toString();
          }
        };
    pool.add(v);
    return v;
  }

  /** Pages of random values with the given null pattern per page. */
  private static List<Page> pages(
      Shape s, Random r, int[] sizes, Nulls[] nulls, boolean[] dictionary, boolean v2) {
    List<Object> pool = new ArrayList<>();
    List<Page> out = new ArrayList<>();
    for (int p = 0; p < sizes.length; p++) {
      List<Object> values = new ArrayList<>();
      Object last = null;
      for (int i = 0; i < sizes[p]; i++) {
        boolean isNull =
            switch (nulls[p]) {
              case NONE -> false;
              case SOME -> r.nextInt(10) == 0 || (i >= 40 && i < 60); // single nulls and a run
              case ALL -> true;
            };
        if (isNull) {
          values.add(null);
        } else if (last != null && r.nextInt(4) == 0) {
          values.add(last); // repeats make RLE runs of dictionary ids
        } else {
          last = randomValue(s, r, pool);
          values.add(last);
        }
      }
      out.add(new Page(values, dictionary[p], v2));
    }
    return out;
  }

  // ---------------------------------------------------------------- encoding

  private static byte[] plain(Shape s, List<Object> values) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    if (s.layout() == ParquetPageDecoder.Layout.BITS) {
      List<Object> present = values.stream().filter(v -> v != null).toList();
      byte[] bits = new byte[(present.size() + 7) / 8];
      for (int i = 0; i < present.size(); i++) {
        if ((Boolean) present.get(i)) {
          bits[i >>> 3] |= (byte) (1 << (i & 7));
        }
      }
      return bits;
    }
    for (Object v : values) {
      if (v == null) {
        continue;
      }
      switch (s.layout()) {
        case INT -> le(b, ((Long) v), 4);
        case LONG -> le(b, ((Long) v), 8);
        case BIG_ENDIAN -> {
          BigInteger x = v instanceof Long l ? BigInteger.valueOf(l) : (BigInteger) v;
          byte[] two = x.toByteArray(); // minimal two's complement, sign-extended to the width
          for (int k = s.typeLength() - two.length; k > 0; k--) {
            b.write(x.signum() < 0 ? 0xFF : 0);
          }
          b.write(
              two, Math.max(0, two.length - s.typeLength()), Math.min(two.length, s.typeLength()));
        }
        case BITS -> throw new IllegalStateException("booleans are packed above");
        case BYTES -> {
          byte[] bytes = ((String) v).getBytes(StandardCharsets.UTF_8);
          le(b, bytes.length, 4);
          b.writeBytes(bytes);
        }
      }
    }
    return b.toByteArray();
  }

  private static void le(ByteArrayOutputStream b, long x, int bytes) {
    for (int k = 0; k < bytes; k++) {
      b.write((int) (x >>> (8 * k)));
    }
  }

  /** The RLE / bit-packing hybrid encoding of {@code values}, by parquet-java's encoder. */
  private static byte[] hybrid(int bitWidth, int[] values) throws IOException {
    try (RunLengthBitPackingHybridEncoder e =
        new RunLengthBitPackingHybridEncoder(
            bitWidth, 64, 1 << 20, HeapByteBufferAllocator.getInstance())) {
      for (int v : values) {
        e.writeInt(v);
      }
      return e.toBytes().toByteArray();
    }
  }

  private static int bitWidth(int maxValue) {
    return 32 - Integer.numberOfLeadingZeros(maxValue);
  }

  /** A column chunk: the dictionary page (when a page uses it), then the data pages. */
  private static byte[] chunk(Shape s, List<Page> pages, boolean optional) throws IOException {
    Map<Object, Integer> dict = new LinkedHashMap<>();
    for (Page p : pages) {
      if (dictionary(s, p)) {
        for (Object v : p.values()) {
          if (v != null) {
            dict.putIfAbsent(v, dict.size());
          }
        }
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (!dict.isEmpty()) {
      byte[] values = plain(s, new ArrayList<>(dict.keySet()));
      PageHeader h = new PageHeader(PageType.DICTIONARY_PAGE, values.length, values.length);
      h.setDictionary_page_header(new DictionaryPageHeader(dict.size(), Encoding.PLAIN));
      Util.writePageHeader(h, out);
      out.writeBytes(values);
    }
    for (Page p : pages) {
      List<Object> vs = p.values();
      int[] levels = vs.stream().mapToInt(v -> v == null ? 0 : 1).toArray();
      int nulls = (int) Arrays.stream(levels).filter(l -> l == 0).count();
      byte[] values;
      Encoding encoding;
      if (dictionary(s, p)) {
        int[] ids = vs.stream().filter(v -> v != null).mapToInt(dict::get).toArray();
        int width = bitWidth(dict.size() - 1);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(width);
        b.writeBytes(hybrid(width, ids));
        values = b.toByteArray();
        encoding = Encoding.RLE_DICTIONARY;
      } else if (s.layout() == ParquetPageDecoder.Layout.BITS && p.v2()) {
        // Booleans of V2 pages as DuckDB writes them: RLE, after their 4-byte length.
        int[] bits =
            vs.stream().filter(v -> v != null).mapToInt(v -> (Boolean) v ? 1 : 0).toArray();
        byte[] rle = hybrid(1, bits);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        le(b, rle.length, 4);
        b.writeBytes(rle);
        values = b.toByteArray();
        encoding = Encoding.RLE;
      } else {
        values = plain(s, vs);
        encoding = Encoding.PLAIN;
      }
      writeDataPage(
          out, vs.size(), nulls, encoding, optional ? hybrid(1, levels) : null, values, p);
    }
    return out.toByteArray();
  }

  /** Whether page {@code p} is dictionary-encoded (booleans never are). */
  private static boolean dictionary(Shape s, Page p) {
    return p.dictionary() && s.layout() != ParquetPageDecoder.Layout.BITS;
  }

  private static void writeDataPage(
      ByteArrayOutputStream out,
      int rows,
      int nulls,
      Encoding encoding,
      byte[] levels,
      byte[] values,
      Page p)
      throws IOException {
    int levelBytes = levels == null ? 0 : levels.length;
    if (p.v2()) {
      int size = levelBytes + values.length;
      PageHeader h = new PageHeader(PageType.DATA_PAGE_V2, size, size);
      DataPageHeaderV2 v2 = new DataPageHeaderV2(rows, nulls, rows, encoding, levelBytes, 0);
      v2.setIs_compressed(false);
      h.setData_page_header_v2(v2);
      Util.writePageHeader(h, out);
      if (levels != null) {
        out.writeBytes(levels);
      }
      out.writeBytes(values);
      return;
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (levels != null) {
      le(body, levels.length, 4);
      body.writeBytes(levels);
    }
    body.writeBytes(values);
    PageHeader h = new PageHeader(PageType.DATA_PAGE, body.size(), body.size());
    h.setData_page_header(new DataPageHeader(rows, encoding, Encoding.RLE, Encoding.RLE));
    Util.writePageHeader(h, out);
    out.writeBytes(body.toByteArray());
  }

  private static ColumnDescriptor descriptor(Shape s, boolean optional) {
    Types.PrimitiveBuilder<org.apache.parquet.schema.PrimitiveType> b =
        optional ? Types.optional(s.physical()) : Types.required(s.physical());
    if (s.physical() == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
      b.length(s.typeLength());
    }
    return new ColumnDescriptor(new String[] {"c"}, b.named("c"), 0, optional ? 1 : 0);
  }

  private static ParquetColumnPages columnPages(byte[] chunk, Shape s, boolean optional, int rows)
      throws IOException {
    return new ParquetColumnPages(
        chunk, 0, chunk.length, descriptor(s, optional), CompressionCodec.UNCOMPRESSED, rows);
  }

  private static final List<Encoding> ENCODINGS =
      List.of(Encoding.PLAIN, Encoding.RLE, Encoding.RLE_DICTIONARY);

  // ---------------------------------------------------------------- reading

  private FieldVector newVector(Shape s) {
    return switch (s.target()) {
      case INT8 -> new TinyIntVector("c", allocator);
      case INT16 -> new SmallIntVector("c", allocator);
      case INT32 -> new IntVector("c", allocator);
      case INT64, INT32_AS_INT64, UINT32_AS_INT64 -> new BigIntVector("c", allocator);
      case DECIMAL -> new DecimalVector("c", allocator, 38, 0);
      case FIXED -> new FixedSizeBinaryVector("c", allocator, s.typeLength());
      case BYTES -> new VarCharVector("c", allocator);
      case BITS -> new BitVector("c", allocator);
    };
  }

  /** What the fast decoder reads, in batches of {@code batch} rows, as Longs/Strings/nulls. */
  private List<Object> decode(Shape s, byte[] chunk, boolean optional, int rows, int batch)
      throws IOException {
    ParquetPageDecoder d =
        ParquetPageDecoder.of(
            columnPages(chunk, s, optional, rows),
            ENCODINGS,
            s.layout(),
            s.target(),
            s.typeLength(),
            optional);
    assertThat(d).isNotNull();
    List<Object> out = new ArrayList<>();
    for (int done = 0; done < rows; done += batch) {
      int n = Math.min(batch, rows - done);
      try (FieldVector v = newVector(s)) {
        if (v instanceof BaseFixedWidthVector fixed) {
          fixed.allocateNew(n);
        }
        d.read(v, n);
        v.setValueCount(n);
        for (int i = 0; i < n; i++) {
          out.add(value(s, v, i));
        }
      }
    }
    return out;
  }

  private static Object value(Shape s, FieldVector v, int i) {
    if (v.isNull(i)) {
      return null;
    }
    return switch (s.target()) {
      case INT8 -> (long) ((TinyIntVector) v).get(i);
      case INT16 -> (long) ((SmallIntVector) v).get(i);
      case INT32 -> (long) ((IntVector) v).get(i);
      case INT64, INT32_AS_INT64, UINT32_AS_INT64 -> ((BigIntVector) v).get(i);
      case DECIMAL -> number(s, ((DecimalVector) v).getObject(i).unscaledValue());
      case FIXED -> number(s, new BigInteger(((FixedSizeBinaryVector) v).get(i)));
      case BYTES -> new String(((VarCharVector) v).get(i), StandardCharsets.UTF_8);
      case BITS -> ((BitVector) v).get(i) == 1;
    };
  }

  /** A Long, or for wide shapes a BigInteger, as the test's values are. */
  private static Object number(Shape s, BigInteger x) {
    return s.wide() ? x : (Object) x.longValueExact();
  }

  /** What parquet-java's column reader reads from the same chunk. */
  private static List<Object> slowPath(Shape s, byte[] chunk, boolean optional, int rows)
      throws IOException {
    ColumnReaderImpl r =
        new ColumnReaderImpl(
            descriptor(s, optional),
            columnPages(chunk, s, optional, rows),
            new PrimitiveConverter() {},
            null);
    int max = optional ? 1 : 0;
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < rows; i++, r.consume()) {
      if (r.getCurrentDefinitionLevel() != max) {
        out.add(null);
        continue;
      }
      out.add(
          switch (s.physical()) {
            case INT32 -> (long) r.getInteger();
            case INT64 -> r.getLong();
            case FIXED_LEN_BYTE_ARRAY -> number(s, new BigInteger(r.getBinary().getBytes()));
            case BOOLEAN -> r.getBoolean();
            case BINARY -> r.getBinary().toStringUsingUTF8();
            default -> throw new IllegalArgumentException(s.physical().toString());
          });
    }
    return out;
  }

  /**
   * The values as the target vector holds them (UINT32 widened, INT32s sign-extended, INT8/16
   * truncated as the per-value path does), or with {@code raw} as parquet-java hands them out.
   */
  private static List<Object> expected(Shape s, List<Page> pages, boolean raw) {
    List<Object> out = new ArrayList<>();
    for (Page p : pages) {
      for (Object v : p.values()) {
        if (v != null && s.layout() == ParquetPageDecoder.Layout.INT) {
          int x = (int) (long) (Long) v;
          v =
              raw
                  ? (long) x
                  : switch (s.target()) {
                    case UINT32_AS_INT64 -> Integer.toUnsignedLong(x);
                    case INT8 -> (long) (byte) x;
                    case INT16 -> (long) (short) x;
                    default -> (long) x;
                  };
        }
        out.add(v);
      }
    }
    return out;
  }

  /** Writes the pages, then reads them in several batch sizes and compares every row. */
  private void check(Shape s, List<Page> pages, boolean optional) throws IOException {
    byte[] chunk = chunk(s, pages, optional);
    List<Object> want = expected(s, pages, false);
    int rows = want.size();
    assertThat(slowPath(s, chunk, optional, rows)).isEqualTo(expected(s, pages, true));
    for (int batch : new int[] {1, 7, 100, 333, rows}) {
      assertThat(decode(s, chunk, optional, rows, batch))
          .as("%s, batches of %d", s, batch)
          .isEqualTo(want);
    }
  }

  private static final Nulls[] MIXED_NULLS = {
    Nulls.NONE, Nulls.SOME, Nulls.ALL, Nulls.NONE, Nulls.SOME, Nulls.NONE, Nulls.ALL
  };
  private static final int[] SIZES = {300, 257, 64, 500, 129, 1, 200};
  private static final boolean[] DICT_THEN_PLAIN = {true, true, true, true, false, false, false};

  private List<Shape> shapes() {
    List<Shape> shapes =
        new ArrayList<>(
            List.of(
                INT8,
                INT16,
                INT32,
                INT64,
                INT32_AS_INT64,
                UINT32,
                DECIMAL_INT32,
                DECIMAL_INT64,
                STRINGS,
                BOOLEANS));
    for (int w = 1; w <= 16; w++) {
      shapes.add(flba(w));
    }
    for (int w : new int[] {1, 3, 8, 16}) {
      shapes.add(fixed(w));
    }
    return shapes;
  }

  @Test
  void pagesWithoutNullsReadInBulk() throws IOException {
    Random r = new Random(1);
    Nulls[] none = new Nulls[SIZES.length];
    Arrays.fill(none, Nulls.NONE);
    for (Shape s : shapes()) {
      check(s, pages(s, r, SIZES, none, DICT_THEN_PLAIN, false), true);
      check(s, pages(s, r, SIZES, none, DICT_THEN_PLAIN, false), false); // required column
    }
  }

  @Test
  void pagesWithSomeOrOnlyNullsKeepEachRowsPlace() throws IOException {
    Random r = new Random(2);
    for (Shape s : shapes()) {
      check(s, pages(s, r, SIZES, MIXED_NULLS, DICT_THEN_PLAIN, false), true);
    }
  }

  @Test
  void dataPagesV2ReadTheSame() throws IOException {
    Random r = new Random(3);
    for (Shape s : shapes()) {
      check(s, pages(s, r, SIZES, MIXED_NULLS, DICT_THEN_PLAIN, true), true);
    }
  }

  @Test
  void onlyPlainOrOnlyDictionaryPages() throws IOException {
    Random r = new Random(4);
    boolean[] allPlain = new boolean[SIZES.length];
    boolean[] allDict = new boolean[SIZES.length];
    Arrays.fill(allDict, true);
    for (Shape s : shapes()) {
      check(s, pages(s, r, SIZES, MIXED_NULLS, allPlain, false), true);
      check(s, pages(s, r, SIZES, MIXED_NULLS, allDict, false), true);
    }
  }

  @Test
  void dictionariesOfShortStringsAreCopiedAsWholeWords() throws IOException {
    // Dictionaries whose longest value fits 1, 2 or 3 words take the word-copy path; 25 bytes and
    // up take the general one. Every length from 0 to the bound occurs, with NULLs and then PLAIN.
    Random r = new Random(6);
    for (int longest : new int[] {1, 7, 8, 9, 16, 17, 24, 25}) {
      Shape s =
          new Shape(
              ParquetPageDecoder.Layout.BYTES,
              ParquetPageDecoder.Target.BYTES,
              PrimitiveTypeName.BINARY,
              longest);
      check(s, pages(s, r, SIZES, MIXED_NULLS, DICT_THEN_PLAIN, false), true);
      Nulls[] none = new Nulls[SIZES.length];
      Arrays.fill(none, Nulls.NONE);
      check(s, pages(s, r, SIZES, none, DICT_THEN_PLAIN, false), false);
    }
  }

  @Test
  void bigPagesWithWideIds() throws IOException {
    // A pool large enough for 12-16 bit ids, pages of thousands of rows (bit-packed groups).
    Random r = new Random(5);
    for (Shape s : List.of(INT64, flba(5), STRINGS)) {
      int[] sizes = {20_000, 12_768};
      check(
          s,
          pages(
              s, r, sizes, new Nulls[] {Nulls.NONE, Nulls.SOME}, new boolean[] {true, true}, false),
          true);
    }
  }

  @Test
  void negativeDecimalsOfEveryWidthSignExtend() throws IOException {
    for (int w = 1; w <= 8; w++) {
      Shape s = flba(w);
      long min = w == 8 ? Long.MIN_VALUE : -(1L << (8 * w - 1));
      long max = w == 8 ? Long.MAX_VALUE : (1L << (8 * w - 1)) - 1;
      List<Object> values = new ArrayList<>(List.of(min, -1L, 0L, 1L, max, min + 1, -2L));
      check(s, List.of(new Page(values, true, false), new Page(values, false, false)), true);
    }
  }

  /** A chunk whose only page refers to dictionary ids {@code ids} of a 3-value dictionary. */
  private static byte[] chunkWithIds(int bitWidth, int[] ids) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] dict = plain(INT64, List.of(10L, 20L, 30L));
    PageHeader h = new PageHeader(PageType.DICTIONARY_PAGE, dict.length, dict.length);
    h.setDictionary_page_header(new DictionaryPageHeader(3, Encoding.PLAIN));
    Util.writePageHeader(h, out);
    out.writeBytes(dict);
    ByteArrayOutputStream values = new ByteArrayOutputStream();
    values.write(bitWidth);
    values.writeBytes(hybrid(bitWidth, ids));
    int[] levels = new int[ids.length];
    Arrays.fill(levels, 1);
    writeDataPage(
        out,
        ids.length,
        0,
        Encoding.RLE_DICTIONARY,
        hybrid(1, levels),
        values.toByteArray(),
        new Page(List.of(), true, false));
    return out.toByteArray();
  }

  @Test
  void anIdBeyondTheDictionaryIsATypedError() throws IOException {
    // Bit-packed (id 5 among others) and an RLE run (twelve 3s): both past the 3 entries.
    int[] packed = {0, 1, 2, 5, 1, 0, 2, 1};
    int[] run = new int[12];
    Arrays.fill(run, 3);
    for (int[] ids : List.of(packed, run)) {
      byte[] chunk = chunkWithIds(3, ids);
      assertThatThrownBy(() -> decode(INT64, chunk, true, ids.length, ids.length))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("outside the dictionary of 3 values");
    }
    // Ids that fit read normally through the same builder.
    byte[] ok = chunkWithIds(2, new int[] {2, 1, 0, 2});
    assertThat(decode(INT64, ok, true, 4, 3)).containsExactly(30L, 20L, 10L, 30L);
  }

  @Test
  void idChecksCatchEveryOutOfRangeIdAndNothingElse() {
    int[] sizes = {0, 1, 2, 3, 22_000, Integer.MAX_VALUE};
    int[] probes = {0, 1, 2, 3, 21_999, 22_000, Integer.MAX_VALUE - 1, Integer.MAX_VALUE, -1, -2};
    for (int size : sizes) {
      for (int id : probes) {
        int[] ids = {0, id, 0};
        boolean valid = id >= 0 && id < size && size > 0;
        if (valid) {
          assertThatCode(() -> ParquetPageDecoder.checkIds(ids, 3, size))
              .doesNotThrowAnyException();
        } else {
          assertThatThrownBy(() -> ParquetPageDecoder.checkIds(ids, 3, size))
              .as("id %d of %d", id, size)
              .isInstanceOf(IOException.class)
              .hasMessageContaining("outside the dictionary");
        }
      }
    }
  }

  @Test
  void aDefinitionLevelOverOneIsATypedError() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] values = plain(INT64, List.of(1L, 2L, 3L, 4L));
    writeDataPage(
        out,
        4,
        0,
        Encoding.PLAIN,
        new byte[] {4 << 1, 2}, // an RLE run of four 2s
        values,
        new Page(List.of(), false, false));
    byte[] chunk = out.toByteArray();
    assertThatThrownBy(() -> decode(INT64, chunk, true, 4, 4))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("definition level");
  }

  @Test
  void aTruncatedPlainStringIsATypedError() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] values = plain(STRINGS, List.of("abc", "defgh"));
    byte[] cut = Arrays.copyOf(values, values.length - 2);
    writeDataPage(out, 2, 0, Encoding.PLAIN, null, cut, new Page(List.of(), false, false));
    byte[] chunk = out.toByteArray();
    assertThatThrownBy(() -> decode(STRINGS, chunk, false, 2, 2))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("shorter than its values need");
  }

  @Test
  void setBitsSetsExactlyTheRange() {
    try (IntVector v = new IntVector("bits", allocator)) {
      v.allocateNew(300);
      long validity = v.getValidityBuffer().memoryAddress();
      int[][] ranges = {{0, 0}, {3, 5}, {13, 140}, {160, 64}, {230, 70}};
      boolean[] want = new boolean[300];
      for (int[] range : ranges) {
        ParquetPageDecoder.setBits(validity, range[0], range[1]);
        Arrays.fill(want, range[0], range[0] + range[1], true);
      }
      v.setValueCount(300);
      for (int i = 0; i < 300; i++) {
        assertThat(!v.isNull(i)).as("bit %d", i).isEqualTo(want[i]);
      }
    }
  }

  @Test
  void bigEndianReadsEveryWidthAtTheEndOfTheArrayToo() {
    Random r = new Random(6);
    for (int w = 1; w <= 8; w++) {
      for (int trial = 0; trial < 200; trial++) {
        long x = w == 8 ? r.nextLong() : r.nextLong() >> (64 - 8 * w);
        byte[] b = new byte[w + 9];
        for (int k = 0; k < w; k++) {
          b[1 + k] = (byte) (x >>> (8 * (w - 1 - k)));
          b[b.length - w + k] = b[1 + k];
        }
        assertThat(ParquetPageDecoder.bigEndian(b, 1, w)).isEqualTo(x); // one 8-byte load
        assertThat(ParquetPageDecoder.bigEndian(b, b.length - w, w)).isEqualTo(x); // byte loop
      }
    }
  }
}
