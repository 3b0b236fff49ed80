package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedWidthVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Column helpers over Arrow vectors shared by expressions, aggregates and window functions:
 * allocation, generic value access and row gathering for the vectors expressions produce, with the
 * SQL {@link Kind} of a type; and for aggregates and window functions, the {@link Storage} of a
 * type's values in primitive arrays, reading a column into such arrays and building a column from
 * them, all over Arrow buffers.
 */
public final class Vectors {
  private Vectors() {}

  static final long MICROS_PER_DAY = 86_400_000_000L;

  /** Allocates an empty vector of {@code type} with room for {@code n} values. */
  public static FieldVector allocate(ArrowType type, int n, BufferAllocator allocator) {
    if (type instanceof ArrowType.Null) {
      NullVector v = new NullVector("expr", n);
      return v;
    }
    FieldVector v = Field.nullable("expr", type).createVector(allocator);
    try {
      if (v instanceof BaseVariableWidthVector vw) {
        vw.allocateNew(Math.max(16L, n * 16L), Math.max(n, 1));
      } else if (v instanceof FixedWidthVector fw) {
        fw.allocateNew(Math.max(n, 1));
      } else {
        v.allocateNew();
      }
    } catch (OutOfMemoryException e) {
      v.close();
      throw outOfMemory(n, e);
    }
    return v;
  }

  /** Converts an allocator-limit failure into the engine's typed error. */
  static ResourcesExhaustedException outOfMemory(int n, OutOfMemoryException e) {
    return new ResourcesExhaustedException(
        "Expression evaluation could not allocate memory for "
            + n
            + " values; raise the memory limit or lower the batch size",
        e);
  }

  /** Converts Arrow's allocator-limit failure into the engine's typed error; returns others. */
  static RuntimeException rethrow(RuntimeException e) {
    if (e instanceof OutOfMemoryException oom) {
      return new ResourcesExhaustedException(
          "Expression evaluation ran out of memory; raise the memory limit or lower the batch size",
          oom);
    }
    return e;
  }

  /** A vector of {@code n} nulls of {@code type}. */
  public static FieldVector nulls(ArrowType type, int n, BufferAllocator allocator) {
    FieldVector v = allocate(type, n, allocator);
    v.setValueCount(n);
    return v;
  }

  /** Value kind used to pick a kernel. */
  enum Kind {
    INT,
    DOUBLE,
    DECIMAL,
    STRING,
    BOOL,
    DATE,
    TIMESTAMP,
    NULL,
    INTERVAL_DAY_TIME,
    INTERVAL_MONTHS,
    OTHER
  }

  static Kind kind(ArrowType t) {
    switch (t.getTypeID()) {
      case Int:
        return Kind.INT;
      case FloatingPoint:
        return Kind.DOUBLE;
      case Decimal:
        return Kind.DECIMAL;
      case Utf8:
      case LargeUtf8:
        return Kind.STRING;
      case Bool:
        return Kind.BOOL;
      case Date:
        return Kind.DATE;
      case Timestamp:
        return Kind.TIMESTAMP;
      case Null:
        return Kind.NULL;
      case Interval:
        return ((ArrowType.Interval) t).getUnit()
                == org.apache.arrow.vector.types.IntervalUnit.YEAR_MONTH
            ? Kind.INTERVAL_MONTHS
            : Kind.INTERVAL_DAY_TIME;
      default:
        return Kind.OTHER;
    }
  }

  /** SQL-style name of an Arrow type, for error messages. */
  public static String sqlName(ArrowType t) {
    switch (t.getTypeID()) {
      case Int:
        int w = ((ArrowType.Int) t).getBitWidth();
        return w == 64 ? "BIGINT" : w == 32 ? "INTEGER" : w == 16 ? "SMALLINT" : "TINYINT";
      case FloatingPoint:
        return ((ArrowType.FloatingPoint) t).getPrecision() == FloatingPointPrecision.SINGLE
            ? "REAL"
            : "DOUBLE";
      case Decimal:
        ArrowType.Decimal d = (ArrowType.Decimal) t;
        return "DECIMAL(" + d.getPrecision() + ", " + d.getScale() + ")";
      case Utf8:
      case LargeUtf8:
        return "VARCHAR";
      case Bool:
        return "BOOLEAN";
      case Date:
        return "DATE";
      case Timestamp:
        return "TIMESTAMP";
      case Time:
        return "TIME";
      case Struct:
        return "STRUCT";
      case List:
      case LargeList:
      case FixedSizeList:
        return "LIST";
      case Map:
        return "MAP";
      case Null:
        return "NULL";
      case Interval:
        return kind(t) == Kind.INTERVAL_MONTHS
            ? "INTERVAL YEAR TO MONTH"
            : "INTERVAL DAY TO SECOND";
      default:
        return t.toString();
    }
  }

