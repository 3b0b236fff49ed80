package dev.quiver.examples.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes query results as CSV: a header row, then one line per row; NULL is an empty field, dates
 * are ISO-8601 and decimals plain notation. Fields with commas, quotes or line breaks are quoted.
 */
public final class CsvFormatter {
  private CsvFormatter() {}

  /** Writes the header and every row of {@code batches}. */
  public static void write(Schema schema, List<VectorSchemaRoot> batches, PrintWriter out) {
    StringBuilder line = new StringBuilder();
    List<Field> fields = schema.getFields();
    for (int c = 0; c < fields.size(); c++) {
      if (c > 0) {
        line.append(',');
      }
      appendField(line, fields.get(c).getName());
    }
    out.println(line);
    for (VectorSchemaRoot batch : batches) {
      List<FieldVector> vectors = batch.getFieldVectors();
      for (int r = 0; r < batch.getRowCount(); r++) {
        line.setLength(0);
        for (int c = 0; c < vectors.size(); c++) {
          if (c > 0) {
            line.append(',');
          }
          String value = format(vectors.get(c), r);
          if (value != null) {
            appendField(line, value);
          }
        }
        out.println(line);
      }
    }
    out.flush();
  }

  /** The CSV text of one value, or null for NULL. */
  static String format(FieldVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    if (vector instanceof DecimalVector v) {
      return v.getObject(row).toPlainString();
    }
    if (vector instanceof DateDayVector v) {
      return LocalDate.ofEpochDay(v.get(row)).toString();
    }
    if (vector instanceof DateMilliVector v) {
      return LocalDate.ofEpochDay(Math.floorDiv(v.get(row), 86_400_000L)).toString();
    }
    if (vector instanceof TimeStampVector v) {
      return timestamp(v, row).toString();
    }
    if (vector instanceof VarCharVector v) {
      return new String(v.get(row), StandardCharsets.UTF_8);
    }
    if (vector instanceof Float8Vector v) {
      return Double.toString(v.get(row));
    }
    if (vector instanceof Float4Vector v) {
      return Float.toString(v.get(row));
    }
    if (vector instanceof BitVector v) {
      return v.get(row) != 0 ? "true" : "false";
    }
    Object value = vector.getObject(row);
    return value == null ? null : value.toString();
  }

  private static LocalDateTime timestamp(TimeStampVector v, int row) {
    long raw = v.get(row);
    ArrowType.Timestamp type = (ArrowType.Timestamp) v.getField().getType();
    long seconds;
    long nanos;
    switch (type.getUnit()) {
      case SECOND -> {
        seconds = raw;
        nanos = 0;
      }
      case MILLISECOND -> {
        seconds = Math.floorDiv(raw, 1_000L);
        nanos = Math.floorMod(raw, 1_000L) * 1_000_000L;
      }
      case MICROSECOND -> {
        seconds = Math.floorDiv(raw, 1_000_000L);
        nanos = Math.floorMod(raw, 1_000_000L) * 1_000L;
      }
      default -> {
        seconds = Math.floorDiv(raw, 1_000_000_000L);
        nanos = Math.floorMod(raw, 1_000_000_000L);
      }
    }
    return LocalDateTime.ofEpochSecond(seconds, (int) nanos, ZoneOffset.UTC);
  }

  private static void appendField(StringBuilder line, String value) {
    boolean quote =
        value.isEmpty()
            || value.indexOf(',') >= 0
            || value.indexOf('"') >= 0
            || value.indexOf('\n') >= 0
            || value.indexOf('\r') >= 0;
    if (!quote) {
      line.append(value);
      return;
    }
    // An empty string is quoted so that it differs from NULL.
    line.append('"').append(value.replace("\"", "\"\"")).append('"');
  }
}
