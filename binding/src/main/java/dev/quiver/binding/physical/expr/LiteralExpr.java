package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A constant. Values: null, Boolean, Long (integers), Double, BigDecimal (at the type's scale),
 * String, LocalDate, Long epoch micros (timestamps), Long millis (day-time intervals) or Long
 * months (year-month intervals).
 */
public record LiteralExpr(Object value, ArrowType dataType) implements PhysicalExpr {

  /** Normalizes the value to the convention of {@code dataType}. */
  public LiteralExpr {
    value = normalize(value, dataType);
  }

  /** A typed NULL. */
  public static LiteralExpr nullOf(ArrowType type) {
    return new LiteralExpr(null, type);
  }

  private static Object normalize(Object value, ArrowType type) {
    if (value == null) {
      return null;
    }
    Vectors.Kind kind = Vectors.kind(type);
    try {
      switch (kind) {
        case INT:
          if (value instanceof BigDecimal d) {
            return d.longValueExact();
          }
          return ((Number) value).longValue();
        case DOUBLE:
          return ((Number) value).doubleValue();
        case DECIMAL:
          BigDecimal d =
              value instanceof BigDecimal b
                  ? b
                  : value instanceof Double || value instanceof Float
                      ? BigDecimal.valueOf(((Number) value).doubleValue())
                      : BigDecimal.valueOf(((Number) value).longValue());
          BigDecimal scaled = d.setScale(Vectors.decimalScale(type), RoundingMode.HALF_UP);
          if (!Decimals.fits(scaled.unscaledValue(), Vectors.decimalPrecision(type))) {
            throw Decimals.overflow(d, Vectors.decimalPrecision(type), Vectors.decimalScale(type));
          }
          return scaled;
        case STRING:
          return (String) value;
        case BOOL:
          return (Boolean) value;
        case DATE:
          if (value instanceof LocalDate) {
            return value;
          }
          return LocalDate.ofEpochDay(((Number) value).longValue());
        case TIMESTAMP:
          if (value instanceof LocalDateTime t) {
            return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000;
          }
          return ((Number) value).longValue();
        case INTERVAL_DAY_TIME:
        case INTERVAL_MONTHS:
          return ((Number) value).longValue();
        case NULL:
          throw new QueryTypeException("A NULL-typed literal cannot hold the value " + value);
        default:
          throw new QueryTypeException(
              "Literals of type " + Vectors.sqlName(type) + " are not supported");
      }
    } catch (ClassCastException | ArithmeticException e) {
      throw new QueryTypeException(
          "Literal "
              + value
              + " ("
              + value.getClass().getSimpleName()
              + ") does not fit type "
              + Vectors.sqlName(type),
          e);
    }
  }

  @Override
  public boolean nullable() {
    return value == null;
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of();
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    return materialize(batch.getRowCount(), allocator);
  }

  /** A vector holding this value {@code n} times. */
  public FieldVector materialize(int n, BufferAllocator allocator) {
    FieldVector out = Vectors.allocate(dataType, n, allocator);
    try {
      if (value != null && n > 0) {
        fill(out, n);
        Bits.storeValidity(null, out, n);
      }
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }

  private void fill(FieldVector out, int n) {
    if (out instanceof BigIntVector || out instanceof TimeStampMicroVector) {
      long v = (Long) value;
      ArrowBuf data = out.getDataBuffer();
      for (int i = 0; i < n; i++) {
        data.setLong(i * 8L, v);
      }
    } else if (out instanceof IntVector) {
      int v = (int) (long) (Long) value;
      ArrowBuf data = out.getDataBuffer();
      for (int i = 0; i < n; i++) {
        data.setInt(i * 4L, v);
      }
    } else if (out instanceof DateDayVector) {
      int v = Math.toIntExact(((LocalDate) value).toEpochDay());
      ArrowBuf data = out.getDataBuffer();
      for (int i = 0; i < n; i++) {
        data.setInt(i * 4L, v);
      }
    } else if (out instanceof Float8Vector) {
      double v = (Double) value;
      ArrowBuf data = out.getDataBuffer();
      for (int i = 0; i < n; i++) {
        data.setDouble(i * 8L, v);
      }
    } else if (out instanceof DecimalVector) {
      BigInteger u = ((BigDecimal) value).unscaledValue();
      ArrowBuf data = out.getDataBuffer();
      for (int i = 0; i < n; i++) {
        Decimals.setBig(data, i, u);
      }
    } else if (out instanceof VarCharVector vc) {
      byte[] bytes = ((String) value).getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < n; i++) {
        vc.setSafe(i, bytes);
      }
    } else {
      for (int i = 0; i < n; i++) {
        Vectors.setValue(out, i, value);
      }
    }
  }

  @Override
  public String toString() {
    if (value == null) {
      return "NULL";
    }
    return value instanceof String s ? "'" + s.replace("'", "''") + "'" : value.toString();
  }
}
