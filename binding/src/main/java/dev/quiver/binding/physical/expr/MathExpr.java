package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Numeric functions. ABS, SIGN, ROUND, FLOOR and CEIL keep integers and decimals exact (rounding
 * half away from zero); SQRT, POWER, LN, LOG10, LOG(base, x) and EXP compute in double precision
 * and reject arguments outside their domain.
 */
public record MathExpr(Fn fn, List<PhysicalExpr> args, ArrowType dataType) implements PhysicalExpr {

  /** Supported functions. */
  public enum Fn {
    ABS(1, 1),
    SIGN(1, 1),
    ROUND(1, 2),
    TRUNCATE(1, 2),
    FLOOR(1, 1),
    CEIL(1, 1),
    SQRT(1, 1),
    POWER(2, 2),
    LN(1, 1),
    LOG10(1, 1),
    EXP(1, 1),
    /** LOG(base, x). */
    LOG(2, 2);

    final int minArgs;
    final int maxArgs;

    Fn(int minArgs, int maxArgs) {
      this.minArgs = minArgs;
      this.maxArgs = maxArgs;
    }
  }

  /** Copies the arguments and checks their number and the result type. */
  public MathExpr {
    args = List.copyOf(args);
    if (args.size() < fn.minArgs || args.size() > fn.maxArgs) {
      throw new QueryTypeException(fn + " does not take " + args.size() + " arguments");
    }
    Vectors.Kind k = Vectors.kind(dataType);
    if (k != Vectors.Kind.INT && k != Vectors.Kind.DOUBLE && k != Vectors.Kind.DECIMAL) {
      throw new QueryTypeException(fn + " cannot return " + Vectors.sqlName(dataType));
    }
  }

  @Override
  public boolean nullable() {
    return args.stream().anyMatch(PhysicalExpr::nullable);
  }

