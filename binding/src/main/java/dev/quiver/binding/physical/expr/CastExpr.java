package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.format.DoubleText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code CAST(child AS dataType)}. Numeric casts are exact or rounded half away from zero (decimal
 * to integer or to a smaller scale); double to integer rounds to nearest even; values that do not
 * fit, and strings that do not parse, raise {@link QueryTypeException} naming the value. A safe
 * cast ({@code TRY_CAST}) gives NULL for those values instead.
 */
public record CastExpr(PhysicalExpr child, ArrowType dataType, boolean safe)
    implements PhysicalExpr {

  /** A cast that fails on values that do not convert. */
  public CastExpr(PhysicalExpr child, ArrowType dataType) {
    this(child, dataType, false);
  }

  /** Checks that the cast is supported. */
  public CastExpr {
    Vectors.Kind from = Vectors.kind(child.dataType());
    Vectors.Kind to = Vectors.kind(dataType);
    if (!supported(from, to)) {
      throw new QueryTypeException(
          "Cannot cast " + Vectors.sqlName(child.dataType()) + " to " + Vectors.sqlName(dataType));
    }
  }

  private static boolean supported(Vectors.Kind from, Vectors.Kind to) {
    if (from == Vectors.Kind.OTHER || to == Vectors.Kind.OTHER) {
      return false;
    }
    if (from == to
        || from == Vectors.Kind.NULL
        || from == Vectors.Kind.STRING
        || to == Vectors.Kind.STRING) {
      return true;
    }
    boolean numFrom = isNumeric(from) || from == Vectors.Kind.BOOL;
    boolean numTo = isNumeric(to) || to == Vectors.Kind.BOOL;
    if (numFrom && numTo) {
      return true;
    }
    boolean temporalFrom = from == Vectors.Kind.DATE || from == Vectors.Kind.TIMESTAMP;
    boolean temporalTo = to == Vectors.Kind.DATE || to == Vectors.Kind.TIMESTAMP;
    if (temporalFrom && temporalTo) {
      return true;
    }
    boolean intervalFrom =
        from == Vectors.Kind.INTERVAL_DAY_TIME || from == Vectors.Kind.INTERVAL_MONTHS;
    boolean intervalTo = to == Vectors.Kind.INTERVAL_DAY_TIME || to == Vectors.Kind.INTERVAL_MONTHS;
    return (intervalFrom && (to == Vectors.Kind.INT || to == Vectors.Kind.DECIMAL))
        || (intervalTo && (from == Vectors.Kind.INT || from == Vectors.Kind.DECIMAL));
  }

  private static boolean isNumeric(Vectors.Kind k) {
    return k == Vectors.Kind.INT || k == Vectors.Kind.DOUBLE || k == Vectors.Kind.DECIMAL;
  }

  @Override
  public boolean nullable() {
    return safe || child.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(child);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    if (!safe) {
      return evaluateStrict(batch, allocator);
    }
    try {
      return evaluateStrict(batch, allocator);
    } catch (QueryTypeException e) {
      // Rare: some value does not convert; redo value by value, NULL where one fails.
      try (FieldVector in = child.evaluate(batch, allocator)) {
        return rowByRowSafe(in, batch.getRowCount(), allocator);
      }
    }
  }

  private FieldVector rowByRowSafe(FieldVector in, int n, BufferAllocator allocator) {
    FieldVector out = Vectors.allocate(dataType, n, allocator);
    try {
      for (int i = 0; i < n; i++) {
        Object v = Vectors.getValue(in, i);
        if (v != null) {
          Object converted;
          try {
            converted = convert(v, child.dataType(), dataType);
          } catch (QueryTypeException failed) {
            converted = null;
          }
          if (converted != null) {
            Vectors.setValue(out, i, converted);
          }
        }
      }
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }

  private FieldVector evaluateStrict(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    if (child instanceof LiteralExpr l) {
      return new LiteralExpr(convert(l.value(), l.dataType(), dataType), dataType)
          .materialize(n, allocator);
    }
    try (Operand in = Operand.ofVector(child.evaluate(batch, allocator))) {
      if (in.allNull()) {
        return Vectors.nulls(dataType, n, allocator);
      }
      if (in.type.equals(dataType)) {
        return ColumnExprs.share(in.vector, allocator);
      }
      long[] valid = in.validity();
      Vectors.Kind from = in.kind();
      switch (Vectors.kind(dataType)) {
        case INT:
          if (from == Vectors.Kind.INT || from == Vectors.Kind.BOOL) {
            return writeIntsChecked(in.longs(), valid, n, allocator, in);
          }
          if (from == Vectors.Kind.DECIMAL) {
            Operand.DecimalData d = in.decimals(0);
            if (d.small != null) {
              long[] v = new long[n];
              for (int i = 0; i < n; i++) {
                v[i] = d.scale == 0 ? d.small[i] : Decimals.rescale(d.small[i], d.scale, 0);
              }
              return writeIntsChecked(v, valid, n, allocator, in);
            }
          }
          if (from == Vectors.Kind.DOUBLE) {
            double[] d = in.doubles();
            long[] v = new long[n];
            for (int i = 0; i < n; i++) {
              double r = Math.rint(d[i]);
              if (Bits.valid(valid, i)
                  && !(r >= -9.223372036854775808E18 && r < 9.223372036854775808E18)) {
                throw outOfRange(d[i]);
              }
              v[i] = (long) r;
            }
            return writeIntsChecked(v, valid, n, allocator, in);
          }
          break;
        case DOUBLE:
          if (isNumeric(from) || from == Vectors.Kind.BOOL) {
            return Kernels.writeDoubles(in.doubles(), valid, dataType, n, allocator);
          }
          break;
        case DECIMAL:
          if (from == Vectors.Kind.INT || from == Vectors.Kind.DECIMAL) {
            int scale = Vectors.decimalScale(dataType);
            int fromScale = Kernels.scaleOf(in.type);
            Operand.DecimalData d = in.decimals(0);
            if (d.small != null) {
              try {
                long[] v = new long[n];
                for (int i = 0; i < n; i++) {
                  v[i] = Decimals.rescale(d.small[i], fromScale, scale);
                }
                return Kernels.writeDecimals(v, null, valid, dataType, n, allocator);
              } catch (ArithmeticException e) {
                // Fall through to the exact path below.
              }
            }
            BigInteger[] big = new BigInteger[n];
            for (int i = 0; i < n; i++) {
              big[i] = Decimals.rescale(d.bigAt(i), fromScale, scale);
            }
            return Kernels.writeDecimals(null, big, valid, dataType, n, allocator);
          }
          break;
        case TIMESTAMP:
          if (from == Vectors.Kind.DATE) {
            long[] v = in.longs();
            for (int i = 0; i < n; i++) {
              v[i] *= Vectors.MICROS_PER_DAY;
            }
            return Kernels.writeTemporal(v, valid, dataType, n, allocator);
          }
          if (from == Vectors.Kind.TIMESTAMP) {
            return Kernels.writeTemporal(in.longs(), valid, dataType, n, allocator);
          }
          break;
        case DATE:
          if (from == Vectors.Kind.TIMESTAMP) {
            long[] v = in.longs();
            for (int i = 0; i < n; i++) {
              v[i] = Math.floorDiv(v[i], Vectors.MICROS_PER_DAY);
            }
            return Kernels.writeTemporal(v, valid, dataType, n, allocator);
          }
          break;
        case BOOL:
          if (from == Vectors.Kind.INT) {
            long[] v = in.longs();
            long[] w = new long[Bits.words(n)];
            for (int i = 0; i < n; i++) {
              if (v[i] != 0) {
                Bits.set(w, i);
              }
            }
            return Bits.toBitVector(w, valid, n, allocator);
          }
          break;
        case STRING:
          return toStrings(in, valid, n, allocator);
        default:
          break;
      }
      return rowByRow(in, n, allocator);
    }
  }

  private FieldVector writeIntsChecked(
      long[] v, long[] valid, int n, BufferAllocator allocator, Operand in) {
    int width = Vectors.intWidth(dataType);
    if (width < 64) {
      long min = -(1L << (width - 1));
      long max = (1L << (width - 1)) - 1;
      for (int i = 0; i < n; i++) {
        if ((v[i] < min || v[i] > max) && Bits.valid(valid, i)) {
          throw outOfRange(Vectors.getValue(in.vector, i));
        }
      }
    }
    return Kernels.writeInts(v, valid, dataType, n, allocator, this);
  }

  private QueryTypeException outOfRange(Object value) {
    return new QueryTypeException(
        "Cannot cast " + value + " to " + Vectors.sqlName(dataType) + ": value out of range");
  }

  private FieldVector toStrings(Operand in, long[] valid, int n, BufferAllocator allocator) {
    VarCharVector out = (VarCharVector) Vectors.allocate(dataType, n, allocator);
    try {
      Vectors.Kind from = in.kind();
      if (from == Vectors.Kind.DATE || from == Vectors.Kind.TIMESTAMP) {
        // Whole columns of dates and timestamps: bytes written directly, no object per row.
        long[] v = in.longs();
        byte[] text = new byte[TemporalText.MAX_BYTES];
        for (int i = 0; i < n; i++) {
          if (Bits.valid(valid, i)) {
            int length =
                from == Vectors.Kind.DATE
                    ? TemporalText.date(v[i], text, 0)
                    : TemporalText.timestamp(v[i], text, 0);
            out.setSafe(i, text, 0, length);
          }
        }
        out.setValueCount(n);
        return out;
      }
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          String s = format(Vectors.getValue(in.vector, i), in.type);
          out.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
        }
      }
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }

  private FieldVector rowByRow(Operand in, int n, BufferAllocator allocator) {
    FieldVector out = Vectors.allocate(dataType, n, allocator);
    try {
      for (int i = 0; i < n; i++) {
        Object v = Vectors.getValue(in.vector, i);
        if (v != null) {
          Vectors.setValue(out, i, convert(v, in.type, dataType));
        }
      }
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }

  /** Converts one value in the literal convention from type {@code from} to type {@code to}. */
  public static Object convert(Object v, ArrowType from, ArrowType to) {
    if (v == null) {
      return null;
    }
    Vectors.Kind f = Vectors.kind(from);
    Vectors.Kind t = Vectors.kind(to);
    if (f == Vectors.Kind.STRING && t != Vectors.Kind.STRING) {
      return parse(((String) v).trim(), (String) v, to);
    }
    switch (t) {
      case STRING:
        return format(v, from);
      case INT:
        {
          long x;
          if (v instanceof BigDecimal d) {
            BigInteger rounded = d.setScale(0, RoundingMode.HALF_UP).toBigInteger();
            x = rounded.longValue();
            if (rounded.bitLength() > 63) {
              throw new QueryTypeException(
                  "Cannot cast " + v + " to " + Vectors.sqlName(to) + ": value out of range");
            }
          } else if (v instanceof Double d) {
            double r = Math.rint(d);
            if (!(r >= -9.223372036854775808E18 && r < 9.223372036854775808E18)) {
              throw new QueryTypeException(
                  "Cannot cast " + v + " to " + Vectors.sqlName(to) + ": value out of range");
            }
            x = (long) r;
          } else {
            x = Operand.toLong(v);
          }
          int width = Vectors.intWidth(to);
          if (width < 64 && (x < -(1L << (width - 1)) || x > (1L << (width - 1)) - 1)) {
            throw new QueryTypeException(
                "Cannot cast " + v + " to " + Vectors.sqlName(to) + ": value out of range");
          }
          return x;
        }
      case DOUBLE:
        if (v instanceof Number num) {
          return num.doubleValue();
        }
        return (double) Operand.toLong(v);
      case DECIMAL:
        {
          BigDecimal d;
          if (v instanceof BigDecimal b) {
            d = b;
          } else if (v instanceof Double x) {
            if (x.isNaN() || x.isInfinite()) {
              throw new QueryTypeException("Cannot cast " + v + " to " + Vectors.sqlName(to));
            }
            d = BigDecimal.valueOf(x);
          } else {
            d = BigDecimal.valueOf(Operand.toLong(v));
          }
          BigDecimal r = d.setScale(Vectors.decimalScale(to), RoundingMode.HALF_UP);
          if (!Decimals.fits(r.unscaledValue(), Vectors.decimalPrecision(to))) {
            throw new QueryTypeException(
                "Cannot cast " + v + " to " + Vectors.sqlName(to) + ": value out of range");
          }
          return r;
        }
      case BOOL:
        if (v instanceof Boolean) {
          return v;
        }
        if (v instanceof Double x) {
          return x != 0;
        }
        if (v instanceof BigDecimal x) {
          return x.signum() != 0;
        }
        return Operand.toLong(v) != 0;
      case DATE:
        if (f == Vectors.Kind.TIMESTAMP) {
          return LocalDate.ofEpochDay(Math.floorDiv((Long) v, Vectors.MICROS_PER_DAY));
        }
        return v;
      case TIMESTAMP:
        if (v instanceof LocalDate d) {
          return d.toEpochDay() * Vectors.MICROS_PER_DAY;
        }
        return v;
      case INTERVAL_DAY_TIME:
      case INTERVAL_MONTHS:
        return v instanceof BigDecimal d ? d.longValue() : Operand.toLong(v);
      default:
        return v;
    }
  }

  private static Object parse(String s, String original, ArrowType to) {
    try {
      switch (Vectors.kind(to)) {
        case INT:
          try {
            return convert(Long.parseLong(s), new ArrowType.Int(64, true), to);
          } catch (NumberFormatException e) {
            return convert(new BigDecimal(s), new ArrowType.Decimal(38, 0, 128), to);
          }
        case DOUBLE:
          switch (s.toLowerCase(Locale.ROOT)) {
            case "inf":
            case "infinity":
            case "+inf":
            case "+infinity":
              return Double.POSITIVE_INFINITY;
            case "-inf":
            case "-infinity":
              return Double.NEGATIVE_INFINITY;
            case "nan":
              return Double.NaN;
            default:
              return Double.parseDouble(s);
          }
        case DECIMAL:
          return convert(new BigDecimal(s), new ArrowType.Decimal(38, 0, 128), to);
        case BOOL:
          switch (s.toLowerCase(Locale.ROOT)) {
            case "true":
            case "t":
            case "yes":
            case "y":
            case "on":
            case "1":
              return true;
            case "false":
            case "f":
            case "no":
            case "n":
            case "off":
            case "0":
              return false;
            default:
              throw new IllegalArgumentException(s);
          }
        case DATE:
          return parseDate(s.length() > 10 ? s.substring(0, 10) : s);
        case TIMESTAMP:
          return parseTimestamp(s);
        case INTERVAL_DAY_TIME:
        case INTERVAL_MONTHS:
          return Long.parseLong(s);
        default:
          throw new IllegalArgumentException(s);
      }
    } catch (QueryTypeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new QueryTypeException(
          "Cannot cast string '"
              + original
              + "' to "
              + Vectors.sqlName(to)
              + "; fix the value or use a different type");
    }
  }

  static LocalDate parseDate(String s) {
    String[] parts = s.split("-");
    if (parts.length != 3) {
      throw new IllegalArgumentException(s);
    }
    return LocalDate.of(
        Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));
  }

  static long parseTimestamp(String s) {
    int sep = s.indexOf(' ') > 0 ? s.indexOf(' ') : s.indexOf('T');
    LocalDate date = parseDate(sep < 0 ? s : s.substring(0, sep));
    long micros = 0;
    if (sep >= 0) {
      String time = s.substring(sep + 1).trim();
      String[] hms = time.split(":");
      if (hms.length < 2 || hms.length > 3) {
        throw new IllegalArgumentException(s);
      }
      int h = Integer.parseInt(hms[0]);
      int m = Integer.parseInt(hms[1]);
      long secMicros = 0;
      if (hms.length == 3) {
        BigDecimal sec = new BigDecimal(hms[2]);
        secMicros = sec.movePointRight(6).setScale(0, RoundingMode.HALF_UP).longValueExact();
      }
      if (h > 23 || m > 59 || secMicros >= 60_000_000L || h < 0 || m < 0 || secMicros < 0) {
        throw new IllegalArgumentException(s);
      }
      micros = (h * 3600L + m * 60L) * 1_000_000L + secMicros;
    }
    return date.toEpochDay() * Vectors.MICROS_PER_DAY + micros;
  }

  /** Text form of a value: ISO dates, {@code yyyy-MM-dd HH:mm:ss[.ffffff]} timestamps. */
  static String format(Object v, ArrowType from) {
    switch (Vectors.kind(from)) {
      case DECIMAL:
        return ((BigDecimal) v).toPlainString();
      case TIMESTAMP:
        return formatTimestamp((Long) v);
      case DOUBLE:
        // DuckDB's text: 10000000000.0, 1e+20, 1.5e-07 (not Java's 1.0E10).
        // A FLOAT's value arrives widened to double: its text has the float's shortest digits.
        return from instanceof ArrowType.FloatingPoint fp
                && fp.getPrecision() == FloatingPointPrecision.SINGLE
            ? DoubleText.of(((Number) v).floatValue())
            : DoubleText.of(((Number) v).doubleValue());
      default:
        return String.valueOf(v);
    }
  }

  static String formatTimestamp(long micros) {
    return TemporalText.timestamp(micros);
  }

  @Override
  public String toString() {
    return "CAST(" + child + " AS " + Vectors.sqlName(dataType) + ")";
  }
}
