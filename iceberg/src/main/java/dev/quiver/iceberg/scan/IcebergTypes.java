package dev.quiver.iceberg.scan;

import dev.quiver.binding.errors.UnsupportedFeatureException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Iceberg types as the engine's Arrow types; {@code float} reads as DOUBLE, the engine's one
 * floating-point type in SQL. {@code timestamptz} values are UTC instants and read as timestamps
 * without a zone (the engine's one timestamp type), as Parquet's UTC-adjusted timestamps are. Types
 * the engine has no column type for (binary, fixed, uuid, nanosecond timestamps, variant, geometry)
 * are an {@link UnsupportedFeatureException} naming the column.
 */
public final class IcebergTypes {
  private IcebergTypes() {}

  /** The table's columns as an Arrow schema, in the Iceberg schema's order. */
  public static Schema toArrow(org.apache.iceberg.Schema schema, String table) {
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      fields.add(toArrow(f, table));
    }
    return new Schema(fields);
  }

  /** One column (with its nested fields) as an Arrow field. */
  public static Field toArrow(Types.NestedField field, String table) {
    Type type = field.type();
    String name = field.name();
    return switch (type.typeId()) {
      case STRUCT -> {
        List<Field> children = new ArrayList<>();
        for (Types.NestedField c : type.asStructType().fields()) {
          children.add(toArrow(c, table));
        }
        yield new Field(
            name, new FieldType(field.isOptional(), ArrowType.Struct.INSTANCE, null), children);
      }
      case LIST -> {
        Types.ListType list = type.asListType();
        Field element = toArrow(list.fields().get(0), table);
        yield new Field(
            name,
            new FieldType(field.isOptional(), ArrowType.List.INSTANCE, null),
            List.of(new Field("element", element.getFieldType(), element.getChildren())));
      }
      case MAP -> {
        Types.MapType map = type.asMapType();
        Field key = toArrow(map.fields().get(0), table);
        Field value = toArrow(map.fields().get(1), table);
        Field entries =
            new Field(
                "entries",
                new FieldType(false, ArrowType.Struct.INSTANCE, null),
                List.of(
                    new Field("key", new FieldType(false, key.getType(), null), key.getChildren()),
                    new Field("value", value.getFieldType(), value.getChildren())));
        yield new Field(
            name,
            new FieldType(field.isOptional(), new ArrowType.Map(false), null),
            List.of(entries));
      }
      default ->
          new Field(
              name, new FieldType(field.isOptional(), primitive(type, name, table), null), null);
    };
  }

  private static ArrowType primitive(Type type, String column, String table) {
    return switch (type.typeId()) {
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case INTEGER -> new ArrowType.Int(32, true);
      case LONG -> new ArrowType.Int(64, true);
      // SQL REAL computes as DOUBLE in the engine; file floats widen exactly.
      case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DECIMAL -> {
        Types.DecimalType d = (Types.DecimalType) type;
        yield new ArrowType.Decimal(d.precision(), d.scale(), 128);
      }
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIME -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      case STRING -> ArrowType.Utf8.INSTANCE;
      default ->
          throw new UnsupportedFeatureException(
              "Iceberg table "
                  + table
                  + ": column "
                  + column
                  + " has type "
                  + type
                  + ", which Quiver does not read yet");
    };
  }
}