  static int decimalScale(ArrowType t) {
    return ((ArrowType.Decimal) t).getScale();
  }

  static int decimalPrecision(ArrowType t) {
    return ((ArrowType.Decimal) t).getPrecision();
  }

  static int intWidth(ArrowType t) {
    return ((ArrowType.Int) t).getBitWidth();
  }

  /**
   * The value at row {@code i} in the literal convention (Long, Double, BigDecimal, String,
   * Boolean, LocalDate, Long micros for timestamps, Long millis or months for intervals), or null.
   * For slow paths only.
   */
  public static Object getValue(FieldVector v, int i) {
    if (v instanceof NullVector || v.isNull(i)) {
      return null;
    }
    if (v instanceof BigIntVector b) {
      return b.get(i);
    }
    if (v instanceof IntVector b) {
      return (long) b.get(i);
    }
    if (v instanceof SmallIntVector b) {
      return (long) b.get(i);
    }
    if (v instanceof TinyIntVector b) {
      return (long) b.get(i);
    }
    if (v instanceof Float8Vector b) {
      return b.get(i);
    }
    if (v instanceof Float4Vector b) {
      return (double) b.get(i);
    }
    if (v instanceof DecimalVector b) {
      return new BigDecimal(Decimals.big(b.getDataBuffer(), i), b.getScale());
    }
    if (v instanceof VarCharVector b) {
      return new String(b.get(i), StandardCharsets.UTF_8);
    }
    if (v instanceof BitVector b) {
      return b.get(i) != 0;
    }
    if (v instanceof DateDayVector b) {
      return LocalDate.ofEpochDay(b.get(i));
    }
    if (v instanceof DateMilliVector b) {
      return LocalDate.ofEpochDay(Math.floorDiv(b.get(i), 86_400_000L));
    }
    if (v instanceof TimeStampVector b) {
      return toMicros(b.get(i), (ArrowType.Timestamp) b.getField().getType());
    }
    if (v instanceof IntervalDayVector b) {
      ArrowBuf data = b.getDataBuffer();
      return data.getInt(i * 8L) * 86_400_000L + data.getInt(i * 8L + 4);
    }
    if (v instanceof IntervalYearVector b) {
      return (long) b.get(i);
    }
    throw new QueryTypeException(
        "Values of type " + sqlName(v.getField().getType()) + " are not supported in expressions");
  }

  static long toMicros(long value, ArrowType.Timestamp t) {
    switch (t.getUnit()) {
      case SECOND:
        return value * 1_000_000L;
      case MILLISECOND:
        return value * 1_000L;
      case NANOSECOND:
        return Math.floorDiv(value, 1_000L);
      default:
        return value;
    }
  }

  static long fromMicros(long micros, ArrowType.Timestamp t) {
    switch (t.getUnit()) {
      case SECOND:
        return Math.floorDiv(micros, 1_000_000L);
      case MILLISECOND:
        return Math.floorDiv(micros, 1_000L);
      case NANOSECOND:
        return micros * 1_000L;
      default:
        return micros;
    }
  }

