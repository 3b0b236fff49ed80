package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import java.time.LocalDate;
import java.time.temporal.IsoFields;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code EXTRACT(field FROM date|timestamp)} as an integer. DOW counts Sunday = 0 .. Saturday = 6
 * and WEEK is the ISO week, as in PostgreSQL and DuckDB.
 */
public record ExtractExpr(Field field, PhysicalExpr child, ArrowType dataType)
    implements PhysicalExpr {

  /** Extractable fields. */
  public enum Field {
    MILLENNIUM,
    CENTURY,
    DECADE,
    YEAR,
    ISOYEAR,
    QUARTER,
    MONTH,
    WEEK,
    DAY,
    DOW,
    ISODOW,
    DOY,
    HOUR,
    MINUTE,
    SECOND,
    MILLISECOND,
    MICROSECOND,
    EPOCH
  }

  /** Checks the operand is a date or timestamp. */
  public ExtractExpr {
    Vectors.Kind k = Vectors.kind(child.dataType());
    if (k != Vectors.Kind.DATE && k != Vectors.Kind.TIMESTAMP && k != Vectors.Kind.NULL) {
      throw new QueryTypeException(
          "EXTRACT("
              + field
              + ") expects a DATE or TIMESTAMP, got "
              + Vectors.sqlName(child.dataType()));
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
      long[] res = new long[n];
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          long days = ts ? Math.floorDiv(v[i], Vectors.MICROS_PER_DAY) : v[i];
          long micros = ts ? Math.floorMod(v[i], Vectors.MICROS_PER_DAY) : 0;
          res[i] = extract(field, days, micros, ts ? v[i] : days * Vectors.MICROS_PER_DAY);
        }
      }
      if (Vectors.kind(dataType) == Vectors.Kind.INT) {
        return Kernels.writeInts(res, valid, dataType, n, allocator, this);
      }
      double[] d = new double[n];
      for (int i = 0; i < n; i++) {
        d[i] = res[i];
      }
      return Kernels.writeDoubles(d, valid, dataType, n, allocator);
    }
  }

  static long extract(Field field, long days, long microsOfDay, long epochMicros) {
    switch (field) {
      case YEAR:
        return Civil.year(Civil.fromDays(days));
      case MILLENNIUM:
        long y = Civil.year(Civil.fromDays(days));
        return y > 0 ? (y + 999) / 1000 : -((-y + 999) / 1000) - 1;
      case CENTURY:
        long yc = Civil.year(Civil.fromDays(days));
        return yc > 0 ? (yc + 99) / 100 : -((-yc + 99) / 100) - 1;
      case DECADE:
        return Math.floorDiv(Civil.year(Civil.fromDays(days)), 10);
      case QUARTER:
        return (Civil.month(Civil.fromDays(days)) - 1) / 3 + 1;
      case MONTH:
        return Civil.month(Civil.fromDays(days));
      case DAY:
        return Civil.day(Civil.fromDays(days));
      case WEEK:
        return LocalDate.ofEpochDay(days).get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
      case ISOYEAR:
        return LocalDate.ofEpochDay(days).get(IsoFields.WEEK_BASED_YEAR);
      case DOW:
        return Civil.isoDow(days) % 7;
      case ISODOW:
        return Civil.isoDow(days);
      case DOY:
        long p = Civil.fromDays(days);
        return days - Civil.toDays(Civil.year(p), 1, 1) + 1;
      case HOUR:
        return microsOfDay / 3_600_000_000L;
      case MINUTE:
        return microsOfDay / 60_000_000L % 60;
      case SECOND:
        return microsOfDay / 1_000_000L % 60;
      case MILLISECOND:
        return microsOfDay / 1_000L % 60_000;
      case MICROSECOND:
        return microsOfDay % 60_000_000L;
      default:
        return Math.floorDiv(epochMicros, 1_000_000L);
    }
  }

  @Override
  public String toString() {
    return "EXTRACT(" + field + " FROM " + child + ")";
  }
}
