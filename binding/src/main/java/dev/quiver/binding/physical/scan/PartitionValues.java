package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Values of partition columns (Hive folders {@code name=value}): parsed from their folder text and
 * written as constant vectors beside the columns read from a file.
 */
public final class PartitionValues {
  private PartitionValues() {}

  /** Whether a partition column may have {@code type}. */
  public static boolean supported(ArrowType type) {
    return switch (type.getTypeID()) {
      case Int ->
          ((ArrowType.Int) type).getIsSigned()
              && (((ArrowType.Int) type).getBitWidth() == 64
                  || ((ArrowType.Int) type).getBitWidth() == 32);
      case FloatingPoint, Bool, Utf8 -> true;
      case Date -> ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY;
      default -> false;
    };
  }

  /**
   * {@code text} as a value of {@code type} (Long, Integer, Double, Boolean, day, String), or null
   * when it does not parse.
   */
  public static Object parse(String text, ArrowType type) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    try {
      return switch (type.getTypeID()) {
        case Int -> {
          long v = CsvValues.parseLong(b, 0, b.length);
          if (((ArrowType.Int) type).getBitWidth() == 32) {
            yield v == (int) v ? (Object) (int) v : null;
          }
          yield v;
        }
        case FloatingPoint -> CsvValues.parseDouble(b, 0, b.length);
        case Bool -> {
          int v = CsvValues.parseBoolean(b, 0, b.length, false);
          yield v < 0 ? null : v == 1;
        }
        case Date -> {
          long d = CsvValues.parseDate(b, 0, b.length);
          yield d == CsvValues.NOT_A_DATE ? null : (Object) (int) d;
        }
        case Utf8 -> text;
        default -> null;
      };
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Fills {@code vector} (allocated) with {@code rows} copies of {@code text} (null: NULL). */
  public static void fill(FieldVector vector, String text, int rows) {
    ArrowType type = vector.getField().getType();
    Object value = text == null ? null : parse(text, type);
    if (text != null && value == null) {
      throw new DataSourceException(
          "Partition folder "
              + vector.getField().getName()
              + "="
              + text
              + " is not a valid "
              + type
              + "; give the partition column another type");
    }
    for (int r = 0; r < rows; r++) {
      if (value == null) {
        vector.setNull(r);
        continue;
      }
      if (vector instanceof BigIntVector v) {
        v.setSafe(r, (Long) value);
      } else if (vector instanceof IntVector v) {
        v.setSafe(r, (Integer) value);
      } else if (vector instanceof Float8Vector v) {
        v.setSafe(r, (Double) value);
      } else if (vector instanceof BitVector v) {
        v.setSafe(r, ((Boolean) value) ? 1 : 0);
      } else if (vector instanceof DateDayVector v) {
        v.setSafe(r, (Integer) value);
      } else if (vector instanceof VarCharVector v) {
        v.setSafe(r, ((String) value).getBytes(StandardCharsets.UTF_8));
      } else {
        throw new DataSourceException(
            "Partition column " + vector.getField().getName() + " cannot have type " + type);
      }
    }
    vector.setValueCount(rows);
  }
}
