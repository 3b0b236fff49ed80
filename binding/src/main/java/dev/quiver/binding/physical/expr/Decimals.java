package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QuiverException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import org.apache.arrow.memory.ArrowBuf;

/** Exact arithmetic on Arrow decimal128 slots: unscaled values as longs, BigInteger when larger. */
final class Decimals {
  private Decimals() {}

  static final long[] POW10 = new long[19];
  static final BigInteger[] BIG_POW10 = new BigInteger[80];
  static final double[] DOUBLE_POW10 = new double[39];

  static {
    long p = 1;
    for (int i = 0; i < POW10.length; i++) {
      POW10[i] = p;
      p *= 10;
    }
    BigInteger b = BigInteger.ONE;
    for (int i = 0; i < BIG_POW10.length; i++) {
      BIG_POW10[i] = b;
      b = b.multiply(BigInteger.TEN);
    }
    for (int i = 0; i < DOUBLE_POW10.length; i++) {
      DOUBLE_POW10[i] = Double.parseDouble("1e" + i);
    }
  }

  static long low(ArrowBuf data, int i) {
    return data.getLong(i * 16L);
  }

  static long high(ArrowBuf data, int i) {
    return data.getLong(i * 16L + 8);
  }

  static boolean fitsLong(long low, long high) {
    return high == (low >> 63);
  }

  static BigInteger big(ArrowBuf data, int i) {
    long lo = low(data, i);
    long hi = high(data, i);
    if (fitsLong(lo, hi)) {
      return BigInteger.valueOf(lo);
    }
    BigInteger unsignedLow =
        BigInteger.valueOf(lo >>> 1).shiftLeft(1).or(BigInteger.valueOf(lo & 1));
    return BigInteger.valueOf(hi).shiftLeft(64).or(unsignedLow);
  }

  static void setLong(ArrowBuf data, int i, long v) {
    data.setLong(i * 16L, v);
    data.setLong(i * 16L + 8, v >> 63);
  }

  static void setBig(ArrowBuf data, int i, BigInteger v) {
    data.setLong(i * 16L, v.longValue());
    data.setLong(i * 16L + 8, v.shiftRight(64).longValue());
  }

  /** Whether {@code v} has at most {@code precision} digits. */
  static boolean fits(long v, int precision) {
    if (precision >= 19) {
      return true;
    }
    long bound = POW10[precision];
    return v < bound && v > -bound;
  }

  static boolean fits(BigInteger v, int precision) {
    return v.abs().compareTo(BIG_POW10[precision]) < 0;
  }

  /** Quotient rounded half away from zero. */
  static long divRound(long a, long b) {
    long q = a / b;
    long r = a % b;
    if (r != 0) {
      long ar = Math.abs(r);
      if (ar >= Math.abs(b) - ar) {
        q += ((a ^ b) < 0) ? -1 : 1;
      }
    }
    return q;
  }

  static BigInteger divRound(BigInteger a, BigInteger b) {
    BigInteger[] qr = a.divideAndRemainder(b);
    BigInteger q = qr[0];
    if (qr[1].signum() != 0 && qr[1].abs().shiftLeft(1).compareTo(b.abs()) >= 0) {
      q = (a.signum() * b.signum() < 0) ? q.subtract(BigInteger.ONE) : q.add(BigInteger.ONE);
    }
    return q;
  }

  /**
   * Rescales an unscaled value; scaling down rounds half away from zero. Throws ArithmeticException
   * when the result does not fit in a long.
   */
  static long rescale(long v, int from, int to) {
    if (to == from) {
      return v;
    }
    if (to > from) {
      int d = to - from;
      if (d >= POW10.length) {
        if (v == 0) {
          return 0;
        }
        throw new ArithmeticException("overflow");
      }
      return Math.multiplyExact(v, POW10[d]);
    }
    int d = from - to;
    if (d >= POW10.length) {
      return divRound(BigInteger.valueOf(v), BIG_POW10[d]).longValueExact();
    }
    return divRound(v, POW10[d]);
  }

  static BigInteger rescale(BigInteger v, int from, int to) {
    if (to == from) {
      return v;
    }
    if (to > from) {
      return v.multiply(BIG_POW10[to - from]);
    }
    return divRound(v, BIG_POW10[from - to]);
  }

  /** The unscaled value of {@code d} at {@code scale}, rounding half away from zero. */
  static BigInteger unscaled(BigDecimal d, int scale) {
    return d.setScale(scale, RoundingMode.HALF_UP).unscaledValue();
  }

  static QuiverException overflow(Object value, int precision, int scale) {
    return new QuiverException(
        "Decimal overflow: value "
            + value
            + " does not fit in DECIMAL("
            + precision
            + ", "
            + scale
            + "); cast to a wider decimal or to DOUBLE");
  }
}
