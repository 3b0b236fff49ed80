package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code DATE_TRUNC(unit, x)} (or {@code FLOOR(x TO unit)}; with {@code ceil}, {@code CEIL(x TO
 * unit)}) on dates and timestamps, producing a DATE or TIMESTAMP. Weeks start on Monday.
 */
public record DateTruncExpr(Unit unit, PhysicalExpr child, boolean ceil, ArrowType dataType)
    implements PhysicalExpr {

  /** Truncation units. */
  public enum Unit {
    MILLENNIUM,
    CENTURY,
    DECADE,
    YEAR,
    QUARTER,
    MONTH,
    WEEK,
    DAY,
    HOUR,
    MINUTE,
    SECOND,
    MILLISECOND,
    MICROSECOND
  }

  /** Checks operand and result types. */
  public DateTruncExpr {
    Vectors.Kind k = Vectors.kind(child.dataType());
    Vectors.Kind r = Vectors.kind(dataType);
    if ((k != Vectors.Kind.DATE && k != Vectors.Kind.TIMESTAMP && k != Vectors.Kind.NULL)
        || (r != Vectors.Kind.DATE && r != Vectors.Kind.TIMESTAMP)) {
      throw new QueryTypeException(
          "DATE_TRUNC expects a DATE or TIMESTAMP, got " + Vectors.sqlName(child.dataType()));
    }
  }

  @Override
  public boolean nullable() {
    return child.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(child);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand o = Operand.of(child, batch, allocator)) {
      if (o.allNull()) {
        return Vectors.nulls(dataType, n, allocator);
      }
      long[] valid = o.validity();
      long[] v = o.longs();
      boolean ts = o.kind() == Vectors.Kind.TIMESTAMP;
      boolean outDate = Vectors.kind(dataType) == Vectors.Kind.DATE;
      for (int i = 0; i < n; i++) {
        if (!Bits.valid(valid, i)) {
          continue;
        }
        long micros = ts ? v[i] : v[i] * Vectors.MICROS_PER_DAY;
        long t = truncate(unit, micros);
        if (ceil && t != micros) {
          t = next(unit, t);
        }
        v[i] = outDate ? Math.floorDiv(t, Vectors.MICROS_PER_DAY) : t;
      }
      return Kernels.writeTemporal(outDate ? v : v, valid, dataType, n, allocator);
    }
  }

  static long truncate(Unit unit, long micros) {
    long days = Math.floorDiv(micros, Vectors.MICROS_PER_DAY);
    long p;
    switch (unit) {
      case MICROSECOND:
        return micros;
      case MILLISECOND:
        return Math.floorDiv(micros, 1_000L) * 1_000L;
      case SECOND:
        return Math.floorDiv(micros, 1_000_000L) * 1_000_000L;
      case MINUTE:
        return Math.floorDiv(micros, 60_000_000L) * 60_000_000L;
      case HOUR:
        return Math.floorDiv(micros, 3_600_000_000L) * 3_600_000_000L;
      case DAY:
        return days * Vectors.MICROS_PER_DAY;
      case WEEK:
        return (days - (Civil.isoDow(days) - 1)) * Vectors.MICROS_PER_DAY;
      default:
        p = Civil.fromDays(days);
    }
    long y = Civil.year(p);
    int m = Civil.month(p);
    switch (unit) {
      case MONTH:
        return Civil.toDays(y, m, 1) * Vectors.MICROS_PER_DAY;
      case QUARTER:
        return Civil.toDays(y, (m - 1) / 3 * 3 + 1, 1) * Vectors.MICROS_PER_DAY;
      case YEAR:
        return Civil.toDays(y, 1, 1) * Vectors.MICROS_PER_DAY;
      case DECADE:
        return Civil.toDays(Math.floorDiv(y, 10) * 10, 1, 1) * Vectors.MICROS_PER_DAY;
      case CENTURY:
        return Civil.toDays(Math.floorDiv(y - 1, 100) * 100 + 1, 1, 1) * Vectors.MICROS_PER_DAY;
      default:
        return Civil.toDays(Math.floorDiv(y - 1, 1000) * 1000 + 1, 1, 1) * Vectors.MICROS_PER_DAY;
    }
  }

  private static long next(Unit unit, long t) {
    long days = Math.floorDiv(t, Vectors.MICROS_PER_DAY);
    switch (unit) {
      case MILLISECOND:
        return t + 1_000L;
      case SECOND:
        return t + 1_000_000L;
      case MINUTE:
        return t + 60_000_000L;
      case HOUR:
        return t + 3_600_000_000L;
      case DAY:
        return t + Vectors.MICROS_PER_DAY;
      case WEEK:
        return t + 7 * Vectors.MICROS_PER_DAY;
      case MONTH:
        return Civil.plusMonths(days, 1) * Vectors.MICROS_PER_DAY;
      case QUARTER:
        return Civil.plusMonths(days, 3) * Vectors.MICROS_PER_DAY;
      case YEAR:
        return Civil.plusMonths(days, 12) * Vectors.MICROS_PER_DAY;
      case DECADE:
        return Civil.plusMonths(days, 120) * Vectors.MICROS_PER_DAY;
      case CENTURY:
        return Civil.plusMonths(days, 1200) * Vectors.MICROS_PER_DAY;
      case MILLENNIUM:
        return Civil.plusMonths(days, 12000) * Vectors.MICROS_PER_DAY;
      default:
        return t;
    }
  }

  @Override
  public String toString() {
    return (ceil ? "CEIL(" : "DATE_TRUNC(") + unit + ", " + child + ")";
  }
}
