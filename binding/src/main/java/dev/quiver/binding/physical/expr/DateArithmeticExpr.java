package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Date and timestamp arithmetic: {@code x ± interval} (day-time intervals in milliseconds,
 * year-month intervals in months, clamped to the end of the month) and {@code x - y} between two
 * dates or timestamps (a day count or a day-time interval, per {@code dataType}).
 */
public record DateArithmeticExpr(Op op, PhysicalExpr left, PhysicalExpr right, ArrowType dataType)
    implements PhysicalExpr {

  /** Operation. */
  public enum Op {
    /** datetime + interval. */
    PLUS,
    /** datetime - interval. */
    MINUS,
    /** datetime - datetime. */
    DIFF
  }

  /** Checks operand kinds. */
  public DateArithmeticExpr {
    Vectors.Kind l = Vectors.kind(left.dataType());
    Vectors.Kind r = Vectors.kind(right.dataType());
    boolean lt = l == Vectors.Kind.DATE || l == Vectors.Kind.TIMESTAMP || l == Vectors.Kind.NULL;
    boolean ok =
        op == Op.DIFF
            ? lt
                && (r == Vectors.Kind.DATE || r == Vectors.Kind.TIMESTAMP || r == Vectors.Kind.NULL)
            : lt
                && (r == Vectors.Kind.INTERVAL_DAY_TIME
                    || r == Vectors.Kind.INTERVAL_MONTHS
                    || r == Vectors.Kind.NULL);
    if (!ok) {
      throw new QueryTypeException(
          "Cannot apply "
              + op
              + " to "
              + Vectors.sqlName(left.dataType())
              + " and "
              + Vectors.sqlName(right.dataType()));
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
      long[] a = micros(l);
      long[] b =
          r.kind() == Vectors.Kind.INTERVAL_DAY_TIME || r.kind() == Vectors.Kind.INTERVAL_MONTHS
              ? r.longs()
              : micros(r);
      long[] res = new long[n];
      if (op == Op.DIFF) {
        Vectors.Kind out = Vectors.kind(dataType);
        for (int i = 0; i < n; i++) {
          long diff = a[i] - b[i];
          switch (out) {
            case INTERVAL_DAY_TIME:
              res[i] = Math.floorDiv(diff, 1_000L);
              break;
            case INTERVAL_MONTHS:
              res[i] = monthsBetween(a[i], b[i]);
              break;
            default:
              res[i] = Math.floorDiv(diff, Vectors.MICROS_PER_DAY);
          }
        }
        if (out == Vectors.Kind.INT) {
          return Kernels.writeInts(res, valid, dataType, n, allocator, this);
        }
        return writeGeneric(res, valid, n, allocator);
      }
      long sign = op == Op.PLUS ? 1 : -1;
      boolean months = r.kind() == Vectors.Kind.INTERVAL_MONTHS;
      for (int i = 0; i < n; i++) {
        if (!Bits.valid(valid, i)) {
          continue;
        }
        if (months) {
          long days = Math.floorDiv(a[i], Vectors.MICROS_PER_DAY);
          long tod = Math.floorMod(a[i], Vectors.MICROS_PER_DAY);
          res[i] = Civil.plusMonths(days, sign * b[i]) * Vectors.MICROS_PER_DAY + tod;
        } else {
          res[i] = a[i] + sign * b[i] * 1_000L;
        }
      }
      if (Vectors.kind(dataType) == Vectors.Kind.DATE) {
        for (int i = 0; i < n; i++) {
          res[i] = Math.floorDiv(res[i], Vectors.MICROS_PER_DAY);
        }
      }
      return Kernels.writeTemporal(res, valid, dataType, n, allocator);
    }
  }

  private static long monthsBetween(long a, long b) {
    long pa = Civil.fromDays(Math.floorDiv(a, Vectors.MICROS_PER_DAY));
    long pb = Civil.fromDays(Math.floorDiv(b, Vectors.MICROS_PER_DAY));
    long months = (Civil.year(pa) * 12 + Civil.month(pa)) - (Civil.year(pb) * 12 + Civil.month(pb));
    if (months > 0 && Civil.day(pa) < Civil.day(pb)) {
      months--;
    } else if (months < 0 && Civil.day(pa) > Civil.day(pb)) {
      months++;
    }
    return months;
  }

  private FieldVector writeGeneric(long[] res, long[] valid, int n, BufferAllocator allocator) {
    FieldVector out = Vectors.allocate(dataType, n, allocator);
    try {
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          Vectors.setValue(out, i, res[i]);
        }
      }
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }

  private static long[] micros(Operand o) {
    long[] v = o.longs();
    if (o.kind() == Vectors.Kind.DATE) {
      for (int i = 0; i < v.length; i++) {
        v[i] *= Vectors.MICROS_PER_DAY;
      }
    }
    return v;
  }

  @Override
  public String toString() {
    return "(" + left + (op == Op.PLUS ? " + " : " - ") + right + ")";
  }
}
