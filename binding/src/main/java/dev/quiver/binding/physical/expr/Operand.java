package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.kernel.Raw;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * An evaluated child: either a column or a literal kept as a scalar so kernels need not materialize
 * it. Extracts primitive arrays for the type-specialized loops.
 */
final class Operand implements AutoCloseable {
  final ArrowType type;
  final FieldVector vector;
  final Object value;
  final int n;

  private Operand(ArrowType type, FieldVector vector, Object value, int n) {
    this.type = type;
    this.vector = vector;
    this.value = value;
    this.n = n;
  }

  static Operand of(PhysicalExpr e, VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    if (e instanceof LiteralExpr l) {
      return new Operand(l.dataType(), null, l.value(), n);
    }
    FieldVector v = e.evaluate(batch, allocator);
    // The vector's own type wins over the declared one (e.g. a SMALLINT column read as Int(16)).
    return new Operand(v.getField().getType(), v, null, n);
  }

  static Operand ofVector(FieldVector v) {
    return new Operand(v.getField().getType(), v, null, v.getValueCount());
  }

  boolean isScalar() {
    return vector == null;
  }

  /** True when every row is null (a NULL literal or an untyped null column). */
  boolean allNull() {
    return (vector == null && value == null) || vector instanceof NullVector;
  }

  Vectors.Kind kind() {
    return Vectors.kind(type);
  }

  /** Validity words, null when all rows are valid. */
  long[] validity() {
    if (vector == null) {
      return value == null ? new long[Bits.words(n)] : null;
    }
    return Bits.validity(vector, n);
  }

  FieldVector materialize(BufferAllocator allocator) {
    if (vector != null) {
      return ColumnExprs.share(vector, allocator);
    }
    return new LiteralExpr(value, type).materialize(n, allocator);
  }

  /** The scalar as a long (integers, days for dates, micros for timestamps, 0/1 for booleans). */
  long scalarLong() {
    return toLong(value);
  }

  static long toLong(Object value) {
    if (value instanceof Long l) {
      return l;
    }
    if (value instanceof LocalDate d) {
      return d.toEpochDay();
    }
    if (value instanceof Boolean b) {
      return b ? 1 : 0;
    }
    if (value instanceof Number num) {
      return num.longValue();
    }
    throw new QueryTypeException("Expected a number, got " + value);
  }

  double scalarDouble() {
    if (value instanceof BigDecimal d) {
      return d.doubleValue();
    }
    if (value instanceof Number num) {
      return num.doubleValue();
    }
    return toLong(value);
  }

  /** Integer-like rows as longs (ints, days, micros, booleans 0/1); scalars are broadcast. */
  long[] longs() {
    long[] out = new long[n];
    if (vector == null) {
      if (value != null) {
        Arrays.fill(out, scalarLong());
      }
      return out;
    }
    ArrowBuf data = vector.getDataBuffer();
    switch (vector.getMinorType()) {
      case BIGINT:
      case TIMESTAMPMICRO:
      case TIMESTAMPMICROTZ:
        Buffers.readLongs(data, out, n);
        break;
      case INT:
      case DATEDAY:
      case INTERVALYEAR:
        Buffers.readInts(data, out, n);
        break;
      case SMALLINT:
        for (int i = 0; i < n; i++) {
          out[i] = data.getShort(i * 2L);
        }
        break;
      case TINYINT:
        for (int i = 0; i < n; i++) {
          out[i] = data.getByte(i);
        }
        break;
      case BIT:
        long[] bits = Bits.load(data, n);
        for (int i = 0; i < n; i++) {
          out[i] = Bits.get(bits, i) ? 1 : 0;
        }
        break;
      case NULL:
        break;
      default:
        long[] valid = validity();
        for (int i = 0; i < n; i++) {
          if (Bits.valid(valid, i)) {
            Object v = Vectors.getValue(vector, i);
            out[i] = v instanceof BigDecimal d ? d.longValue() : toLong(v);
          }
        }
    }
    return out;
  }

