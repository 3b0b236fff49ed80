package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.LogicalType;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Type;
import org.apache.parquet.io.api.Binary;

/**
 * How the values of one Parquet leaf column (physical type and annotation) become the values of an
 * Arrow vector of the engine's internal type: which kinds exist, which file column reads into which
 * target type, and how one value of parquet-java's column reader is stored. The fast page decoder
 * handles the common kinds in bulk; this per-value copy serves every other encoding and the leaves
 * of nested columns.
 */
enum ParquetValueKind {
  BOOLEAN {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((BitVector) v).set(i, r.getBoolean() ? 1 : 0);
    }
  },
  INT8 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((TinyIntVector) v).set(i, (byte) r.getInteger());
    }
  },
  INT16 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((SmallIntVector) v).set(i, (short) r.getInteger());
    }
  },
  INT32 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((IntVector) v).set(i, r.getInteger());
    }
  },
  INT64 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((BigIntVector) v).set(i, r.getLong());
    }
  },
  UINT32_AS_INT64 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((BigIntVector) v).set(i, Integer.toUnsignedLong(r.getInteger()));
    }
  },
  /** UINT64 read as BIGINT: values past Long.MAX_VALUE fail rather than turn negative. */
  UINT64 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((BigIntVector) v).set(i, checkUnsigned(r.getLong(), v));
    }

    @Override
    void finish(FieldVector v, int rows) {
      ArrowBuf data = v.getDataBuffer();
      long any = 0;
      for (int i = 0; i < rows; i++) {
        any |= data.getLong((long) i * 8);
      }
      if (any < 0) {
        for (int i = 0; i < rows; i++) {
          if (!v.isNull(i)) {
            checkUnsigned(data.getLong((long) i * 8), v);
          }
        }
      }
    }
  },
  FLOAT {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((Float4Vector) v).set(i, r.getFloat());
    }
  },
  DOUBLE {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((Float8Vector) v).set(i, r.getDouble());
    }
  },
  /** Single floats widened to DOUBLE (exact), the type Quiver computes REAL as. */
  FLOAT_AS_DOUBLE {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((Float8Vector) v).set(i, r.getFloat());
    }
  },
  /** IEEE half floats (FIXED_LEN_BYTE_ARRAY(2), little-endian), widened to DOUBLE. */
  FLOAT16 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ByteBuffer b = r.getBinary().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
      ((Float8Vector) v).set(i, Float16.toFloat(b.getShort(b.position())));
    }
  },
  DATE_DAY {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((DateDayVector) v).set(i, r.getInteger());
    }
  },
  BYTES {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ByteBuffer buf = r.getBinary().toByteBuffer();
      ((BaseVariableWidthVector) v).setSafe(i, buf, buf.position(), buf.remaining());
    }
  },
  FIXED_BYTES {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((FixedSizeBinaryVector) v).set(i, r.getBinary().getBytesUnsafe());
    }
  },
  DECIMAL_INT32 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((DecimalVector) v).set(i, r.getInteger());
    }
  },
  DECIMAL_INT64 {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ((DecimalVector) v).set(i, r.getLong());
    }
  },
  DECIMAL_BYTES {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      Binary b = r.getBinary();
      if (b.length() <= 8) {
        // Most decimals fit a long: no byte[] copy per value.
        ((DecimalVector) v).set(i, bigEndianLong(b.toByteBuffer()));
      } else {
        ((DecimalVector) v).setBigEndian(i, b.getBytesUnsafe());
      }
    }
  },
  /** INT64 timestamps and times already in microseconds: stored as they are. */
  MICROS {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      setLong(v, i, r.getLong());
    }
  },
  MILLIS_AS_MICROS {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      setLong(v, i, convert(r.getLong()));
    }

    @Override
    long convert(long millis) {
      return Math.multiplyExact(millis, 1000L);
    }

    @Override
    void finish(FieldVector v, int rows) {
      convertAll(v, rows);
    }
  },
  NANOS_AS_MICROS {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      setLong(v, i, convert(r.getLong()));
    }

    @Override
    long convert(long nanos) {
      return Math.floorDiv(nanos, 1000L);
    }

    @Override
    void finish(FieldVector v, int rows) {
      convertAll(v, rows);
    }
  },
  /** TIME(MILLIS), an INT32, as a 64-bit time in microseconds. */
  INT32_MILLIS_AS_MICROS {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      setLong(v, i, convert(r.getInteger()));
    }

    @Override
    long convert(long millis) {
      return millis * 1000L; // an INT32 times 1000 cannot overflow
    }

    @Override
    void finish(FieldVector v, int rows) {
      convertAll(v, rows);
    }
  },
  /** INT96 timestamps (nanoseconds of the day, then the Julian day, little-endian). */
  INT96_AS_MICROS {
    @Override
    void copy(ColumnReader r, FieldVector v, int i) {
      ByteBuffer b = r.getBinary().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
      int at = b.position();
      long nanosOfDay = b.getLong(at);
      long julianDay = b.getInt(at + 8) & 0xFFFF_FFFFL;
      long micros =
          (julianDay - JULIAN_UNIX_EPOCH) * 86_400_000_000L + Math.floorDiv(nanosOfDay, 1000L);
      setLong(v, i, micros);
    }
  };

  /** The Julian day number of 1970-01-01. */
  private static final long JULIAN_UNIX_EPOCH = 2_440_588L;

  /** Stores the current value of {@code r} as value {@code i} of {@code v} (allocated for it). */
  abstract void copy(ColumnReader r, FieldVector v, int i);

  /**
   * Converts in place the first {@code rows} values that the fast decoder wrote verbatim (the
   * file's own integers) into this kind's values; nothing for kinds stored as they are.
   */
  void finish(FieldVector v, int rows) {}

  /** This kind's value for the file's INT64 {@code raw}. */
  long convert(long raw) {
    return raw;
  }

  /** Applies {@link #convert} to the first {@code rows} 8-byte values of {@code v} in place. */
  void convertAll(FieldVector v, int rows) {
    ArrowBuf data = v.getDataBuffer();
    for (int i = 0; i < rows; i++) {
      data.setLong((long) i * 8, convert(data.getLong((long) i * 8)));
    }
  }

  private static void setLong(FieldVector v, int i, long value) {
    BaseFixedWidthVector fixed = (BaseFixedWidthVector) v;
    fixed.getDataBuffer().setLong((long) i * 8, value);
    org.apache.arrow.vector.BitVectorHelper.setBit(fixed.getValidityBuffer(), i);
  }

  private static long checkUnsigned(long value, FieldVector v) {
    if (value < 0) {
      throw new DataSourceException(
          "Column '"
              + v.getName()
              + "' holds the unsigned value "
              + Long.toUnsignedString(value)
              + " which does not fit in BIGINT");
    }
    return value;
  }

  /** The big-endian two's-complement integer in {@code buf}'s remaining (at most 8) bytes. */
  private static long bigEndianLong(ByteBuffer buf) {
    int at = buf.position();
    int end = buf.limit();
    if (at == end) {
      return 0;
    }
    long x = buf.get(at); // the sign extends from the first byte
    for (int j = at + 1; j < end; j++) {
      x = (x << 8) | (buf.get(j) & 0xFF);
    }
    return x;
  }

  /** How file column {@code e} converts to {@code target}, or null when it is not supported. */
  static ParquetValueKind of(SchemaElement e, ArrowType target) {
    if (!e.isSetType()) {
      return null;
    }
    Type physical = e.getType();
    boolean unsigned = isUnsigned(e);
    return switch (target.getTypeID()) {
      case Bool -> physical == Type.BOOLEAN ? BOOLEAN : null;
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) target;
        if (!i.getIsSigned()) {
          yield null;
        }
        if (physical == Type.INT32 && !unsigned) {
          yield switch (i.getBitWidth()) {
            case 8 -> INT8;
            case 16 -> INT16;
            case 32 -> INT32;
            default -> null;
          };
        }
        if (physical == Type.INT32 && unsigned) {
          // Arrow widens UINT8/16 to 32 and UINT32 to 64 bits; both are exact.
          yield i.getBitWidth() == 32 ? INT32 : i.getBitWidth() == 64 ? UINT32_AS_INT64 : null;
        }
        if (physical == Type.INT64 && i.getBitWidth() == 64) {
          yield unsigned ? UINT64 : INT64;
        }
        yield null;
      }
      case FloatingPoint -> {
        FloatingPointPrecision p = ((ArrowType.FloatingPoint) target).getPrecision();
        if (p == FloatingPointPrecision.SINGLE && physical == Type.FLOAT) {
          yield FLOAT;
        }
        if (p != FloatingPointPrecision.DOUBLE) {
          yield null;
        }
        if (physical == Type.FIXED_LEN_BYTE_ARRAY && e.getType_length() == 2) {
          yield isFloat16(e) ? FLOAT16 : null;
        }
        yield physical == Type.DOUBLE ? DOUBLE : physical == Type.FLOAT ? FLOAT_AS_DOUBLE : null;
      }
      case Date ->
          ((ArrowType.Date) target).getUnit() == DateUnit.DAY && physical == Type.INT32
              ? DATE_DAY
              : null;
      case Timestamp -> {
        if (((ArrowType.Timestamp) target).getUnit() != TimeUnit.MICROSECOND) {
          yield null;
        }
        if (physical == Type.INT96) {
          yield INT96_AS_MICROS;
        }
        yield physical == Type.INT64 ? int64AsMicros(timeUnit(e)) : null;
      }
      case Time -> {
        ArrowType.Time t = (ArrowType.Time) target;
        if (t.getUnit() != TimeUnit.MICROSECOND || t.getBitWidth() != 64) {
          yield null;
        }
        if (physical == Type.INT32) {
          yield INT32_MILLIS_AS_MICROS;
        }
        yield physical == Type.INT64 ? int64AsMicros(timeUnit(e)) : null;
      }
      case Utf8, Binary -> physical == Type.BYTE_ARRAY ? BYTES : null;
      case FixedSizeBinary ->
          physical == Type.FIXED_LEN_BYTE_ARRAY
                  && e.getType_length() == ((ArrowType.FixedSizeBinary) target).getByteWidth()
              ? FIXED_BYTES
              : null;
      case Decimal -> {
        ArrowType.Decimal d = (ArrowType.Decimal) target;
        if (d.getBitWidth() != 128 || decimalScale(e) != d.getScale()) {
          yield null;
        }
        yield switch (physical) {
          case INT32 -> DECIMAL_INT32;
          case INT64 -> DECIMAL_INT64;
          case FIXED_LEN_BYTE_ARRAY -> e.getType_length() <= 16 ? DECIMAL_BYTES : null;
          case BYTE_ARRAY -> DECIMAL_BYTES;
          default -> null;
        };
      }
      default -> null;
    };
  }

  private static ParquetValueKind int64AsMicros(TimeUnit unit) {
    return switch (unit) {
      case MILLISECOND -> MILLIS_AS_MICROS;
      case MICROSECOND -> MICROS;
      case NANOSECOND -> NANOS_AS_MICROS;
      case SECOND -> null;
    };
  }

  /** The unit of an INT64 timestamp or time column (microseconds when it says none). */
  private static TimeUnit timeUnit(SchemaElement e) {
    if (e.isSetLogicalType()) {
      LogicalType l = e.getLogicalType();
      org.apache.parquet.format.TimeUnit u =
          l.isSetTIMESTAMP()
              ? l.getTIMESTAMP().getUnit()
              : l.isSetTIME() ? l.getTIME().getUnit() : null;
      if (u != null) {
        return u.isSetMILLIS()
            ? TimeUnit.MILLISECOND
            : u.isSetNANOS() ? TimeUnit.NANOSECOND : TimeUnit.MICROSECOND;
      }
    }
    return e.isSetConverted_type() && e.getConverted_type() == ConvertedType.TIMESTAMP_MILLIS
        ? TimeUnit.MILLISECOND
        : TimeUnit.MICROSECOND;
  }

  private static int decimalScale(SchemaElement e) {
    if (e.isSetLogicalType() && e.getLogicalType().isSetDECIMAL()) {
      return e.getLogicalType().getDECIMAL().getScale();
    }
    return e.isSetScale() ? e.getScale() : 0;
  }

  private static boolean isFloat16(SchemaElement e) {
    return e.isSetLogicalType() && e.getLogicalType().isSetFLOAT16();
  }

  private static boolean isUnsigned(SchemaElement e) {
    if (e.isSetLogicalType() && e.getLogicalType().isSetINTEGER()) {
      return !e.getLogicalType().getINTEGER().isIsSigned();
    }
    if (e.isSetConverted_type()) {
      ConvertedType c = e.getConverted_type();
      return c == ConvertedType.UINT_8
          || c == ConvertedType.UINT_16
          || c == ConvertedType.UINT_32
          || c == ConvertedType.UINT_64;
    }
    return false;
  }
}