  /**
   * Sets row {@code i} from a value in the literal convention (null sets null); grows as needed.
   */
  public static void setValue(FieldVector v, int i, Object value) {
    if (v instanceof NullVector) {
      return;
    }
    if (value == null) {
      if (v instanceof BaseFixedWidthVector f) {
        f.setNull(i);
      } else if (v instanceof BaseVariableWidthVector vw) {
        vw.setNull(i);
      }
      return;
    }
    if (v instanceof BigIntVector b) {
      b.setSafe(i, ((Number) value).longValue());
    } else if (v instanceof IntVector b) {
      b.setSafe(i, ((Number) value).intValue());
    } else if (v instanceof SmallIntVector b) {
      b.setSafe(i, ((Number) value).shortValue());
    } else if (v instanceof TinyIntVector b) {
      b.setSafe(i, ((Number) value).byteValue());
    } else if (v instanceof Float8Vector b) {
      b.setSafe(i, ((Number) value).doubleValue());
    } else if (v instanceof Float4Vector b) {
      b.setSafe(i, ((Number) value).floatValue());
    } else if (v instanceof DecimalVector b) {
      BigDecimal d = (BigDecimal) value;
      BigInteger u = d.setScale(b.getScale(), RoundingMode.HALF_UP).unscaledValue();
      if (!Decimals.fits(u, b.getPrecision())) {
        throw Decimals.overflow(d, b.getPrecision(), b.getScale());
      }
      while (i >= b.getValueCapacity()) {
        b.reAlloc();
      }
      b.setIndexDefined(i);
      Decimals.setBig(b.getDataBuffer(), i, u);
    } else if (v instanceof VarCharVector b) {
      b.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof BitVector b) {
      b.setSafe(i, ((Boolean) value) ? 1 : 0);
    } else if (v instanceof DateDayVector b) {
      b.setSafe(i, Math.toIntExact(((LocalDate) value).toEpochDay()));
    } else if (v instanceof DateMilliVector b) {
      b.setSafe(i, ((LocalDate) value).toEpochDay() * 86_400_000L);
    } else if (v instanceof TimeStampVector b) {
      long micros = ((Number) value).longValue();
      while (i >= b.getValueCapacity()) {
        b.reAlloc();
      }
      b.setIndexDefined(i);
      b.getDataBuffer()
          .setLong(i * 8L, fromMicros(micros, (ArrowType.Timestamp) b.getField().getType()));
    } else if (v instanceof IntervalDayVector b) {
      long millis = ((Number) value).longValue();
      b.setSafe(i, (int) (millis / 86_400_000L), (int) (millis % 86_400_000L));
    } else if (v instanceof IntervalYearVector b) {
      b.setSafe(i, ((Number) value).intValue());
    } else {
      throw new QueryTypeException(
          "Values of type "
              + sqlName(v.getField().getType())
              + " are not supported in expressions");
    }
  }

