package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.kernel.Raw;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Writers that turn primitive result arrays into Arrow vectors of a requested type. */
final class Kernels {
  private Kernels() {}

  static int scaleOf(ArrowType t) {
    return t instanceof ArrowType.Decimal d ? d.getScale() : 0;
  }

  /**
   * Writes integers to an Int vector of {@code type}'s width, failing on valid rows out of range.
   */
  static FieldVector writeInts(
      long[] v, long[] valid, ArrowType type, int n, BufferAllocator allocator, Object expr) {
    int width = ((ArrowType.Int) type).getBitWidth();
    if (width < 64) {
      long min = -(1L << (width - 1));
      long max = (1L << (width - 1)) - 1;
      for (int i = 0; i < n; i++) {
        if ((v[i] < min || v[i] > max) && Bits.valid(valid, i)) {
          throw new QuiverException(
              "Integer overflow: value "
                  + v[i]
                  + " of "
                  + expr
                  + " is out of range for "
                  + Vectors.sqlName(type)
                  + "; cast to BIGINT first");
        }
      }
    }
    FieldVector out = Vectors.allocate(type, n, allocator);
    ArrowBuf data = out.getDataBuffer();
    switch (width) {
      case 64:
        Buffers.writeLongs(data, v, n);
        break;
      case 32:
        Buffers.writeInts(data, v, n);
        break;
      case 16:
        for (int i = 0; i < n; i++) {
          data.setShort(i * 2L, (short) v[i]);
        }
        break;
      default:
        for (int i = 0; i < n; i++) {
          data.setByte(i, (byte) v[i]);
        }
    }
    Bits.storeValidity(valid, out, n);
    out.setValueCount(n);
    return out;
  }

  /** Writes 64-bit values (timestamps) or 32-bit values (dates) without range checks. */
  static FieldVector writeTemporal(
      long[] v, long[] valid, ArrowType type, int n, BufferAllocator allocator) {
    FieldVector out = Vectors.allocate(type, n, allocator);
    ArrowBuf data = out.getDataBuffer();
    if (type instanceof ArrowType.Date) {
      Buffers.writeInts(data, v, n);
    } else if (type instanceof ArrowType.Timestamp ts) {
      if (ts.getUnit() == org.apache.arrow.vector.types.TimeUnit.MICROSECOND) {
        Buffers.writeLongs(data, v, n);
      } else {
        for (int i = 0; i < n; i++) {
          data.setLong(i * 8L, Vectors.fromMicros(v[i], ts));
        }
      }
    } else {
      out.close();
      throw new QueryTypeException(
          "Expected a date or timestamp type, got " + Vectors.sqlName(type));
    }
    Bits.storeValidity(valid, out, n);
    out.setValueCount(n);
    return out;
  }

  static FieldVector writeDoubles(double[] v, long[] valid, int n, BufferAllocator allocator) {
    return writeDoubles(
        v, valid, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), n, allocator);
  }

  static FieldVector writeDoubles(
      double[] v, long[] valid, ArrowType type, int n, BufferAllocator allocator) {
    FieldVector out = Vectors.allocate(type, n, allocator);
    ArrowBuf data = out.getDataBuffer();
    if (((ArrowType.FloatingPoint) type).getPrecision() == FloatingPointPrecision.SINGLE) {
      for (int i = 0; i < n; i++) {
        data.setFloat(i * 4L, (float) v[i]);
      }
    } else {
      Buffers.writeDoubles(data, v, n);
    }
    Bits.storeValidity(valid, out, n);
    out.setValueCount(n);
    return out;
  }

  /** Writes unscaled decimals (from {@code small}, or {@code big} when small is null). */
  static FieldVector writeDecimals(
      long[] small,
      BigInteger[] big,
      long[] valid,
      ArrowType type,
      int n,
      BufferAllocator allocator) {
    ArrowType.Decimal d = (ArrowType.Decimal) type;
    FieldVector out = Vectors.allocate(type, n, allocator);
    try {
      ArrowBuf data = out.getDataBuffer();
      if (small != null) {
        long address = Raw.address(data, n * 16L);
        int precision = d.getPrecision();
        long bound = precision >= 19 ? Long.MAX_VALUE : Decimals.POW10[precision];
        for (int i = 0; i < n; i++) {
          long x = Bits.valid(valid, i) ? small[i] : 0;
          if (precision < 19 && (x >= bound || x <= -bound)) {
            throw Decimals.overflow(
                new java.math.BigDecimal(BigInteger.valueOf(x), d.getScale()),
                d.getPrecision(),
                d.getScale());
          }
          Raw.putLong(address + i * 16L, x);
          Raw.putLong(address + i * 16L + 8, x >> 63);
        }
      } else {
        for (int i = 0; i < n; i++) {
          BigInteger x = Bits.valid(valid, i) && big[i] != null ? big[i] : BigInteger.ZERO;
          if (!Decimals.fits(x, d.getPrecision())) {
            throw Decimals.overflow(
                new java.math.BigDecimal(x, d.getScale()), d.getPrecision(), d.getScale());
          }
          Decimals.setBig(data, i, x);
        }
      }
      Bits.storeValidity(valid, out, n);
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }
}
