package dev.quiver.binding.format;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Renders batches as a boxed text table: a header of column names, numbers right-aligned, NULL as
 * {@code NULL}, dates and timestamps in ISO-8601, decimals in plain notation, and a last line with
 * the row count.
 */
public final class TableFormatter {
  private TableFormatter() {}

  /** Renders up to {@code maxRows} rows; says how many more there were. */
  public static String format(Schema schema, List<VectorSchemaRoot> batches, int maxRows) {
    long total = 0;
    for (VectorSchemaRoot batch : batches) {
      total += batch.getRowCount();
    }
    return format(schema, batches, maxRows, total);
  }

  /**
   * Renders up to {@code maxRows} rows of {@code batches}, the first rows of a result of {@code
   * totalRows} rows (a caller that streams keeps only the rows it shows).
   */
  public static String format(
      Schema schema, List<VectorSchemaRoot> batches, int maxRows, long totalRows) {
    if (maxRows < 0) {
      throw new IllegalArgumentException("maxRows must be >= 0, got " + maxRows);
    }
    List<Field> fields = schema.getFields();
    int columns = fields.size();
    long total = totalRows;

    List<String[]> rows = cells(batches, columns, maxRows);

    StringBuilder out = new StringBuilder();
    if (columns > 0) {
      int[] widths = new int[columns];
      boolean[] right = new boolean[columns];
      for (int c = 0; c < columns; c++) {
        widths[c] = width(fields.get(c).getName());
        right[c] = numeric(fields.get(c).getType());
      }
      for (String[] row : rows) {
        for (int c = 0; c < columns; c++) {
          widths[c] = Math.max(widths[c], width(row[c]));
        }
      }
      String rule = rule(widths);
      out.append(rule);
      String[] header = new String[columns];
      for (int c = 0; c < columns; c++) {
        header[c] = fields.get(c).getName();
      }
      line(out, header, widths, right);
      out.append(rule);
      for (String[] row : rows) {
        line(out, row, widths, right);
      }
      if (!rows.isEmpty()) {
        out.append(rule);
      }
    }
    return withCount(out, rows.size(), total);
  }

  /** {@code out} ended by the row count line: how many rows, and how many of them shown. */
  private static String withCount(StringBuilder out, int shown, long total) {
    out.append(total).append(total == 1 ? " row" : " rows");
    if (shown < total) {
      out.append(" (showing first ").append(shown).append(shown == 1 ? " row)" : " rows)");
    }
    return out.append('\n').toString();
  }

  /** The text of the first {@code maxRows} rows' cells. */
  private static List<String[]> cells(List<VectorSchemaRoot> batches, int columns, int maxRows) {
    List<String[]> rows = new ArrayList<>();
    for (VectorSchemaRoot batch : batches) {
      if (rows.size() >= maxRows) {
        break;
      }
      if (batch.getFieldVectors().size() != columns) {
        throw new IllegalArgumentException(
            "A batch has "
                + batch.getFieldVectors().size()
                + " columns but the schema has "
                + columns);
      }
      int n = Math.min(batch.getRowCount(), maxRows - rows.size());
      String[][] cells = new String[n][columns];
      for (int c = 0; c < columns; c++) {
        FieldVector vector = batch.getVector(c);
        for (int r = 0; r < n; r++) {
          cells[r][c] = cell(vector, r);
        }
      }
      for (String[] row : cells) {
        rows.add(row);
      }
    }
    return rows;
  }

  /**
   * Renders up to {@code maxRows} rows expanded, one {@code column | value} line per column under a
   * {@code -[ RECORD n ]-} rule per row (psql's {@code \x}): for rows too wide for the screen.
   */
  public static String formatExpanded(
      Schema schema, List<VectorSchemaRoot> batches, int maxRows, long totalRows) {
    List<Field> fields = schema.getFields();
    List<String[]> rows = cells(batches, fields.size(), maxRows);
    int nameWidth = 0;
    for (Field f : fields) {
      nameWidth = Math.max(nameWidth, width(f.getName()));
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      out.append("-[ RECORD ").append(r + 1).append(" ]-\n");
      for (int c = 0; c < fields.size(); c++) {
        String name = fields.get(c).getName();
        String[] lines = rows.get(r)[c].replaceFirst("\n+$", "").split("\n", -1);
        for (int l = 0; l < lines.length; l++) {
          String label = l == 0 ? name : "";
          out.append(label)
              .append(" ".repeat(nameWidth - lineWidth(label)))
              .append(" | ")
              .append(lines[l])
              .append('\n');
        }
      }
    }
    return withCount(out, rows.size(), totalRows);
  }

  private static String rule(int[] widths) {
    StringBuilder sb = new StringBuilder("+");
    for (int w : widths) {
      sb.append("-".repeat(w + 2)).append('+');
    }
    return sb.append('\n').toString();
  }