  /**
   * Builds a vector whose row i is row i of {@code sources[which[i]]} (null when {@code which[i]}
   * is negative or the source is null). Sources must have type {@code type}.
   */
  static FieldVector gather(
      ArrowType type, FieldVector[] sources, int[] which, int n, BufferAllocator allocator) {
    FieldVector out = allocate(type, n, allocator);
    try {
      if (out instanceof NullVector) {
        out.setValueCount(n);
        return out;
      }
      long[][] valid = new long[sources.length][];
      boolean sameTypes = true;
      for (int k = 0; k < sources.length; k++) {
        if (sources[k] != null) {
          valid[k] = Bits.validityOrOnes(sources[k], n);
          sameTypes &=
              sources[k] instanceof NullVector || sources[k].getField().getType().equals(type);
        }
      }
      long[] outValid = new long[Bits.words(n)];
      for (int i = 0; i < n; i++) {
        int k = which[i];
        if (k >= 0 && sources[k] != null && Bits.get(valid[k], i)) {
          Bits.set(outValid, i);
        }
      }
      if (!sameTypes) {
        for (int i = 0; i < n; i++) {
          if (Bits.get(outValid, i)) {
            setValue(out, i, getValue(sources[which[i]], i));
          }
        }
      } else if (out instanceof BitVector) {
        long[][] data = new long[sources.length][];
        for (int k = 0; k < sources.length; k++) {
          if (sources[k] instanceof BitVector b) {
            data[k] = Bits.load(b.getDataBuffer(), n);
          }
        }
        long[] bits = new long[Bits.words(n)];
        for (int i = 0; i < n; i++) {
          if (Bits.get(outValid, i) && Bits.get(data[which[i]], i)) {
            Bits.set(bits, i);
          }
        }
        Bits.store(bits, out.getDataBuffer(), n);
      } else if (out instanceof BaseFixedWidthVector fixed) {
        int width = fixed.getTypeWidth();
        ArrowBuf dst = out.getDataBuffer();
        for (int i = 0; i < n; i++) {
          if (Bits.get(outValid, i)) {
            ArrowBuf src = sources[which[i]].getDataBuffer();
            if (width == 8) {
              dst.setLong(i * 8L, src.getLong(i * 8L));
            } else if (width == 4) {
              dst.setInt(i * 4L, src.getInt(i * 4L));
            } else {
              dst.setBytes((long) i * width, src, (long) i * width, width);
            }
          }
        }
      } else if (out instanceof VarCharVector vc) {
        for (int i = 0; i < n; i++) {
          if (Bits.get(outValid, i)) {
            FieldVector src = sources[which[i]];
            ArrowBuf offsets = src.getOffsetBuffer();
            int start = offsets.getInt(i * 4L);
            int end = offsets.getInt(i * 4L + 4);
            vc.setSafe(i, start, end - start, src.getDataBuffer());
          }
        }
      } else {
        for (int i = 0; i < n; i++) {
          if (Bits.get(outValid, i)) {
            setValue(out, i, getValue(sources[which[i]], i));
          }
        }
      }
      Bits.storeValidity(outValid, out, n);
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }

  /** How a type's values are held in primitive arrays (aggregates, window functions). */
  public enum Storage {
    /** Integers, dates, times, timestamps: a signed long. */
    LONG,
    /** FLOAT and DOUBLE: a double. */
    DOUBLE,
    /** DECIMAL(p, s): an unscaled 128-bit integer. */
    DECIMAL,
    /** Utf8 and binary: bytes. */
    BYTES,
    /** Boolean: 0 or 1. */
    BOOL,
    /** The untyped NULL: always null. */
    NULL
  }

  public static final long[] POW10 = new long[19];
  private static final BigInteger MASK64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  static {
    POW10[0] = 1;
    for (int i = 1; i < POW10.length; i++) {
      POW10[i] = POW10[i - 1] * 10;
    }
  }

  /** The storage kind of {@code type}; throws for types the engine does not compute on. */
  public static Storage storage(ArrowType type) {
    if (type instanceof ArrowType.Int
        || type instanceof ArrowType.Date
        || type instanceof ArrowType.Timestamp
        || type instanceof ArrowType.Time
        || type instanceof ArrowType.Duration) {
      return Storage.LONG;
    }
    if (type instanceof ArrowType.FloatingPoint) {
      return Storage.DOUBLE;
    }
    if (type instanceof ArrowType.Decimal d && d.getBitWidth() == 128) {
      return Storage.DECIMAL;
    }
    if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.Binary) {
      return Storage.BYTES;
    }
    if (type instanceof ArrowType.Bool) {
      return Storage.BOOL;
    }
    if (type instanceof ArrowType.Null) {
      return Storage.NULL;
    }
    throw new QueryTypeException(
        "Type " + type + " is not supported here; cast it to a number, string, date or timestamp");
  }

  /** Scale of a decimal type (0 for anything else). */
  public static int scale(ArrowType type) {
    return type instanceof ArrowType.Decimal d ? d.getScale() : 0;
  }

  /** True when row {@code i} of {@code v} is non-null; for occasional rows (it scans for nulls). */
  public static boolean valid(FieldVector v, int i) {
    if (v instanceof NullVector) {
      return false;
    }
    return v.getNullCount() == 0 || BitVectorHelper.get(v.getValidityBuffer(), i) != 0;
  }

  /** Fills {@code out[0..rows)} with validity flags; returns false if every row is valid. */
  public static boolean nulls(FieldVector v, int rows, boolean[] outNull) {
    if (v instanceof NullVector) {
      Arrays.fill(outNull, 0, rows, true);
      return rows > 0;
    }
    if (v.getNullCount() == 0) {
      Arrays.fill(outNull, 0, rows, false);
      return false;
    }
    ArrowBuf validity = v.getValidityBuffer();
    for (int i = 0; i < rows; i++) {
      outNull[i] = BitVectorHelper.get(validity, i) == 0;
    }
    return true;
  }

