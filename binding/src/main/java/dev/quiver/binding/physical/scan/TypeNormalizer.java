package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Maps the Arrow types file readers produce onto the engine's internal types (e.g. LargeUtf8 to
 * Utf8, Date(MILLI) to Date(DAY), any timestamp to Timestamp(MICROSECOND) without zone, unsigned
 * and 256-bit decimal integers to their signed/128-bit forms, half and single floats to DOUBLE,
 * dictionaries to plain values): the types a table declares, which the Parquet reader decodes into
 * directly.
 */
public final class TypeNormalizer {

  private TypeNormalizer() {}

  /** The schema with every field normalized and all metadata dropped. */
  public static Schema normalize(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Field f : schema.getFields()) {
      fields.add(normalize(f));
    }
    return new Schema(fields);
  }

  /** The field with its type normalized and its metadata dropped. */
  public static Field normalize(Field field) {
    ArrowType type = normalize(field.getType());
    List<Field> children = new ArrayList<>();
    if (field.getDictionary() == null) {
      for (Field c : field.getChildren()) {
        children.add(normalize(c));
      }
    }
    if (type instanceof ArrowType.Map && children.size() == 1) {
      // Quiver names a map's parts entries/key/value whatever the file calls them.
      Field entries = children.get(0);
      if (entries.getChildren().size() == 2) {
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        children =
            List.of(
                new Field(
                    "entries",
                    entries.getFieldType(),
                    List.of(
                        new Field("key", key.getFieldType(), key.getChildren()),
                        new Field("value", value.getFieldType(), value.getChildren()))));
      }
    }
    return new Field(
        field.getName(), new FieldType(field.isNullable(), type, null, null), children);
  }

  /** The internal type for {@code type}; itself when already internal or not convertible. */
  public static ArrowType normalize(ArrowType type) {
    return switch (type.getTypeID()) {
      case LargeUtf8 -> ArrowType.Utf8.INSTANCE;
      case Date -> new ArrowType.Date(DateUnit.DAY);
      case Timestamp -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      case Time -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case LargeList -> ArrowType.List.INSTANCE;
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) type;
        if (i.getIsSigned()) {
          yield type;
        }
        yield new ArrowType.Int(i.getBitWidth() <= 16 ? 32 : 64, true);
      }
      // Quiver computes REAL and FLOAT as DOUBLE (TypeMapping): half and single floats are read
      // widened, which is exact.
      case FloatingPoint -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case Decimal -> {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        yield new ArrowType.Decimal(d.getPrecision(), d.getScale(), 128);
      }
      default -> type;
    };
  }

  /** Checks that a file column can be represented; throws naming the column otherwise. */
  public static void checkSupported(Field field, String source) {
    if (field.getType() instanceof ArrowType.Decimal d && d.getPrecision() > 38) {
      throw new DataSourceException(
          source
              + ": column '"
              + field.getName()
              + "' is DECIMAL("
              + d.getPrecision()
              + ", "
              + d.getScale()
              + "); Quiver supports precision up to 38, cast it in the file's writer");
    }
  }
}
