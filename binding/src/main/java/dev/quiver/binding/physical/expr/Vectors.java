package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
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

/** Allocation, generic value access and row gathering for the vectors expressions produce. */
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
        "Expression evaluation could not allocate memory for " + n
            + " values; raise the memory limit or lower the batch size", e);
  }

  /** Converts Arrow's allocator-limit failure into the engine's typed error; returns others. */
  static RuntimeException rethrow(RuntimeException e) {
    if (e instanceof OutOfMemoryException oom) {
      return new ResourcesExhaustedException(
          "Expression evaluation ran out of memory; raise the memory limit or lower the batch size", oom);
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
    INT, DOUBLE, DECIMAL, STRING, BOOL, DATE, TIMESTAMP, NULL, INTERVAL_DAY_TIME, INTERVAL_MONTHS,
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
        return ((ArrowType.Interval) t).getUnit() == org.apache.arrow.vector.types.IntervalUnit.YEAR_MONTH
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
        return kind(t) == Kind.INTERVAL_MONTHS ? "INTERVAL YEAR TO MONTH" : "INTERVAL DAY TO SECOND";
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

  /** Sets row {@code i} from a value in the literal convention (null sets null); grows as needed. */
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
      b.getDataBuffer().setLong(i * 8L, fromMicros(micros, (ArrowType.Timestamp) b.getField().getType()));
    } else if (v instanceof IntervalDayVector b) {
      long millis = ((Number) value).longValue();
      b.setSafe(i, (int) (millis / 86_400_000L), (int) (millis % 86_400_000L));
    } else if (v instanceof IntervalYearVector b) {
      b.setSafe(i, ((Number) value).intValue());
    } else {
      throw new QueryTypeException(
          "Values of type " + sqlName(v.getField().getType()) + " are not supported in expressions");
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
          sameTypes &= sources[k] instanceof NullVector || sources[k].getField().getType().equals(type);
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
}