  /** Numeric rows as doubles; scalars are broadcast. */
  double[] doubles() {
    double[] out = new double[n];
    if (vector == null) {
      if (value != null) {
        Arrays.fill(out, scalarDouble());
      }
      return out;
    }
    ArrowBuf data = vector.getDataBuffer();
    switch (vector.getMinorType()) {
      case FLOAT8:
        Buffers.readDoubles(data, out, n);
        return out;
      case FLOAT4:
        for (int i = 0; i < n; i++) {
          out[i] = data.getFloat(i * 4L);
        }
        return out;
      case DECIMAL:
        DecimalData d = decimals(0);
        double scale = Decimals.DOUBLE_POW10[d.scale];
        for (int i = 0; i < n; i++) {
          out[i] =
              d.small != null
                  ? d.small[i] / scale
                  : d.big[i] == null ? 0 : new BigDecimal(d.big[i], d.scale).doubleValue();
        }
        return out;
      case NULL:
        return out;
      default:
        long[] l = longs();
        for (int i = 0; i < n; i++) {
          out[i] = l[i];
        }
        return out;
    }
  }

  /**
   * Unscaled decimal rows (integers count as scale 0), rescaled up to at least {@code minScale}.
   */
  DecimalData decimals(int minScale) {
    int scale = Math.max(minScale, kind() == Vectors.Kind.DECIMAL ? Vectors.decimalScale(type) : 0);
    int from = kind() == Vectors.Kind.DECIMAL ? Vectors.decimalScale(type) : 0;
    if (vector == null) {
      long[] small = new long[n];
      if (value == null) {
        return new DecimalData(small, null, scale);
      }
      BigInteger u = unscaledScalar(scale);
      if (u.bitLength() < 64) {
        Arrays.fill(small, u.longValue());
        return new DecimalData(small, null, scale);
      }
      BigInteger[] big = new BigInteger[n];
      Arrays.fill(big, u);
      return new DecimalData(null, big, scale);
    }
    long[] valid = validity();
    if (vector instanceof DecimalVector dv) {
      ArrowBuf data = dv.getDataBuffer();
      long[] small = new long[n];
      boolean fits = true;
      long address = Raw.address(data, n * 16L);
      for (int i = 0; i < n; i++) {
        long lo = Raw.getLong(address + i * 16L);
        if (!Decimals.fitsLong(lo, Raw.getLong(address + i * 16L + 8)) && Bits.valid(valid, i)) {
          fits = false;
          break;
        }
        small[i] = lo;
      }
      if (fits && scale != from) {
        try {
          long f = Decimals.POW10[scale - from];
          for (int i = 0; i < n; i++) {
            small[i] = Math.multiplyExact(small[i], f);
          }
        } catch (ArithmeticException | ArrayIndexOutOfBoundsException e) {
          fits = false;
        }
      }
      if (fits) {
        return new DecimalData(small, null, scale);
      }
      BigInteger[] big = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          big[i] = Decimals.rescale(Decimals.big(data, i), from, scale);
        }
      }
      return new DecimalData(null, big, scale);
    }
    long[] small = longs();
    if (scale == 0) {
      return new DecimalData(small, null, 0);
    }
    try {
      long f = Decimals.POW10[scale];
      for (int i = 0; i < n; i++) {
        small[i] = Math.multiplyExact(small[i], f);
      }
      return new DecimalData(small, null, scale);
    } catch (ArithmeticException | ArrayIndexOutOfBoundsException e) {
      long[] raw = longs();
      BigInteger[] big = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        big[i] = BigInteger.valueOf(raw[i]).multiply(Decimals.BIG_POW10[scale]);
      }
      return new DecimalData(null, big, scale);
    }
  }

  BigInteger unscaledScalar(int scale) {
    BigDecimal d =
        value instanceof BigDecimal b
            ? b
            : value instanceof Double x ? BigDecimal.valueOf(x) : BigDecimal.valueOf(toLong(value));
    return Decimals.unscaled(d, scale);
  }

  @Override
  public void close() {
    if (vector != null) {
      vector.close();
    }
  }

  /** Unscaled decimals: {@code small} when every valid value fits in a long, else {@code big}. */
  static final class DecimalData {
    final long[] small;
    final BigInteger[] big;
    final int scale;

    DecimalData(long[] small, BigInteger[] big, int scale) {
      this.small = small;
      this.big = big;
      this.scale = scale;
    }

    BigInteger bigAt(int i) {
      if (small != null) {
        return BigInteger.valueOf(small[i]);
      }
      return big[i] == null ? BigInteger.ZERO : big[i];
    }
  }
}
