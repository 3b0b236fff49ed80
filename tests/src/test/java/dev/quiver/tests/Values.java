package dev.quiver.tests;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Converts engine values to the comparator's plain Java values. */
public final class Values {
  private Values() {}

  /** Normalizes a JDBC value: integers to Long, floats to Double, dates to java.time. */
  public static Object fromJdbc(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
      return ((Number) v).longValue();
    }
    if (v instanceof BigInteger b) {
      return b.bitLength() < 64 ? (Object) b.longValue() : new BigDecimal(b);
    }
    if (v instanceof Float || v instanceof Double) {
      return ((Number) v).doubleValue();
    }
    if (v instanceof java.sql.Date d) {
      return d.toLocalDate();
    }
    if (v instanceof java.sql.Timestamp t) {
      return t.toLocalDateTime();
    }
    if (v instanceof OffsetDateTime o) {
      return o.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    if (v instanceof BigDecimal
        || v instanceof String
        || v instanceof Boolean
        || v instanceof LocalDate
        || v instanceof LocalDateTime) {
      return v;
    }
    return v.toString();
  }

  /** Whether an Arrow column holds floating-point values. */
  public static boolean isFloating(ArrowType type) {
    return type instanceof ArrowType.FloatingPoint;
  }

  /** Reads row {@code row} of an Arrow vector as a plain Java value. */
  public static Object fromArrow(FieldVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    if (vector instanceof DecimalVector v) {
      return v.getObject(row);
    }
    if (vector instanceof Float8Vector v) {
      return v.get(row);
    }
    if (vector instanceof Float4Vector v) {
      return (double) v.get(row);
    }
    if (vector instanceof VarCharVector v) {
      return new String(v.get(row), StandardCharsets.UTF_8);
    }
    if (vector instanceof DateDayVector v) {
      return LocalDate.ofEpochDay(v.get(row));
    }
    if (vector instanceof DateMilliVector v) {
      return LocalDate.ofEpochDay(Math.floorDiv(v.get(row), 86_400_000L));
    }
    if (vector instanceof TimeStampVector v) {
      ArrowType.Timestamp type = (ArrowType.Timestamp) v.getField().getType();
      long raw = v.get(row);
      long perSecond =
          switch (type.getUnit()) {
            case SECOND -> 1L;
            case MILLISECOND -> 1_000L;
            case MICROSECOND -> 1_000_000L;
            case NANOSECOND -> 1_000_000_000L;
          };
      long seconds = Math.floorDiv(raw, perSecond);
      long nanos = Math.floorMod(raw, perSecond) * (1_000_000_000L / perSecond);
      return LocalDateTime.ofEpochSecond(seconds, (int) nanos, ZoneOffset.UTC);
    }
    if (vector instanceof BitVector v) {
      return v.get(row) != 0;
    }
    Object o = vector.getObject(row);
    if (o instanceof Number n && !(o instanceof BigDecimal)) {
      return n.longValue();
    }
    return o == null
        ? null
        : fromJdbc(o instanceof org.apache.arrow.vector.util.Text t ? t.toString() : o);
  }
}
