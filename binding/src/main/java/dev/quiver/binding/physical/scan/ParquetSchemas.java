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
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.LogicalType;
import org.apache.parquet.format.SchemaElement;

/**
 * The Arrow schema of a Parquet file from its footer alone, following the Parquet format's type
 * annotations the way Arrow's own reader does (so that a file reads the same through either),
 * without opening the file natively: this is how tables in object stores get their schema.
 */
public final class ParquetSchemas {
  private ParquetSchemas() {}

  /** The file's columns as Arrow fields. */
  public static Schema toArrow(FileMetaData metadata, String file) {
    List<SchemaElement> elements = metadata.getSchema();
    if (elements.isEmpty()) {
      throw ParquetFooterBytes.corrupt(file, "its schema is empty");
    }
    int[] next = {1};
    List<Field> fields = new ArrayList<>();
    int children = elements.get(0).getNum_children();
    for (int i = 0; i < children; i++) {
      fields.add(field(elements, next, file));
    }
    if (next[0] != elements.size()) {
      throw ParquetFooterBytes.corrupt(file, "its schema tree does not match its element count");
    }
    return new Schema(fields);
  }

  private static Field field(List<SchemaElement> elements, int[] next, String file) {
    if (next[0] >= elements.size()) {
      throw ParquetFooterBytes.corrupt(file, "its schema tree is cut short");
    }
    SchemaElement e = elements.get(next[0]++);
    boolean group = e.isSetNum_children() && !e.isSetType();
    Field field;
    if (!group) {
      field = new Field(e.getName(), new FieldType(nullable(e), primitive(e, file), null), null);
    } else {
      List<Field> children = new ArrayList<>();
      for (int i = 0; i < e.getNum_children(); i++) {
        children.add(field(elements, next, file));
      }
      field = group(e, children, file);
    }
    if (e.getRepetition_type() == FieldRepetitionType.REPEATED && !isListOrMap(e)) {
      // A repeated field outside a LIST annotation is a list of non-null items (legacy layout).
      Field item =
          new Field(
              field.getName(), new FieldType(false, field.getType(), null), field.getChildren());
      return new Field(
          e.getName(), new FieldType(false, ArrowType.List.INSTANCE, null), List.of(item));
    }
    return field;
  }

  private static boolean isListOrMap(SchemaElement e) {
    // MAP_KEY_VALUE is not here: old writers put it on a map's repeated key-value group, which is
    // read like any repeated group.
    return e.isSetLogicalType() && (e.getLogicalType().isSetLIST() || e.getLogicalType().isSetMAP())
        || e.isSetConverted_type()
            && (e.getConverted_type() == ConvertedType.LIST
                || e.getConverted_type() == ConvertedType.MAP);
  }

  private static boolean nullable(SchemaElement e) {
    return e.getRepetition_type() != FieldRepetitionType.REQUIRED;
  }

  private static Field group(SchemaElement e, List<Field> children, String file) {
    boolean list =
        e.isSetLogicalType() && e.getLogicalType().isSetLIST()
            || e.isSetConverted_type() && e.getConverted_type() == ConvertedType.LIST;
    boolean map =
        e.isSetLogicalType() && e.getLogicalType().isSetMAP()
            || e.isSetConverted_type()
                && (e.getConverted_type() == ConvertedType.MAP
                    || e.getConverted_type() == ConvertedType.MAP_KEY_VALUE);
    if (list && children.size() == 1) {
      Field repeated = children.get(0);
      // The repeated child came back as a list of its items (see field()); unwrap it.
      Field item = repeated.getChildren().get(0);
      boolean threeLevel =
          item.getType() instanceof ArrowType.Struct
              && item.getChildren().size() == 1
              && !repeated.getName().equals("array")
              && !repeated.getName().equals(e.getName() + "_tuple");
      Field element =
          threeLevel
              ? item.getChildren().get(0)
              : new Field("element", item.getFieldType(), item.getChildren());
      return new Field(
          e.getName(),
          new FieldType(nullable(e), ArrowType.List.INSTANCE, null),
          List.of(new Field("element", element.getFieldType(), element.getChildren())));
    }
    if (map && children.size() == 1) {
      Field entries = children.get(0).getChildren().get(0);
      if (entries.getChildren().size() != 2) {
        throw new DataSourceException(
            "Parquet file " + file + ": map column " + e.getName() + " needs a key and a value");
      }
      Field key = entries.getChildren().get(0);
      Field value = entries.getChildren().get(1);
      Field struct =
          new Field(
              "entries",
              new FieldType(false, ArrowType.Struct.INSTANCE, null),
              List.of(
                  new Field("key", new FieldType(false, key.getType(), null), key.getChildren()),
                  new Field("value", value.getFieldType(), value.getChildren())));
      return new Field(
          e.getName(), new FieldType(nullable(e), new ArrowType.Map(false), null), List.of(struct));
    }
    return new Field(
        e.getName(), new FieldType(nullable(e), ArrowType.Struct.INSTANCE, null), children);
  }

