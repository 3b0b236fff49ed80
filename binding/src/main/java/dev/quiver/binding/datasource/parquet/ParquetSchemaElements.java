package dev.quiver.binding.datasource.parquet;

import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.DateType;
import org.apache.parquet.format.DecimalType;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.Float16Type;
import org.apache.parquet.format.IntType;
import org.apache.parquet.format.ListType;
import org.apache.parquet.format.LogicalType;
import org.apache.parquet.format.MapType;
import org.apache.parquet.format.MicroSeconds;
import org.apache.parquet.format.MilliSeconds;
import org.apache.parquet.format.NanoSeconds;
import org.apache.parquet.format.NullType;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.StringType;
import org.apache.parquet.format.TimeType;
import org.apache.parquet.format.TimestampType;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * A Parquet schema as the footer's flattened list of schema elements (depth first, groups with
 * their child counts), each with its logical type and, where the older converted types say the same
 * thing, the converted type too, for readers that predate logical types. Covers the annotations
 * {@link ParquetSchemaMapping} produces.
 */
final class ParquetSchemaElements {
  private ParquetSchemaElements() {}

  static List<SchemaElement> of(MessageType message) {
    List<SchemaElement> out = new ArrayList<>();
    SchemaElement root = new SchemaElement(message.getName());
    root.setNum_children(message.getFieldCount());
    out.add(root);
    for (Type t : message.getFields()) {
      add(t, out);
    }
    return out;
  }

  private static void add(Type t, List<SchemaElement> out) {
    SchemaElement e = new SchemaElement(t.getName());
    e.setRepetition_type(FieldRepetitionType.valueOf(t.getRepetition().name()));
    if (t.getId() != null) {
      e.setField_id(t.getId().intValue());
    }
    LogicalTypeAnnotation a = t.getLogicalTypeAnnotation();
    if (a != null) {
      annotate(e, a);
    }
    if (t.isPrimitive()) {
      PrimitiveType p = t.asPrimitiveType();
      String name = p.getPrimitiveTypeName().name();
      e.setType(
          org.apache.parquet.format.Type.valueOf(name.equals("BINARY") ? "BYTE_ARRAY" : name));
      if (p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
        e.setType_length(p.getTypeLength());
      }
      out.add(e);
    } else {
      GroupType g = t.asGroupType();
      e.setNum_children(g.getFieldCount());
      out.add(e);
      for (Type child : g.getFields()) {
        add(child, out);
      }
    }
  }

  private static void annotate(SchemaElement e, LogicalTypeAnnotation a) {
    if (a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
      e.setLogicalType(LogicalType.STRING(new StringType()));
      e.setConverted_type(ConvertedType.UTF8);
    } else if (a instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d) {
      e.setLogicalType(LogicalType.DECIMAL(new DecimalType(d.getScale(), d.getPrecision())));
      e.setConverted_type(ConvertedType.DECIMAL);
      e.setScale(d.getScale());
      e.setPrecision(d.getPrecision());
    } else if (a instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
      e.setLogicalType(LogicalType.DATE(new DateType()));
      e.setConverted_type(ConvertedType.DATE);
    } else if (a instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation t) {
      e.setLogicalType(LogicalType.TIME(new TimeType(t.isAdjustedToUTC(), unit(t.getUnit()))));
      // The converted types TIME_* mean UTC-adjusted; a local time has none.
      if (t.isAdjustedToUTC() && t.getUnit() != LogicalTypeAnnotation.TimeUnit.NANOS) {
        e.setConverted_type(
            t.getUnit() == LogicalTypeAnnotation.TimeUnit.MILLIS
                ? ConvertedType.TIME_MILLIS
                : ConvertedType.TIME_MICROS);
      }
    } else if (a instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
      e.setLogicalType(
          LogicalType.TIMESTAMP(new TimestampType(t.isAdjustedToUTC(), unit(t.getUnit()))));
      if (t.isAdjustedToUTC() && t.getUnit() != LogicalTypeAnnotation.TimeUnit.NANOS) {
        e.setConverted_type(
            t.getUnit() == LogicalTypeAnnotation.TimeUnit.MILLIS
                ? ConvertedType.TIMESTAMP_MILLIS
                : ConvertedType.TIMESTAMP_MICROS);
      }
    } else if (a instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i) {
      e.setLogicalType(LogicalType.INTEGER(new IntType((byte) i.getBitWidth(), i.isSigned())));
      e.setConverted_type(
          ConvertedType.valueOf((i.isSigned() ? "INT_" : "UINT_") + i.getBitWidth()));
    } else if (a instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      e.setLogicalType(LogicalType.LIST(new ListType()));
      e.setConverted_type(ConvertedType.LIST);
    } else if (a instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation) {
      e.setLogicalType(LogicalType.MAP(new MapType()));
      e.setConverted_type(ConvertedType.MAP);
    } else if (a instanceof LogicalTypeAnnotation.Float16LogicalTypeAnnotation) {
      e.setLogicalType(LogicalType.FLOAT16(new Float16Type()));
    } else if (a instanceof LogicalTypeAnnotation.UnknownLogicalTypeAnnotation) {
      e.setLogicalType(LogicalType.UNKNOWN(new NullType()));
    } else {
      throw new IllegalStateException("no footer form for the annotation " + a);
    }
  }

  private static org.apache.parquet.format.TimeUnit unit(LogicalTypeAnnotation.TimeUnit u) {
    return switch (u) {
      case MILLIS -> org.apache.parquet.format.TimeUnit.MILLIS(new MilliSeconds());
      case MICROS -> org.apache.parquet.format.TimeUnit.MICROS(new MicroSeconds());
      case NANOS -> org.apache.parquet.format.TimeUnit.NANOS(new NanoSeconds());
    };
  }
}
