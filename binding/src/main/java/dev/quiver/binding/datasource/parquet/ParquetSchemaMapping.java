package dev.quiver.binding.datasource.parquet;

import dev.quiver.binding.datasource.parquet.LeafColumn.Step;
import dev.quiver.binding.datasource.parquet.LeafColumn.StepKind;
import dev.quiver.binding.errors.DataSourceException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * The Parquet schema of an Arrow schema, with the logical type annotations readers expect (STRING,
 * DECIMAL stored as INT32, INT64 or FIXED_LEN_BYTE_ARRAY by precision, DATE, TIME, TIMESTAMP with
 * isAdjustedToUTC set for zoned timestamps, INTEGER for narrow and unsigned integers), lists and
 * maps in the standard three-level layout, and field ids taken from the Arrow metadata key {@value
 * ParquetFileWriter#FIELD_ID_KEY} (Iceberg resolves columns by them). Also lists, for each Parquet
 * leaf, how its values are reached in an Arrow batch. A type Parquet cannot hold is a {@link
 * DataSourceException} naming the column.
 */
final class ParquetSchemaMapping {
  private static final String FIELD_ID = ParquetFileWriter.FIELD_ID_KEY;

  private final MessageType message;
  private final List<LeafColumn> leaves;

  private ParquetSchemaMapping(MessageType message, List<LeafColumn> leaves) {
    this.message = message;
    this.leaves = leaves;
  }

  MessageType message() {
    return message;
  }

  List<LeafColumn> leaves() {
    return leaves;
  }

  /** A pending leaf, given its descriptor once the whole schema is built. */
  private record Pending(
      int top, List<Step> steps, ValueKind kind, String[] path, String arrowPath) {}

  static ParquetSchemaMapping of(Schema schema) {
    List<Type> fields = new ArrayList<>();
    List<Pending> pending = new ArrayList<>();
    List<Field> columns = schema.getFields();
    for (int i = 0; i < columns.size(); i++) {
      Field f = columns.get(i);
      fields.add(convert(f, i, List.of(), List.of(), f.getName(), 0, pending));
    }
    MessageType message = new MessageType("schema", fields);
    List<LeafColumn> leaves = new ArrayList<>();
    for (Pending p : pending) {
      leaves.add(
          new LeafColumn(
              p.top, p.steps, p.kind, message.getColumnDescription(p.path), p.arrowPath));
    }
    return new ParquetSchemaMapping(message, List.copyOf(leaves));
  }

  private static Type convert(
      Field f,
      int top,
      List<Step> above,
      List<String> path,
      String arrowPath,
      int repetition,
      List<Pending> pending) {
    if (f.getDictionary() != null) {
      throw unsupported(arrowPath, f.getType() + " (dictionary-encoded)");
    }
    boolean nullable = f.isNullable() || f.getType() instanceof ArrowType.Null;
    Repetition rep = nullable ? Repetition.OPTIONAL : Repetition.REQUIRED;
    List<String> here = append(path, f.getName());
    ArrowType type = f.getType();
    Type out;
    switch (type.getTypeID()) {
      case Struct -> {
        if (f.getChildren().isEmpty()) {
          throw unsupported(arrowPath, "a struct without fields");
        }
        List<Type> children = new ArrayList<>();
        for (int c = 0; c < f.getChildren().size(); c++) {
          Field child = f.getChildren().get(c);
          List<Step> steps = append(above, new Step(StepKind.STRUCT, nullable, 0, c));
          children.add(
              convert(
                  child, top, steps, here, arrowPath + "." + child.getName(), repetition, pending));
        }
        out = new GroupType(rep, f.getName(), children);
      }
      case List, LargeList, FixedSizeList -> {
        StepKind kind =
            switch (type.getTypeID()) {
              case List -> StepKind.LIST;
              case LargeList -> StepKind.LARGE_LIST;
              default -> StepKind.FIXED_SIZE_LIST;
            };
        Field element = f.getChildren().get(0);
        List<Step> steps = append(above, new Step(kind, nullable, repetition + 1, 0));
        Type item =
            convert(
                renamed(element, "element"),
                top,
                steps,
                append(here, "list"),
                arrowPath + "[]",
                repetition + 1,
                pending);
        GroupType list = new GroupType(Repetition.REPEATED, "list", item);
        out =
            Types.buildGroup(rep)
                .as(LogicalTypeAnnotation.listType())
                .addField(list)
                .named(f.getName());
      }
      case Map -> {
        Field entries = f.getChildren().get(0);
        // The entries struct is the repeated key_value group itself: never null, no level.
        List<Step> steps =
            append(
                append(above, new Step(StepKind.LIST, nullable, repetition + 1, 0)),
                new Step(StepKind.STRUCT, false, 0, 0));
        List<Type> kv = new ArrayList<>();
        String[] names = {"key", "value"};
        for (int c = 0; c < 2; c++) {
          List<Step> s = new ArrayList<>(steps);
          s.set(s.size() - 1, new Step(StepKind.STRUCT, false, 0, c));
          kv.add(
              convert(
                  renamed(entries.getChildren().get(c), names[c]),
                  top,
                  List.copyOf(s),
                  append(here, "key_value"),
                  arrowPath + "." + names[c],
                  repetition + 1,
                  pending));
        }
        GroupType keyValue = new GroupType(Repetition.REPEATED, "key_value", kv);
        out =
            Types.buildGroup(rep)
                .as(LogicalTypeAnnotation.mapType())
                .addField(keyValue)
                .named(f.getName());
      }
      default -> {
        Types.PrimitiveBuilder<? extends Type> b = primitive(type, rep, arrowPath);
        out = b.named(f.getName());
        pending.add(
            new Pending(
                top,
                append(above, new Step(StepKind.LEAF, nullable, 0, 0)),
                kind(type),
                here.toArray(String[]::new),
                arrowPath));
      }
    }
    Integer id = fieldId(f, arrowPath);
    return id == null ? out : out.withId(id);
  }

  private static Types.PrimitiveBuilder<? extends Type> primitive(
      ArrowType type, Repetition rep, String column) {
    return switch (type.getTypeID()) {
      case Null ->
          Types.primitive(PrimitiveTypeName.INT32, rep).as(LogicalTypeAnnotation.unknownType());
      case Bool -> Types.primitive(PrimitiveTypeName.BOOLEAN, rep);
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) type;
        PrimitiveTypeName p =
            i.getBitWidth() == 64 ? PrimitiveTypeName.INT64 : PrimitiveTypeName.INT32;
        Types.PrimitiveBuilder<? extends Type> b = Types.primitive(p, rep);
        // Plain INT32/INT64 mean signed 32/64 bits; anything else is annotated.
        yield i.getIsSigned() && (i.getBitWidth() == 32 || i.getBitWidth() == 64)
            ? b
            : b.as(LogicalTypeAnnotation.intType(i.getBitWidth(), i.getIsSigned()));
      }
      case FloatingPoint ->
          switch (((ArrowType.FloatingPoint) type).getPrecision()) {
            case HALF ->
                Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep)
                    .length(2)
                    .as(LogicalTypeAnnotation.float16Type());
            case SINGLE -> Types.primitive(PrimitiveTypeName.FLOAT, rep);
            case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, rep);
          };
      case Utf8, LargeUtf8 ->
          Types.primitive(PrimitiveTypeName.BINARY, rep).as(LogicalTypeAnnotation.stringType());
      case Binary, LargeBinary -> Types.primitive(PrimitiveTypeName.BINARY, rep);
      case FixedSizeBinary ->
          Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep)
              .length(((ArrowType.FixedSizeBinary) type).getByteWidth());
      case Decimal -> {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        LogicalTypeAnnotation a = LogicalTypeAnnotation.decimalType(d.getScale(), d.getPrecision());
        if (d.getPrecision() <= 9) {
          yield Types.primitive(PrimitiveTypeName.INT32, rep).as(a);
        }
        if (d.getPrecision() <= 18) {
          yield Types.primitive(PrimitiveTypeName.INT64, rep).as(a);
        }
        yield Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep)
            .length(decimalBytes(d.getPrecision()))
            .as(a);
      }
      case Date ->
          Types.primitive(PrimitiveTypeName.INT32, rep).as(LogicalTypeAnnotation.dateType());
      case Time -> {
        // A time of day without zone: isAdjustedToUTC=false (readers show it as plain TIME).
        TimeUnit unit = ((ArrowType.Time) type).getUnit();
        yield switch (unit) {
          case SECOND, MILLISECOND ->
              Types.primitive(PrimitiveTypeName.INT32, rep)
                  .as(LogicalTypeAnnotation.timeType(false, LogicalTypeAnnotation.TimeUnit.MILLIS));
          case MICROSECOND ->
              Types.primitive(PrimitiveTypeName.INT64, rep)
                  .as(LogicalTypeAnnotation.timeType(false, LogicalTypeAnnotation.TimeUnit.MICROS));
          case NANOSECOND ->
              Types.primitive(PrimitiveTypeName.INT64, rep)
                  .as(LogicalTypeAnnotation.timeType(false, LogicalTypeAnnotation.TimeUnit.NANOS));
        };
      }
      case Timestamp -> {
        ArrowType.Timestamp t = (ArrowType.Timestamp) type;
        // A zoned timestamp is an instant (UTC-adjusted); a zoneless one a local date-time.
        boolean utc = t.getTimezone() != null;
        LogicalTypeAnnotation.TimeUnit unit =
            switch (t.getUnit()) {
              case SECOND, MILLISECOND -> LogicalTypeAnnotation.TimeUnit.MILLIS;
              case MICROSECOND -> LogicalTypeAnnotation.TimeUnit.MICROS;
              case NANOSECOND -> LogicalTypeAnnotation.TimeUnit.NANOS;
            };
        yield Types.primitive(PrimitiveTypeName.INT64, rep)
            .as(LogicalTypeAnnotation.timestampType(utc, unit));
      }
      default -> throw unsupported(column, type.toString());
    };
  }

  private static ValueKind kind(ArrowType type) {
    return switch (type.getTypeID()) {
      case Null -> ValueKind.NULL;
      case Bool -> ValueKind.BOOLEAN;
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) type;
        yield switch (i.getBitWidth()) {
          case 8 -> i.getIsSigned() ? ValueKind.INT8 : ValueKind.UINT8;
          case 16 -> i.getIsSigned() ? ValueKind.INT16 : ValueKind.UINT16;
          case 32 -> ValueKind.INT32;
          default -> ValueKind.INT64;
        };
      }
      case FloatingPoint ->
          switch (((ArrowType.FloatingPoint) type).getPrecision()) {
            case HALF -> ValueKind.FLOAT16;
            case SINGLE -> ValueKind.FLOAT;
            case DOUBLE -> ValueKind.DOUBLE;
          };
      case Utf8, Binary -> ValueKind.BINARY;
      case LargeUtf8, LargeBinary -> ValueKind.LARGE_BINARY;
      case FixedSizeBinary -> ValueKind.FIXED;
      case Decimal -> {
        int p = ((ArrowType.Decimal) type).getPrecision();
        yield p <= 9
            ? ValueKind.DECIMAL_INT32
            : p <= 18 ? ValueKind.DECIMAL_INT64 : ValueKind.DECIMAL_FIXED;
      }
      case Date ->
          ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY
              ? ValueKind.INT32
              : ValueKind.DATE_MILLIS;
      case Time ->
          switch (((ArrowType.Time) type).getUnit()) {
            case SECOND -> ValueKind.TIME_SECONDS;
            case MILLISECOND -> ValueKind.INT32;
            default -> ValueKind.INT64;
          };
      case Timestamp ->
          ((ArrowType.Timestamp) type).getUnit() == TimeUnit.SECOND
              ? ValueKind.TIMESTAMP_SECONDS
              : ValueKind.INT64;
      default -> throw new IllegalStateException("no Parquet value kind for " + type);
    };
  }

  /** Bytes of the two's complement unscaled value of a decimal of {@code precision} digits. */
  static int decimalBytes(int precision) {
    // The smallest n with 2^(8n-1) > 10^precision - 1.
    java.math.BigInteger max = java.math.BigInteger.TEN.pow(precision);
    int n = 1;
    while (java.math.BigInteger.ONE.shiftLeft(8 * n - 1).compareTo(max) < 0) {
      n++;
    }
    return n;
  }

  private static Integer fieldId(Field f, String column) {
    Map<String, String> metadata = f.getMetadata();
    String id = metadata == null ? null : metadata.get(FIELD_ID);
    if (id == null) {
      return null;
    }
    try {
      return Integer.parseInt(id.trim());
    } catch (NumberFormatException e) {
      throw new DataSourceException(
          "Cannot write column '"
              + column
              + "' to Parquet: its "
              + FIELD_ID
              + " '"
              + id
              + "' is not an integer");
    }
  }

  private static Field renamed(Field f, String name) {
    return new Field(name, f.getFieldType(), f.getChildren());
  }

  private static <T> List<T> append(List<T> list, T item) {
    List<T> out = new ArrayList<>(list.size() + 1);
    out.addAll(list);
    out.add(item);
    return List.copyOf(out);
  }

  private static DataSourceException unsupported(String column, String type) {
    return new DataSourceException(
        "Cannot write column '"
            + column
            + "' of type "
            + type
            + " to Parquet: the type has no Parquet equivalent; cast it first (intervals to"
            + " strings, for example)");
  }
}
