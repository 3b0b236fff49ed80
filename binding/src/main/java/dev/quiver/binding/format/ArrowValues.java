package dev.quiver.binding.format;

import dev.quiver.binding.errors.QuiverException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Arrow values as plain Java values: Integer/Long/Short/Byte, Double/Float, BigDecimal, String,
 * Boolean, LocalDate (dates), LocalDateTime (timestamps without a zone), Instant (with one),
 * LocalTime, Period and Duration (intervals), byte[], List (lists), Map (maps, and structs by field
 * name, both in order), null.
 */
public final class ArrowValues {
  private ArrowValues() {}

  /** The value of {@code vector} at {@code row}, or null. */
  public static Object get(FieldVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    if (vector instanceof IntVector v) {
      return v.get(row);
    }
    if (vector instanceof BigIntVector v) {
      return v.get(row);
    }
    if (vector instanceof SmallIntVector v) {
      return v.get(row);
    }
    if (vector instanceof TinyIntVector v) {
      return v.get(row);
    }
    if (vector instanceof Float8Vector v) {
      return v.get(row);
    }
    if (vector instanceof Float4Vector v) {
      return v.get(row);
    }
    if (vector instanceof DecimalVector v) {
      return v.getObject(row);
    }
    if (vector instanceof VarCharVector v) {
      return new String(v.get(row), StandardCharsets.UTF_8);
    }
    if (vector instanceof LargeVarCharVector v) {
      return new String(v.get(row), StandardCharsets.UTF_8);
    }
    if (vector instanceof BitVector v) {
      return v.get(row) != 0;
    }
    if (vector instanceof DateDayVector v) {
      return LocalDate.ofEpochDay(v.get(row));
    }
    if (vector instanceof DateMilliVector v) {
      return LocalDate.ofEpochDay(Math.floorDiv(v.get(row), 86_400_000L));
    }
    if (vector instanceof TimeStampVector v) {
      return timestamp(v.get(row), (ArrowType.Timestamp) v.getField().getType());
    }
    if (vector instanceof TimeSecVector v) {
      return LocalTime.ofSecondOfDay(v.get(row));
    }
    if (vector instanceof TimeMilliVector v) {
      return LocalTime.ofNanoOfDay(v.get(row) * 1_000_000L);
    }
    if (vector instanceof TimeMicroVector v) {
      return LocalTime.ofNanoOfDay(v.get(row) * 1_000L);
    }
    if (vector instanceof TimeNanoVector v) {
      return LocalTime.ofNanoOfDay(v.get(row));
    }
    if (vector instanceof IntervalYearVector v) {
      return Period.ofMonths(v.get(row));
    }
    if (vector instanceof IntervalDayVector v) {
      return v.getObject(row);
    }
    if (vector instanceof VarBinaryVector v) {
      return v.get(row);
    }
    if (vector instanceof BaseIntVector v) {
      return v.getValueAsLong(row); // unsigned integers
    }
    if (vector instanceof org.apache.arrow.vector.complex.MapVector v) {
      FieldVector entries = v.getDataVector();
      FieldVector keys = entries.getChildrenFromFields().get(0);
      FieldVector values = entries.getChildrenFromFields().get(1);
      java.util.Map<Object, Object> out = new java.util.LinkedHashMap<>();
      for (int i = v.getElementStartIndex(row); i < v.getElementEndIndex(row); i++) {
        out.put(get(keys, i), get(values, i));
      }
      return out;
    }
    if (vector instanceof org.apache.arrow.vector.complex.StructVector v) {
      java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
      for (FieldVector child : v.getChildrenFromFields()) {
        out.put(child.getName(), get(child, row));
      }
      return out;
    }
    if (vector instanceof ListVector v) {
      FieldVector data = v.getDataVector();
      List<Object> out = new ArrayList<>();
      for (int i = v.getElementStartIndex(row); i < v.getElementEndIndex(row); i++) {
        out.add(get(data, i));
      }
      return out;
    }
    if (vector instanceof NullVector) {
      return null;
    }
    throw new QuiverException(
        "Column "
            + vector.getName()
            + " has type "
            + vector.getField().getType()
            + ", which has no Java value mapping; read it from the Arrow batches");
  }

  private static Object timestamp(long value, ArrowType.Timestamp type) {
    long seconds;
    long nanos;
    TimeUnit unit = type.getUnit();
    switch (unit) {
      case SECOND -> {
        seconds = value;
        nanos = 0;
      }
      case MILLISECOND -> {
        seconds = Math.floorDiv(value, 1_000L);
        nanos = Math.floorMod(value, 1_000L) * 1_000_000L;
      }
      case MICROSECOND -> {
        seconds = Math.floorDiv(value, 1_000_000L);
        nanos = Math.floorMod(value, 1_000_000L) * 1_000L;
      }
      default -> {
        seconds = Math.floorDiv(value, 1_000_000_000L);
        nanos = Math.floorMod(value, 1_000_000_000L);
      }
    }
    Instant instant = Instant.ofEpochSecond(seconds, nanos);
    return type.getTimezone() == null ? LocalDateTime.ofInstant(instant, ZoneOffset.UTC) : instant;
  }
}