  /** Reads rows [0, rows) of an integer-like or boolean column as longs (nulls read as 0). */
  public static long[] longs(FieldVector v, int rows, long[] buf) {
    long[] out = buf != null && buf.length >= rows ? buf : new long[Math.max(rows, 16)];
    if (v instanceof NullVector) {
      Arrays.fill(out, 0, rows, 0L);
      return out;
    }
    if (v instanceof BitVector bits) {
      ArrowBuf data = bits.getDataBuffer();
      for (int i = 0; i < rows; i++) {
        out[i] = BitVectorHelper.get(data, i);
      }
      return out;
    }
    if (!(v instanceof BaseFixedWidthVector fixed)) {
      throw new QueryTypeException(
          "Column "
              + v.getName()
              + " of type "
              + v.getField().getType()
              + " is not an integer type");
    }
    ArrowBuf data = fixed.getDataBuffer();
    switch (fixed.getTypeWidth()) {
      case 8 -> {
        for (int i = 0; i < rows; i++) {
          out[i] = data.getLong((long) i * 8);
        }
      }
      case 4 -> {
        for (int i = 0; i < rows; i++) {
          out[i] = data.getInt((long) i * 4);
        }
      }
      case 2 -> {
        for (int i = 0; i < rows; i++) {
          out[i] = data.getShort((long) i * 2);
        }
      }
      case 1 -> {
        for (int i = 0; i < rows; i++) {
          out[i] = data.getByte(i);
        }
      }
      default ->
          throw new QueryTypeException(
              "Column "
                  + v.getName()
                  + " of type "
                  + v.getField().getType()
                  + " is not an integer type");
    }
    return out;
  }

  /** Reads rows [0, rows) of any numeric column as doubles (nulls read as 0). */
  public static double[] doubles(FieldVector v, int rows, double[] buf) {
    double[] out = buf != null && buf.length >= rows ? buf : new double[Math.max(rows, 16)];
    ArrowType type = v.getField().getType();
    if (type instanceof ArrowType.FloatingPoint fp) {
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      if (fp.getPrecision() == FloatingPointPrecision.DOUBLE) {
        for (int i = 0; i < rows; i++) {
          out[i] = data.getDouble((long) i * 8);
        }
      } else {
        for (int i = 0; i < rows; i++) {
          out[i] = data.getFloat((long) i * 4);
        }
      }
      return out;
    }
    if (type instanceof ArrowType.Decimal d) {
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      double div = Math.pow(10, d.getScale());
      for (int i = 0; i < rows; i++) {
        long lo = data.getLong((long) i * 16);
        long hi = data.getLong((long) i * 16 + 8);
        out[i] = hi == (lo >> 63) ? lo / div : decimalAt(data, i, d.getScale()).doubleValue();
      }
      return out;
    }
    long[] tmp = longs(v, rows, null);
    for (int i = 0; i < rows; i++) {
      out[i] = tmp[i];
    }
    return out;
  }

  /** The decimal at row {@code i} of a 16-byte decimal buffer. */
  public static BigDecimal decimalAt(ArrowBuf data, int i, int scale) {
    return new BigDecimal(bigAt(data, i), scale);
  }

  /** The unscaled 128-bit integer at row {@code i} of a 16-byte decimal buffer. */
  public static BigInteger bigAt(ArrowBuf data, int i) {
    return big(data.getLong((long) i * 16), data.getLong((long) i * 16 + 8));
  }

  /** Low 64 bits of a 128-bit integer. */
  public static long lo(BigInteger v) {
    return v.longValue();
  }

  /** High 64 bits of a 128-bit integer. */
  public static long hi(BigInteger v) {
    return v.shiftRight(64).longValue();
  }

  /** 128-bit value from two halves. */
  public static BigInteger big(long lo, long hi) {
    return BigInteger.valueOf(hi).shiftLeft(64).or(BigInteger.valueOf(lo).and(MASK64));
  }

  /** Creates an empty vector of {@code field} with room for {@code n} values. */
  public static FieldVector allocate(Field field, int n, BufferAllocator allocator) {
    FieldVector v = field.createVector(allocator);
    if (v instanceof BaseFixedWidthVector f) {
      f.allocateNew(Math.max(n, 1));
    } else if (!(v instanceof NullVector)) {
      v.setInitialCapacity(Math.max(n, 1));
      v.allocateNew();
    }
    return v;
  }

