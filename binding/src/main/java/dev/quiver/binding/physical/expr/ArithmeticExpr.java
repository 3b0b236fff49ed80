package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.kernel.Raw;
import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Binary arithmetic {@code left op right} producing {@code dataType}. Integers and decimals are
 * exact (overflow is an error); decimal operands may have any scales and the result is rounded half
 * away from zero to the result scale. A zero divisor of {@code /} or {@code %} is an error for
 * every type, floating point included (PostgreSQL's rule; the setting {@code
 * quiver.sql.division_by_zero} turns it into NULL before execution, see the SQL pipeline).
 */
public record ArithmeticExpr(Op op, PhysicalExpr left, PhysicalExpr right, ArrowType dataType)
    implements PhysicalExpr {

  /** Arithmetic operator. */
  public enum Op {
    ADD("+"),
    SUBTRACT("-"),
    MULTIPLY("*"),
    DIVIDE("/"),
    MODULO("%");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    /** The SQL symbol. */
    public String symbol() {
      return symbol;
    }
  }

  /** Checks that the result type is numeric. */
  public ArithmeticExpr {
    Vectors.Kind k = Vectors.kind(dataType);
    if (k != Vectors.Kind.INT && k != Vectors.Kind.DOUBLE && k != Vectors.Kind.DECIMAL) {
      throw new QueryTypeException(
          "Cannot apply '"
              + op.symbol
              + "' to "
              + Vectors.sqlName(left.dataType())
              + " and "
              + Vectors.sqlName(right.dataType())
              + " with result type "
              + Vectors.sqlName(dataType));
    }
  }

  @Override
  public boolean nullable() {
    return left.nullable() || right.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(left, right);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand l = Operand.of(left, batch, allocator);
        Operand r = Operand.of(right, batch, allocator)) {
      if (l.allNull() || r.allNull()) {
        return Vectors.nulls(dataType, n, allocator);
      }
      long[] valid = Bits.and(l.validity(), r.validity());
      switch (Vectors.kind(dataType)) {
        case INT:
          if (l.kind() == Vectors.Kind.DECIMAL || r.kind() == Vectors.Kind.DECIMAL) {
            return decimalKernel(l, r, valid, n, 0, 38, allocator, true);
          }
          return Kernels.writeInts(
              intKernel(l.longs(), r.longs(), valid, n), valid, dataType, n, allocator, this);
        case DOUBLE:
          double[] divisors = r.doubles();
          if (op == Op.DIVIDE || op == Op.MODULO) {
            // One rule for every type (PostgreSQL's): a zero divisor fails, also for floats.
            for (int i = 0; i < n; i++) {
              if (divisors[i] == 0 && Bits.valid(valid, i)) {
                throw divisionByZero();
              }
            }
          }
          return Kernels.writeDoubles(doubleKernel(l.doubles(), divisors, n), valid, n, allocator);
        default:
          ArrowType.Decimal d = (ArrowType.Decimal) dataType;
          return decimalKernel(l, r, valid, n, d.getScale(), d.getPrecision(), allocator, false);
      }
    }
  }

  private long[] intKernel(long[] a, long[] b, long[] valid, int n) {
    long[] res = new long[n];
    try {
      switch (op) {
        case ADD:
          for (int i = 0; i < n; i++) {
            res[i] = Math.addExact(a[i], b[i]);
          }
          break;
        case SUBTRACT:
          for (int i = 0; i < n; i++) {
            res[i] = Math.subtractExact(a[i], b[i]);
          }
          break;
        case MULTIPLY:
          for (int i = 0; i < n; i++) {
            res[i] = Math.multiplyExact(a[i], b[i]);
          }
          break;
        case DIVIDE:
          for (int i = 0; i < n; i++) {
            if (b[i] == -1 && a[i] == Long.MIN_VALUE) {
              throw new ArithmeticException("overflow");
            }
            res[i] = a[i] / b[i];
          }
          break;
        default:
          for (int i = 0; i < n; i++) {
            res[i] = b[i] == -1 ? 0 : a[i] % b[i];
          }
      }
      return res;
    } catch (ArithmeticException e) {
      // Rare: redo row by row so that garbage under null rows is ignored and errors name values.
      for (int i = 0; i < n; i++) {
        res[i] = Bits.valid(valid, i) ? intRow(a[i], b[i]) : 0;
      }
      return res;
    }
  }

  private long intRow(long a, long b) {
    try {
      switch (op) {
        case ADD:
          return Math.addExact(a, b);
        case SUBTRACT:
          return Math.subtractExact(a, b);
        case MULTIPLY:
          return Math.multiplyExact(a, b);
        case DIVIDE:
          if (b == 0) {
            throw divisionByZero();
          }
          if (b == -1 && a == Long.MIN_VALUE) {
            throw new ArithmeticException("overflow");
          }
          return a / b;
        default:
          if (b == 0) {
            throw divisionByZero();
          }
          return b == -1 ? 0 : a % b;
      }
    } catch (ArithmeticException e) {
      throw new QuiverException(
          "Integer overflow: "
              + a
              + " "
              + op.symbol
              + " "
              + b
              + " is out of range for "
              + Vectors.sqlName(dataType)
              + "; cast an operand to BIGINT or DECIMAL");
    }
  }

  static QuiverException divisionByZero() {
    return new QuiverException(
        "Division by zero; SET quiver.sql.division_by_zero = 'null' to get NULL instead");
  }

  private double[] doubleKernel(double[] a, double[] b, int n) {
    double[] res = new double[n];
    switch (op) {
      case ADD:
        for (int i = 0; i < n; i++) {
          res[i] = a[i] + b[i];
        }
        break;
      case SUBTRACT:
        for (int i = 0; i < n; i++) {
          res[i] = a[i] - b[i];
        }
        break;
      case MULTIPLY:
        for (int i = 0; i < n; i++) {
          res[i] = a[i] * b[i];
        }
        break;
      case DIVIDE:
        for (int i = 0; i < n; i++) {
          res[i] = a[i] / b[i];
        }
        break;
      default:
        for (int i = 0; i < n; i++) {
          res[i] = a[i] % b[i];
        }
    }
    return res;
  }

  private FieldVector decimalKernel(
      Operand l,
      Operand r,
      long[] valid,
      int n,
      int scale,
      int precision,
      BufferAllocator allocator,
      boolean toInt) {
    if (!toInt && (op == Op.ADD || op == Op.SUBTRACT || op == Op.MULTIPLY)) {
      FieldVector fused = decimalFused(l, r, valid, n, scale, precision, allocator);
      if (fused != null) {
        return fused;
      }
    }
    boolean aligned = op == Op.ADD || op == Op.SUBTRACT || op == Op.MODULO;
    int common = Math.max(Kernels.scaleOf(l.type), Kernels.scaleOf(r.type));
    Operand.DecimalData a = l.decimals(aligned ? common : 0);
    Operand.DecimalData b = r.decimals(aligned ? common : 0);
    long[] small =
        a.small != null && b.small != null ? decimalFast(a, b, n, scale, precision) : null;
    BigInteger[] big = null;
    if (small == null) {
      big = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          big[i] = decimalRow(a.bigAt(i), b.bigAt(i), a.scale, b.scale, scale, precision);
        }
      }
    }
    if (toInt) {
      long[] ints = new long[n];
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          ints[i] = small != null ? small[i] : big[i].longValue();
        }
      }
      return Kernels.writeInts(ints, valid, dataType, n, allocator, this);
    }
    return Kernels.writeDecimals(small, big, valid, dataType, n, allocator);
  }

  /**
   * ADD, SUBTRACT or MULTIPLY of 64-bit decimals (DECIMAL vectors or constants) in one pass from
   * the input buffers to the output's, for the common case where no rescaling of the result is
   * needed: {@code l_extendedprice * (1 - l_discount)}. Returns null, having allocated nothing that
   * survives, when a valid row does not fit 64 bits, overflows or exceeds the precision; the
   * general path then computes (or reports) it exactly.
   */
  private FieldVector decimalFused(
      Operand l, Operand r, long[] valid, int n, int scale, int precision, BufferAllocator a) {
    int sl = Kernels.scaleOf(l.type);
    int sr = Kernels.scaleOf(r.type);
    boolean multiply = op == Op.MULTIPLY;
    int common = Math.max(sl, sr);
    if (scale != (multiply ? sl + sr : common) || scale > 18 || n == 0) {
      return null;
    }
    if (l.isScalar() && r.isScalar()) {
      return null;
    }
    if (!(l.isScalar() || l.vector instanceof DecimalVector)
        || !(r.isScalar() || r.vector instanceof DecimalVector)) {
      return null;
    }
    long fl = multiply ? 1 : Decimals.POW10[common - sl];
    long fr = multiply ? 1 : Decimals.POW10[common - sr];
    long cl = 0;
    long cr = 0;
    try {
      if (l.isScalar()) {
        BigInteger u = l.unscaledScalar(sl);
        if (u.bitLength() >= 64) {
          return null;
        }
        cl = Math.multiplyExact(u.longValue(), fl);
      }
      if (r.isScalar()) {
        BigInteger u = r.unscaledScalar(sr);
        if (u.bitLength() >= 64) {
          return null;
        }
        cr = Math.multiplyExact(u.longValue(), fr);
      }
    } catch (ArithmeticException e) {
      return null;
    }
    long la = l.isScalar() ? 0 : Raw.address(l.vector.getDataBuffer(), n * 16L);
    long ra = r.isScalar() ? 0 : Raw.address(r.vector.getDataBuffer(), n * 16L);
    long bound = precision >= 19 ? Long.MAX_VALUE : Decimals.POW10[precision];
    FieldVector out = Vectors.allocate(dataType, n, a);
    try {
      long oa = Raw.address(out.getDataBuffer(), n * 16L);
      for (int i = 0; i < n; i++) {
        long x = cl;
        long y = cr;
        boolean fits = true;
        if (la != 0) {
          x = Raw.getLong(la + i * 16L);
          fits = Raw.getLong(la + i * 16L + 8) == x >> 63;
        }
        if (ra != 0) {
          y = Raw.getLong(ra + i * 16L);
          fits &= Raw.getLong(ra + i * 16L + 8) == y >> 63;
        }
        long res;
        if (!Bits.valid(valid, i)) {
          res = 0;
        } else {
          if (!fits) {
            out.close();
            return null;
          }
          if (multiply) {
            res = Math.multiplyExact(x, y);
          } else {
            if (la != 0 && fl != 1) {
              x = Math.multiplyExact(x, fl);
            }
            if (ra != 0 && fr != 1) {
              y = Math.multiplyExact(y, fr);
            }
            res = op == Op.ADD ? Math.addExact(x, y) : Math.subtractExact(x, y);
          }
          if (res >= bound || res <= -bound) {
            out.close();
            return null;
          }
        }
        Raw.putLong(oa + i * 16L, res);
        Raw.putLong(oa + i * 16L + 8, res >> 63);
      }
      Bits.storeValidity(valid, out, n);
      out.setValueCount(n);
      return out;
    } catch (ArithmeticException e) {
      out.close();
      return null;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  /** Long-only path; null when any row needs the exact slow path (overflow, zero divisor). */
  private long[] decimalFast(
      Operand.DecimalData a, Operand.DecimalData b, int n, int scale, int precision) {
    long[] x = a.small;
    long[] y = b.small;
    long[] res = new long[n];
    try {
      switch (op) {
        case ADD:
          for (int i = 0; i < n; i++) {
            res[i] = Math.addExact(x[i], y[i]);
          }
          rescaleInPlace(res, a.scale, scale);
          break;
        case SUBTRACT:
          for (int i = 0; i < n; i++) {
            res[i] = Math.subtractExact(x[i], y[i]);
          }
          rescaleInPlace(res, a.scale, scale);
          break;
        case MULTIPLY:
          for (int i = 0; i < n; i++) {
            res[i] = Math.multiplyExact(x[i], y[i]);
          }
          rescaleInPlace(res, a.scale + b.scale, scale);
          break;
        case DIVIDE:
          int k = scale - a.scale + b.scale;
          if (k >= 0) {
            long f = Decimals.POW10[k];
            for (int i = 0; i < n; i++) {
              res[i] = Decimals.divRound(Math.multiplyExact(x[i], f), y[i]);
            }
          } else {
            long f = Decimals.POW10[-k];
            for (int i = 0; i < n; i++) {
              res[i] = Decimals.divRound(x[i], Math.multiplyExact(y[i], f));
            }
          }
          break;
        default:
          for (int i = 0; i < n; i++) {
            res[i] = x[i] % y[i];
          }
          rescaleInPlace(res, a.scale, scale);
      }
      if (precision < 19) {
        long bound = Decimals.POW10[precision];
        for (int i = 0; i < n; i++) {
          if (res[i] >= bound || res[i] <= -bound) {
            return null;
          }
        }
      }
      return res;
    } catch (ArithmeticException | ArrayIndexOutOfBoundsException e) {
      return null;
    }
  }

  private static void rescaleInPlace(long[] v, int from, int to) {
    if (from == to) {
      return;
    }
    for (int i = 0; i < v.length; i++) {
      v[i] = Decimals.rescale(v[i], from, to);
    }
  }

  private BigInteger decimalRow(
      BigInteger x, BigInteger y, int sx, int sy, int scale, int precision) {
    BigInteger res;
    switch (op) {
      case ADD:
        res = Decimals.rescale(x.add(y), sx, scale);
        break;
      case SUBTRACT:
        res = Decimals.rescale(x.subtract(y), sx, scale);
        break;
      case MULTIPLY:
        res = Decimals.rescale(x.multiply(y), sx + sy, scale);
        break;
      case DIVIDE:
        if (y.signum() == 0) {
          throw divisionByZero();
        }
        int k = scale - sx + sy;
        res =
            k >= 0
                ? Decimals.divRound(x.multiply(Decimals.BIG_POW10[k]), y)
                : Decimals.divRound(x, y.multiply(Decimals.BIG_POW10[-k]));
        break;
      default:
        if (y.signum() == 0) {
          throw divisionByZero();
        }
        res = Decimals.rescale(x.remainder(y), sx, scale);
    }
    if (!Decimals.fits(res, precision)) {
      throw Decimals.overflow(
          new java.math.BigDecimal(x, sx) + " " + op.symbol + " " + new java.math.BigDecimal(y, sy),
          precision,
          scale);
    }
    return res;
  }

  @Override
  public String toString() {
    return "(" + left + " " + op.symbol + " " + right + ")";
  }
}