  private static ArrowType primitive(SchemaElement e, String file) {
    LogicalType l = e.isSetLogicalType() ? e.getLogicalType() : null;
    ConvertedType c = e.isSetConverted_type() ? e.getConverted_type() : null;
    if (l != null && l.isSetDECIMAL() || c == ConvertedType.DECIMAL) {
      int precision =
          l != null && l.isSetDECIMAL() ? l.getDECIMAL().getPrecision() : e.getPrecision();
      int scale = l != null && l.isSetDECIMAL() ? l.getDECIMAL().getScale() : e.getScale();
      return new ArrowType.Decimal(precision, scale, precision > 38 ? 256 : 128);
    }
    return switch (e.getType()) {
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case INT32 -> {
        if (l != null && l.isSetDATE() || c == ConvertedType.DATE) {
          yield new ArrowType.Date(DateUnit.DAY);
        }
        if (l != null && l.isSetTIME() || c == ConvertedType.TIME_MILLIS) {
          yield new ArrowType.Time(TimeUnit.MILLISECOND, 32);
        }
        if (l != null && l.isSetINTEGER()) {
          yield new ArrowType.Int(l.getINTEGER().getBitWidth(), l.getINTEGER().isIsSigned());
        }
        if (c != null) {
          yield switch (c) {
            case INT_8 -> new ArrowType.Int(8, true);
            case INT_16 -> new ArrowType.Int(16, true);
            case UINT_8 -> new ArrowType.Int(8, false);
            case UINT_16 -> new ArrowType.Int(16, false);
            case UINT_32 -> new ArrowType.Int(32, false);
            default -> new ArrowType.Int(32, true);
          };
        }
        yield new ArrowType.Int(32, true);
      }
      case INT64 -> {
        if (l != null && l.isSetTIMESTAMP()) {
          yield new ArrowType.Timestamp(
              unit(l.getTIMESTAMP().getUnit()),
              l.getTIMESTAMP().isIsAdjustedToUTC() ? "UTC" : null);
        }
        if (c == ConvertedType.TIMESTAMP_MILLIS) {
          yield new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC");
        }
        if (c == ConvertedType.TIMESTAMP_MICROS) {
          yield new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
        }
        if (l != null && l.isSetTIME()) {
          yield new ArrowType.Time(unit(l.getTIME().getUnit()), 64);
        }
        if (c == ConvertedType.TIME_MICROS) {
          yield new ArrowType.Time(TimeUnit.MICROSECOND, 64);
        }
        boolean unsigned =
            l != null && l.isSetINTEGER() && !l.getINTEGER().isIsSigned()
                || c == ConvertedType.UINT_64;
        yield new ArrowType.Int(64, !unsigned);
      }
      case INT96 -> new ArrowType.Timestamp(TimeUnit.NANOSECOND, null);
      case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case BYTE_ARRAY -> {
        boolean text =
            l != null && (l.isSetSTRING() || l.isSetENUM() || l.isSetJSON())
                || c == ConvertedType.UTF8
                || c == ConvertedType.ENUM
                || c == ConvertedType.JSON;
        yield text ? ArrowType.Utf8.INSTANCE : ArrowType.Binary.INSTANCE;
      }
      case FIXED_LEN_BYTE_ARRAY -> {
        if (l != null && l.isSetFLOAT16()) {
          yield new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
        }
        yield new ArrowType.FixedSizeBinary(e.getType_length());
      }
    };
  }

  private static TimeUnit unit(org.apache.parquet.format.TimeUnit u) {
    if (u.isSetMILLIS()) {
      return TimeUnit.MILLISECOND;
    }
    if (u.isSetMICROS()) {
      return TimeUnit.MICROSECOND;
    }
    return TimeUnit.NANOSECOND;
  }
}