  /**
   * Builds a column of {@code field}'s type from logical long values (raw storage for dates and
   * timestamps, integer value for numbers); {@code valid == null} means no nulls.
   */
  public static FieldVector fromLongs(
      Field field, long[] vals, boolean[] valid, int n, BufferAllocator allocator) {
    ArrowType type = field.getType();
    if (type instanceof ArrowType.FloatingPoint) {
      double[] d = new double[n];
      for (int i = 0; i < n; i++) {
        d[i] = vals[i];
      }
      return fromDoubles(field, d, valid, n, allocator);
    }
    if (type instanceof ArrowType.Decimal dec) {
      BigInteger[] big = null;
      long[] lo = new long[n];
      long mul = dec.getScale() < 19 ? POW10[dec.getScale()] : 0;
      for (int i = 0; i < n; i++) {
        long r;
        if (mul != 0 && (r = multiplyExactOrFlag(vals[i], mul)) != Long.MIN_VALUE) {
          lo[i] = r;
        } else {
          if (big == null) {
            big = new BigInteger[n];
          }
          big[i] = BigInteger.valueOf(vals[i]).multiply(BigInteger.TEN.pow(dec.getScale()));
        }
      }
      return fromDecimal(field, lo, big, dec.getScale(), valid, n, allocator);
    }
    FieldVector v = allocate(field, n, allocator);
    try {
      if (v instanceof NullVector nv) {
        nv.setValueCount(n);
        return v;
      }
      if (v instanceof BitVector bits) {
        ArrowBuf data = bits.getDataBuffer();
        for (int i = 0; i < n; i++) {
          if (vals[i] != 0) {
            BitVectorHelper.setBit(data, i);
          }
        }
      } else if (v instanceof BaseFixedWidthVector fixed) {
        ArrowBuf data = fixed.getDataBuffer();
        int width = fixed.getTypeWidth();
        for (int i = 0; i < n; i++) {
          long x = vals[i];
          switch (width) {
            case 8 -> data.setLong((long) i * 8, x);
            case 4 -> {
              if (x != (int) x && (valid == null || valid[i])) {
                throw overflow(field, x);
              }
              data.setInt((long) i * 4, (int) x);
            }
            case 2 -> {
              if (x != (short) x && (valid == null || valid[i])) {
                throw overflow(field, x);
              }
              data.setShort((long) i * 2, (short) x);
            }
            case 1 -> {
              if (x != (byte) x && (valid == null || valid[i])) {
                throw overflow(field, x);
              }
              data.setByte(i, (byte) x);
            }
            default -> throw new QueryTypeException("Cannot write integers to " + type);
          }
        }
      } else {
        throw new QueryTypeException(
            "Cannot write integers to column " + field.getName() + " of type " + type);
      }
      setValidity(v, valid, n);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  /** Builds a FLOAT/DOUBLE (or DECIMAL, rounding half up) column from doubles. */
  public static FieldVector fromDoubles(
      Field field, double[] vals, boolean[] valid, int n, BufferAllocator allocator) {
    ArrowType type = field.getType();
    if (type instanceof ArrowType.Decimal dec) {
      long[] lo = new long[n];
      BigInteger[] big = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        if (valid == null || valid[i]) {
          big[i] =
              BigDecimal.valueOf(vals[i])
                  .setScale(dec.getScale(), RoundingMode.HALF_UP)
                  .unscaledValue();
        }
      }
      return fromDecimal(field, lo, big, dec.getScale(), valid, n, allocator);
    }
    if (!(type instanceof ArrowType.FloatingPoint fp)) {
      long[] l = new long[n];
      for (int i = 0; i < n; i++) {
        l[i] = Math.round(vals[i]);
      }
      return fromLongs(field, l, valid, n, allocator);
    }
    FieldVector v = allocate(field, n, allocator);
    ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
    if (fp.getPrecision() == FloatingPointPrecision.DOUBLE) {
      for (int i = 0; i < n; i++) {
        data.setDouble((long) i * 8, vals[i]);
      }
    } else {
      for (int i = 0; i < n; i++) {
        data.setFloat((long) i * 4, (float) vals[i]);
      }
    }
    setValidity(v, valid, n);
    return v;
  }

  /**
   * Builds a column from unscaled decimals of scale {@code scale}: value i is {@code big[i]} when
   * that is non-null, else {@code lo[i]}. A DECIMAL target is rescaled (half up) and
   * precision-checked; a FLOAT/DOUBLE target gets the nearest double.
   */
  public static FieldVector fromDecimal(
      Field field,
      long[] lo,
      BigInteger[] big,
      int scale,
      boolean[] valid,
      int n,
      BufferAllocator allocator) {
    ArrowType type = field.getType();
    if (!(type instanceof ArrowType.Decimal dec)) {
      double[] d = new double[n];
      double div = Math.pow(10, scale);
      for (int i = 0; i < n; i++) {
        d[i] =
            big != null && big[i] != null
                ? new BigDecimal(big[i], scale).doubleValue()
                : lo[i] / div;
      }
      if (type instanceof ArrowType.FloatingPoint) {
        return fromDoubles(field, d, valid, n, allocator);
      }
      long[] l = new long[n];
      for (int i = 0; i < n; i++) {
        l[i] =
            (big != null && big[i] != null
                    ? new BigDecimal(big[i], scale)
                    : BigDecimal.valueOf(lo[i], scale))
                .setScale(0, RoundingMode.HALF_UP)
                .longValueExact();
      }
      return fromLongs(field, l, valid, n, allocator);
    }
    int targetScale = dec.getScale();
    int precision = dec.getPrecision();
    long limit = precision < 19 ? POW10[precision] : Long.MAX_VALUE;
    FieldVector v = allocate(field, n, allocator);
    try {
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      for (int i = 0; i < n; i++) {
        if (valid != null && !valid[i]) {
          continue;
        }
        BigInteger b = big == null ? null : big[i];
        if (b == null && targetScale == scale) {
          long x = lo[i];
          if (x >= limit || x <= -limit) {
            throw overflow(field, BigDecimal.valueOf(x, scale));
          }
          data.setLong((long) i * 16, x);
          data.setLong((long) i * 16 + 8, x >> 63);
          continue;
        }
        BigDecimal d = b != null ? new BigDecimal(b, scale) : BigDecimal.valueOf(lo[i], scale);
        BigInteger u = d.setScale(targetScale, RoundingMode.HALF_UP).unscaledValue();
        if (u.abs().compareTo(BigInteger.TEN.pow(precision)) >= 0) {
          throw overflow(field, d);
        }
        data.setLong((long) i * 16, lo(u));
        data.setLong((long) i * 16 + 8, hi(u));
      }
      setValidity(v, valid, n);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  /** Builds a Utf8/Binary column from byte arrays (a null array is a null value). */
  public static FieldVector fromBytes(
      Field field, byte[][] vals, int n, BufferAllocator allocator) {
    long total = 0;
    for (int i = 0; i < n; i++) {
      total += vals[i] == null ? 0 : vals[i].length;
    }
    FieldVector v = field.createVector(allocator);
    try {
      if (!(v instanceof BaseVariableWidthVector var)) {
        throw new QueryTypeException(
            "Cannot write bytes to column " + field.getName() + " of type " + field.getType());
      }
      var.allocateNew(Math.max(total, 1), Math.max(n, 1));
      ArrowBuf data = var.getDataBuffer();
      ArrowBuf offsets = var.getOffsetBuffer();
      ArrowBuf validity = var.getValidityBuffer();
      int pos = 0;
      offsets.setInt(0, 0);
      for (int i = 0; i < n; i++) {
        byte[] b = vals[i];
        if (b != null) {
          data.setBytes(pos, b, 0, b.length);
          pos += b.length;
          BitVectorHelper.setBit(validity, i);
        }
        offsets.setInt((long) (i + 1) * 4, pos);
      }
      var.setLastSet(n - 1);
      var.setValueCount(n);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  private static void setValidity(FieldVector v, boolean[] valid, int n) {
    ArrowBuf validity = v.getValidityBuffer();
    for (int i = 0; i < n; i++) {
      if (valid == null || valid[i]) {
        BitVectorHelper.setBit(validity, i);
      }
    }
    v.setValueCount(n);
  }

  /** a * b, or Long.MIN_VALUE when it overflows. */
  public static long multiplyExactOrFlag(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long r = a * b;
    return hi == (r >> 63) && r != Long.MIN_VALUE ? r : Long.MIN_VALUE;
  }

  private static QuiverException overflow(Field field, Object value) {
    return new QuiverException(
        "Value "
            + value
            + " does not fit column "
            + field.getName()
            + " of type "
            + field.getType()
            + "; cast the input to a wider type (e.g. DECIMAL(38, s) or DOUBLE)");
  }
}