  /** One row; a cell with line breaks (an EXPLAIN plan) spans as many lines as it has. */
  private static void line(StringBuilder out, String[] cells, int[] widths, boolean[] right) {
    String[][] parts = new String[cells.length][];
    int height = 1;
    for (int c = 0; c < cells.length; c++) {
      parts[c] = cells[c].replaceFirst("\n+$", "").split("\n", -1);
      height = Math.max(height, parts[c].length);
    }
    for (int l = 0; l < height; l++) {
      out.append('|');
      for (int c = 0; c < cells.length; c++) {
        String text = l < parts[c].length ? parts[c][l] : "";
        String pad = " ".repeat(widths[c] - lineWidth(text));
        out.append(' ');
        if (right[c]) {
          out.append(pad).append(text);
        } else {
          out.append(text).append(pad);
        }
        out.append(" |");
      }
      out.append('\n');
    }
  }

  /** Display width: of the widest line, in code points (non-BMP characters count once). */
  private static int width(String s) {
    int w = 0;
    for (String line : s.replaceFirst("\n+$", "").split("\n", -1)) {
      w = Math.max(w, lineWidth(line));
    }
    return w;
  }

  private static int lineWidth(String line) {
    return line.codePointCount(0, line.length());
  }

  private static boolean numeric(ArrowType type) {
    return type instanceof ArrowType.Int
        || type instanceof ArrowType.FloatingPoint
        || type instanceof ArrowType.Decimal;
  }

  /** The text of one value, read with the vector's own typed getter. */
  static String cell(FieldVector v, int row) {
    if (v.isNull(row)) {
      return "NULL";
    }
    if (v instanceof BigIntVector x) {
      return Long.toString(x.get(row));
    }
    if (v instanceof IntVector x) {
      return Integer.toString(x.get(row));
    }
    if (v instanceof SmallIntVector x) {
      return Short.toString(x.get(row));
    }
    if (v instanceof TinyIntVector x) {
      return Byte.toString(x.get(row));
    }
    if (v instanceof UInt1Vector x) {
      return Integer.toString(Byte.toUnsignedInt(x.get(row)));
    }
    if (v instanceof UInt2Vector x) {
      return Integer.toString(x.get(row));
    }
    if (v instanceof UInt4Vector x) {
      return Integer.toUnsignedString(x.get(row));
    }
    if (v instanceof UInt8Vector x) {
      return Long.toUnsignedString(x.get(row));
    }
    if (v instanceof Float8Vector x) {
      return DoubleText.of(x.get(row));
    }
    if (v instanceof Float4Vector x) {
      return DoubleText.of(x.get(row));
    }
    if (v instanceof DecimalVector x) {
      BigDecimal d = x.getObject(row);
      return d.toPlainString();
    }
    if (v instanceof VarCharVector x) {
      return escape(new String(x.get(row), StandardCharsets.UTF_8));
    }
    if (v instanceof LargeVarCharVector x) {
      return escape(new String(x.get(row), StandardCharsets.UTF_8));
    }
    if (v instanceof BitVector x) {
      return x.get(row) != 0 ? "true" : "false";
    }
    if (v instanceof DateDayVector x) {
      return LocalDate.ofEpochDay(x.get(row)).toString();
    }
    if (v instanceof DateMilliVector x) {
      return LocalDate.ofEpochDay(Math.floorDiv(x.get(row), 86_400_000L)).toString();
    }
    if (v instanceof TimeStampVector x) {
      return timestamp(x.get(row), (ArrowType.Timestamp) v.getField().getType());
    }
    Object o = v.getObject(row);
    return o == null ? "NULL" : escape(o.toString());
  }

  private static String timestamp(long value, ArrowType.Timestamp type) {
    long seconds;
    long nanos;
    switch (type.getUnit()) {
      case SECOND:
        seconds = value;
        nanos = 0;
        break;
      case MILLISECOND:
        seconds = Math.floorDiv(value, 1_000L);
        nanos = TimeUnit.MILLISECONDS.toNanos(Math.floorMod(value, 1_000L));
        break;
      case MICROSECOND:
        seconds = Math.floorDiv(value, 1_000_000L);
        nanos = TimeUnit.MICROSECONDS.toNanos(Math.floorMod(value, 1_000_000L));
        break;
      default:
        seconds = Math.floorDiv(value, 1_000_000_000L);
        nanos = Math.floorMod(value, 1_000_000_000L);
        break;
    }
    Instant instant = Instant.ofEpochSecond(seconds, nanos);
    if (type.getTimezone() == null) {
      return DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
          LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
    }
    return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
        instant.atZone(ZoneId.of(type.getTimezone())).toOffsetDateTime());
  }

  /**
   * Keeps the grid intact: tabs and carriage returns are shown escaped; line breaks stay, and the
   * row spans several lines.
   */
  private static String escape(String s) {
    if (s.indexOf('\r') < 0 && s.indexOf('\t') < 0) {
      return s;
    }
    return s.replace("\\", "\\\\").replace("\r", "\\r").replace("\t", "\\t");
  }
}