  @Override
  public List<PhysicalExpr> children() {
    return args;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand x = Operand.of(args.get(0), batch, allocator);
        Operand y = args.size() > 1 ? Operand.of(args.get(1), batch, allocator) : null) {
      if (x.allNull() || (y != null && y.allNull())) {
        return Vectors.nulls(dataType, n, allocator);
      }
      long[] valid = y == null ? x.validity() : Bits.and(x.validity(), y.validity());
      long[] digits = y == null ? new long[n] : y.longs();
      Vectors.Kind in = x.kind();
      Vectors.Kind out = Vectors.kind(dataType);
      boolean exact =
          fn == Fn.ABS
              || fn == Fn.SIGN
              || fn == Fn.ROUND
              || fn == Fn.TRUNCATE
              || fn == Fn.FLOOR
              || fn == Fn.CEIL;
      if (exact && in != Vectors.Kind.DOUBLE && out != Vectors.Kind.DOUBLE) {
        return exactKernel(x, digits, valid, n, allocator);
      }
      double[] a = x.doubles();
      double[] b = y == null ? null : y.doubles();
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          r[i] = applyDouble(a[i], b == null ? 0 : b[i], digits[i]);
        }
      }
      if (out == Vectors.Kind.DOUBLE) {
        return Kernels.writeDoubles(r, valid, dataType, n, allocator);
      }
      long[] l = new long[n];
      for (int i = 0; i < n; i++) {
        l[i] = (long) r[i];
      }
      if (out == Vectors.Kind.INT) {
        return Kernels.writeInts(l, valid, dataType, n, allocator, this);
      }
      BigInteger[] big = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        big[i] =
            Decimals.unscaled(java.math.BigDecimal.valueOf(r[i]), Vectors.decimalScale(dataType));
      }
      return Kernels.writeDecimals(null, big, valid, dataType, n, allocator);
    }
  }

  private double applyDouble(double a, double b, long digits) {
    switch (fn) {
      case ABS:
        return Math.abs(a);
      case SIGN:
        return Math.signum(a);
      case ROUND:
        {
          if (digits == 0) {
            return roundHalfAway(a);
          }
          double f = Math.pow(10, digits);
          double r = roundHalfAway(a * f) / f;
          return Double.isFinite(r) ? r : a;
        }
      case TRUNCATE:
        {
          double f = Math.pow(10, digits);
          double r = (a < 0 ? Math.ceil(a * f) : Math.floor(a * f)) / f;
          return Double.isFinite(r) ? r : a;
        }
      case FLOOR:
        return Math.floor(a);
      case CEIL:
        return Math.ceil(a);
      case SQRT:
        if (a < 0) {
          throw new QuiverException("Cannot take the square root of a negative number: " + a);
        }
        return Math.sqrt(a);
      case POWER:
        return Math.pow(a, b);
      case LN:
      case LOG10:
        if (a <= 0) {
          throw new QuiverException(
              "Cannot take the logarithm of " + (a == 0 ? "zero" : "a negative number: " + a));
        }
        return fn == Fn.LN ? Math.log(a) : Math.log10(a);
      case LOG:
        if (a <= 0 || a == 1 || b <= 0) {
          throw new QuiverException(
              "Cannot take the logarithm of "
                  + b
                  + " to the base "
                  + a
                  + "; both must be positive and the base must not be 1");
        }
        return Math.log(b) / Math.log(a);
      default:
        return Math.exp(a);
    }
  }

  private static double roundHalfAway(double v) {
    return v < 0 ? -Math.floor(-v + 0.5) : Math.floor(v + 0.5);
  }

  /** ABS/SIGN/ROUND/TRUNCATE/FLOOR/CEIL on integers and decimals, exactly. */
  private FieldVector exactKernel(
      Operand x, long[] digits, long[] valid, int n, BufferAllocator allocator) {
    int inScale = Kernels.scaleOf(x.type);
    int outScale = Kernels.scaleOf(dataType);
    Operand.DecimalData d = x.decimals(0);
    BigInteger[] res = new BigInteger[n];
    long[] small = d.small != null ? new long[n] : null;
    for (int i = 0; i < n; i++) {
      if (!Bits.valid(valid, i)) {
        continue;
      }
      if (small != null) {
        try {
          small[i] = exactRow(d.small[i], inScale, outScale, digits[i]);
          continue;
        } catch (ArithmeticException | ArrayIndexOutOfBoundsException e) {
          // Falls through to the BigInteger path for this row.
        }
      }
      res[i] = exactRowBig(d.bigAt(i), inScale, outScale, digits[i]);
    }
    boolean allSmall = small != null;
    if (allSmall) {
      for (int i = 0; i < n; i++) {
        if (res[i] != null) {
          allSmall = false;
          break;
        }
      }
    }
    if (!allSmall) {
      for (int i = 0; i < n; i++) {
        if (res[i] == null && small != null && Bits.valid(valid, i)) {
          res[i] = BigInteger.valueOf(small[i]);
        }
      }
    }
    if (Vectors.kind(dataType) == Vectors.Kind.INT) {
      long[] l = allSmall ? small : new long[n];
      if (!allSmall) {
        for (int i = 0; i < n; i++) {
          if (res[i] != null) {
            if (res[i].bitLength() > 63) {
              throw new QuiverException("Integer overflow in " + fn + ": " + res[i]);
            }
            l[i] = res[i].longValue();
          }
        }
      }
      return Kernels.writeInts(l, valid, dataType, n, allocator, this);
    }
    return Kernels.writeDecimals(
        allSmall ? small : null, allSmall ? null : res, valid, dataType, n, allocator);
  }

  private long exactRow(long v, int inScale, int outScale, long digits) {
    long r;
    switch (fn) {
      case ABS:
        r = Math.absExact(v);
        return Decimals.rescale(r, inScale, outScale);
      case SIGN:
        return Decimals.rescale(Long.signum(v), 0, outScale);
      case FLOOR:
      case CEIL:
        {
          long f = Decimals.POW10[inScale];
          long q = Math.floorDiv(v, f);
          if (fn == Fn.CEIL && q * f != v) {
            q++;
          }
          return Decimals.rescale(q, 0, outScale);
        }
      default:
        {
          // ROUND / TRUNCATE to `digits` fractional digits, then express at the output scale.
          long drop = inScale - digits;
          if (drop <= 0) {
            return Decimals.rescale(v, inScale, outScale);
          }
          if (drop > 18) {
            return 0;
          }
          long f = Decimals.POW10[(int) drop];
          long q = fn == Fn.ROUND ? Decimals.divRound(v, f) : v / f;
          return Decimals.rescale(Math.multiplyExact(q, f), inScale, outScale);
        }
    }
  }

  private BigInteger exactRowBig(BigInteger v, int inScale, int outScale, long digits) {
    switch (fn) {
      case ABS:
        return Decimals.rescale(v.abs(), inScale, outScale);
      case SIGN:
        return Decimals.rescale(BigInteger.valueOf(v.signum()), 0, outScale);
      case FLOOR:
      case CEIL:
        {
          BigInteger[] qr = v.divideAndRemainder(Decimals.BIG_POW10[inScale]);
          BigInteger q = qr[0];
          if (qr[1].signum() < 0 && fn == Fn.FLOOR) {
            q = q.subtract(BigInteger.ONE);
          } else if (qr[1].signum() > 0 && fn == Fn.CEIL) {
            q = q.add(BigInteger.ONE);
          }
          return Decimals.rescale(q, 0, outScale);
        }
      default:
        {
          long drop = inScale - digits;
          if (drop <= 0) {
            return Decimals.rescale(v, inScale, outScale);
          }
          if (drop >= Decimals.BIG_POW10.length) {
            return BigInteger.ZERO;
          }
          BigInteger f = Decimals.BIG_POW10[(int) drop];
          BigInteger q = fn == Fn.ROUND ? Decimals.divRound(v, f) : v.divide(f);
          return Decimals.rescale(q.multiply(f), inScale, outScale);
        }
    }
  }

  @Override
  public String toString() {
    return fn + args.toString().replace('[', '(').replace(']', ')');
  }
}
