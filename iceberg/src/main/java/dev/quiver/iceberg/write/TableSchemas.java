package dev.quiver.iceberg.write;

import dev.quiver.binding.datasource.WritableTableCatalog.PartitionField;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.iceberg.scan.IcebergTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The schemas of written tables: the Iceberg type each engine column is stored as, the Arrow form
 * of a table's columns as its Parquet files hold them (exact Iceberg types, field ids attached),
 * and partition specs from {@code PARTITIONED BY}.
 */
public final class TableSchemas {
  private TableSchemas() {}

  /**
   * The Iceberg schema of a new table with {@code columns} (fresh field ids; the catalog may assign
   * others when it creates the table).
   *
   * @throws UnsupportedFeatureException naming a column of a type Quiver does not write
   */
  public static org.apache.iceberg.Schema icebergSchema(Schema columns, String table) {
    List<Types.NestedField> fields = new ArrayList<>();
    int id = 1;
    for (Field f : columns.getFields()) {
      Type type = icebergType(f, table);
      fields.add(
          f.isNullable()
              ? Types.NestedField.optional(id++, f.getName(), type)
              : Types.NestedField.required(id++, f.getName(), type));
    }
    return new org.apache.iceberg.Schema(fields);
  }

  /** {@code columns} as a table created from them reads: each in its stored type. */
  public static Schema storedSchema(Schema columns, String table) {
    return IcebergTypes.toArrow(icebergSchema(columns, table), table);
  }

  private static Type icebergType(Field f, String table) {
    ArrowType t = f.getType();
    if (t instanceof ArrowType.Bool) {
      return Types.BooleanType.get();
    }
    if (t instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() <= 32) {
      return Types.IntegerType.get();
    }
    if (t instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() == 64) {
      return Types.LongType.get();
    }
    if (t instanceof ArrowType.FloatingPoint) {
      // The engine computes REAL as DOUBLE and reads Iceberg floats as doubles.
      return Types.DoubleType.get();
    }
    if (t instanceof ArrowType.Decimal d && d.getPrecision() <= 38) {
      return Types.DecimalType.of(d.getPrecision(), d.getScale());
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return Types.StringType.get();
    }
    if (t instanceof ArrowType.Date) {
      return Types.DateType.get();
    }
    if (t instanceof ArrowType.Time) {
      return Types.TimeType.get();
    }
    if (t instanceof ArrowType.Timestamp) {
      return Types.TimestampType.withoutZone();
    }
    throw new UnsupportedFeatureException(
        "Iceberg table "
            + table
            + ": column "
            + f.getName()
            + " has type "
            + t
            + ", which Quiver does not write to Iceberg tables yet");
  }

  /**
   * The Arrow schema of the data files of a table with {@code schema}: each column in its exact
   * Iceberg type (float as FLOAT4, timestamptz with zone UTC) and its field id as Parquet field-id
   * metadata.
   *
   * @throws UnsupportedFeatureException for nested or other columns Quiver does not write
   */
  static Schema fileSchema(org.apache.iceberg.Schema schema, String table) {
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField c : schema.columns()) {
      if (!c.type().isPrimitiveType()) {
        throw new UnsupportedFeatureException(
            "Iceberg table "
                + table
                + ": column "
                + c.name()
                + " is "
                + c.type()
                + "; Quiver does not write nested columns yet");
      }
      ArrowType type =
          switch (c.type().typeId()) {
            case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case TIMESTAMP ->
                ((Types.TimestampType) c.type()).shouldAdjustToUTC()
                    ? new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")
                    : new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
            default -> IcebergTypes.toArrow(c, table).getType();
          };
      fields.add(
          new Field(
              c.name(),
              new FieldType(
                  c.isOptional(),
                  type,
                  null,
                  Map.of(ParquetFiles.FIELD_ID, Integer.toString(c.fieldId()))),
              null));
    }
    return new Schema(fields);
  }

  /** The partition spec of {@code PARTITIONED BY} over {@code schema}. */
  public static PartitionSpec spec(
      org.apache.iceberg.Schema schema, List<PartitionField> fields, String table) {
    if (fields.isEmpty()) {
      return PartitionSpec.unpartitioned();
    }
    PartitionSpec.Builder b = PartitionSpec.builderFor(schema);
    for (PartitionField f : fields) {
      Types.NestedField column = schema.caseInsensitiveFindField(f.column());
      if (column == null) {
        List<String> names = schema.columns().stream().map(Types.NestedField::name).toList();
        throw new UnknownColumnException(f.column(), Suggestions.closest(f.column(), names));
      }
      String name = column.name();
      boolean needsArgument = f.transform().equals("bucket") || f.transform().equals("truncate");
      if (needsArgument != (f.argument() != null)) {
        throw new QueryTypeException(
            "PARTITIONED BY "
                + f
                + " of "
                + table
                + ": "
                + (needsArgument
                    ? f.transform() + " takes a width and a column, " + f.transform() + "(16, c)"
                    : f.transform() + " takes a column only"));
      }
      try {
        switch (f.transform()) {
          case "identity" -> b.identity(name);
          case "year", "years" -> b.year(name);
          case "month", "months" -> b.month(name);
          case "day", "days" -> b.day(name);
          case "hour", "hours" -> b.hour(name);
          case "bucket" -> b.bucket(name, f.argument());
          case "truncate" -> b.truncate(name, f.argument());
          default ->
              throw new QueryTypeException(
                  "PARTITIONED BY "
                      + f
                      + " of "
                      + table
                      + ": unknown transform "
                      + f.transform()
                      + "; use a column, year, month, day, hour, bucket(N, c) or truncate(N, c)");
        }
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        throw new QueryTypeException(
            "PARTITIONED BY " + f + " of " + table + ": " + e.getMessage(), e);
      }
    }
    return b.build();
  }

  /**
   * Properties of a table Quiver creates: more commit retries than Iceberg's default, since one
   * statement is one commit and concurrent INSERTs each retry against the others.
   */
  public static Map<String, String> newTableProperties() {
    return Map.of(TableProperties.COMMIT_NUM_RETRIES, "20", TableProperties.FORMAT_VERSION, "2");
  }

  /** The name mapping of {@code schema} as the table property's value. */
  static String nameMapping(org.apache.iceberg.Schema schema) {
    return NameMappingParser.toJson(MappingUtil.create(schema));
  }
}
