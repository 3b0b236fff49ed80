package dev.quiver.flightsql;

import dev.quiver.binding.logical.TypeMapping;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Flight SQL column metadata on result schemas: JDBC drivers read a column's SQL type name,
 * precision and scale from the field's metadata, not from its Arrow type (without it, the Flight
 * SQL JDBC driver reports every DECIMAL with scale 0).
 */
final class ColumnMetadata {
  private ColumnMetadata() {}

  /** {@code schema} with each top-level field annotated. */
  static Schema annotate(Schema schema) {
    List<Field> fields = new ArrayList<>(schema.getFields().size());
    for (Field f : schema.getFields()) {
      fields.add(annotate(f));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  private static Field annotate(Field f) {
    ArrowType type = f.getType();
    FlightSqlColumnMetadata.Builder b = new FlightSqlColumnMetadata.Builder().isReadOnly(true);
    String name = TypeMapping.sqlName(type);
    if (name != null) {
      b.typeName(name);
    }
    if (type instanceof ArrowType.Decimal d) {
      b.precision(d.getPrecision()).scale(d.getScale());
    }
    Map<String, String> metadata = new HashMap<>();
    if (f.getMetadata() != null) {
      metadata.putAll(f.getMetadata());
    }
    metadata.putAll(b.build().getMetadataMap());
    FieldType ft = new FieldType(f.isNullable(), type, f.getDictionary(), metadata);
    return new Field(f.getName(), ft, f.getChildren());
  }
}
