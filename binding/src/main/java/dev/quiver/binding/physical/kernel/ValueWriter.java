package dev.quiver.binding.physical.kernel;

import dev.quiver.binding.errors.QueryTypeException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes plain Java values into vectors: for literal rows (VALUES, INSERT) and tests, not for hot
 * paths. Values follow the literal convention: Boolean, Long/Integer, Double, BigDecimal, String,
 * LocalDate, Long epoch micros (or LocalDateTime) for timestamps, null.
 */
public final class ValueWriter {
  private ValueWriter() {}

  /** Builds a batch of {@code rows} (each a list of values in schema order). */
  public static VectorSchemaRoot batch(
      Schema schema, List<List<Object>> rows, BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    try {
      root.allocateNew();
      for (int r = 0; r < rows.size(); r++) {
        List<Object> row = rows.get(r);
        if (row.size() != schema.getFields().size()) {
          throw new QueryTypeException(
              "Row "
                  + (r + 1)
                  + " has "
                  + row.size()
                  + " values but "
                  + schema.getFields().size()
                  + " columns are expected");
        }
        for (int c = 0; c < row.size(); c++) {
          set(root.getVector(c), r, row.get(c));
        }
      }
      root.setRowCount(rows.size());
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /** Sets {@code vector[index] = value}, growing the vector as needed. */
  public static void set(FieldVector vector, int index, Object value) {
    if (value == null) {
      vector.setNull(index);
      return;
    }
    Field field = vector.getField();
    try {
      if (vector instanceof BigIntVector v) {
        v.setSafe(index, ((Number) value).longValue());
      } else if (vector instanceof IntVector v) {
        v.setSafe(index, ((Number) value).intValue());
      } else if (vector instanceof SmallIntVector v) {
        v.setSafe(index, ((Number) value).shortValue());
      } else if (vector instanceof TinyIntVector v) {
        v.setSafe(index, ((Number) value).byteValue());
      } else if (vector instanceof Float8Vector v) {
        v.setSafe(index, ((Number) value).doubleValue());
      } else if (vector instanceof Float4Vector v) {
        v.setSafe(index, ((Number) value).floatValue());
      } else if (vector instanceof DecimalVector v) {
        BigDecimal d = value instanceof BigDecimal bd ? bd : new BigDecimal(value.toString());
        v.setSafe(index, d.setScale(v.getScale(), RoundingMode.HALF_UP));
      } else if (vector instanceof VarCharVector v) {
        v.setSafe(index, value.toString().getBytes(StandardCharsets.UTF_8));
      } else if (vector instanceof BitVector v) {
        v.setSafe(index, (Boolean) value ? 1 : 0);
      } else if (vector instanceof DateDayVector v) {
        int days =
            value instanceof LocalDate d ? (int) d.toEpochDay() : ((Number) value).intValue();
        v.setSafe(index, days);
      } else if (vector instanceof TimeStampMicroVector v) {
        long micros =
            value instanceof LocalDateTime t
                ? t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000
                : ((Number) value).longValue();
        v.setSafe(index, micros);
      } else {
        throw new QueryTypeException(
            "Cannot write a value into a column of type " + field.getType());
      }
    } catch (ClassCastException e) {
      throw new QueryTypeException(
          "Value "
              + value
              + " ("
              + value.getClass().getSimpleName()
              + ") does not fit column '"
              + field.getName()
              + "' of type "
              + field.getType(),
          e);
    }
  }
}
