package dev.quiver.examples.cli;

import dev.quiver.binding.format.ArrowValues;
import dev.quiver.binding.format.TableFormatter;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** How {@code quiver sql} and the shell print results. */
public enum OutputFormat {
  /** A boxed text table; multi-line values span lines. */
  table,
  /** CSV with a header row; NULL is an empty field, an empty string is {@code ""}. */
  csv,
  /**
   * One JSON array of objects (column name to value); a script of several statements prints one
   * JSON array holding each statement's result array.
   */
  json,
  /** One JSON object per line. */
  jsonl,
  /** A GitHub-flavoured Markdown table. */
  markdown;

  /**
   * Reads {@code reader} to its end and prints at most {@code maxRows} of its rows to {@code out};
   * returns how many rows the result had.
   */
  public long write(ArrowReader reader, int maxRows, PrintWriter out) throws java.io.IOException {
    return write(reader, maxRows, out, () -> {});
  }

  /** Like {@link #write(ArrowReader, int, PrintWriter)}, calling {@code beforeOutput} first. */
  long write(ArrowReader reader, int maxRows, PrintWriter out, Runnable beforeOutput)
      throws java.io.IOException {
    return write(reader, maxRows, out, beforeOutput, false);
  }

  /**
   * Like {@link #write(ArrowReader, int, PrintWriter, Runnable)}; {@code expanded} prints a table's
   * rows a column per line (the shell's {@code \x}); other formats ignore it.
   */
  long write(
      ArrowReader reader, int maxRows, PrintWriter out, Runnable beforeOutput, boolean expanded)
      throws java.io.IOException {
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    Schema schema = root.getSchema();
    long total = 0;
    if (this == table) {
      List<VectorSchemaRoot> kept = new ArrayList<>();
      int held = 0;
      try {
        while (reader.loadNextBatch()) {
          int n = root.getRowCount();
          total += n;
          if (held < maxRows && n > 0) {
            int take = Math.min(n, maxRows - held);
            kept.add(root.slice(0, take));
            held += take;
          }
        }
        beforeOutput.run();
        out.print(
            expanded
                ? TableFormatter.formatExpanded(schema, kept, maxRows, total)
                : TableFormatter.format(schema, kept, maxRows, total));
      } finally {
        kept.forEach(VectorSchemaRoot::close);
      }
      out.flush();
      return total;
    }
    List<Field> fields = schema.getFields();
    long written = 0;
    boolean begun = false;
    while (reader.loadNextBatch()) {
      if (!begun) {
        beforeOutput.run();
        begin(fields, out);
        begun = true;
      }
      List<FieldVector> vectors = root.getFieldVectors();
      for (int r = 0; r < root.getRowCount(); r++, total++) {
        if (written >= maxRows) {
          continue;
        }
        List<Object> values = new ArrayList<>(vectors.size());
        for (FieldVector v : vectors) {
          values.add(ArrowValues.get(v, r));
        }
        row(fields, values, written, out);
        written++;
      }
    }
    if (!begun) {
      beforeOutput.run();
      begin(fields, out);
    }
    end(written, out);
    out.flush();
    return total;
  }

  private void begin(List<Field> fields, PrintWriter out) {
    switch (this) {
      case csv -> {
        List<String> names = new ArrayList<>();
        fields.forEach(f -> names.add(csvField(f.getName())));
        out.println(String.join(",", names));
      }
      case json -> out.print("[");
      case markdown -> {
        StringBuilder header = new StringBuilder("|");
        StringBuilder rule = new StringBuilder("|");
        for (Field f : fields) {
          header.append(' ').append(markdownCell(f.getName())).append(" |");
          rule.append(" --- |");
        }
        out.println(header);
        out.println(rule);
      }
      default -> {}
    }
  }

  private void row(List<Field> fields, List<Object> values, long index, PrintWriter out) {
    switch (this) {
      case csv -> {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < values.size(); c++) {
          if (c > 0) {
            line.append(',');
          }
          Object v = values.get(c);
          if (v != null) {
            line.append(csvField(text(v)));
          }
        }
        out.println(line);
      }
      case json, jsonl -> {
        StringBuilder o = new StringBuilder(this == json ? (index == 0 ? "\n" : ",\n") : "");
        o.append('{');
        for (int c = 0; c < values.size(); c++) {
          if (c > 0) {
            o.append(',');
          }
          jsonString(o, fields.get(c).getName());
          o.append(':');
          json(o, values.get(c));
        }
        o.append('}');
        if (this == jsonl) {
          out.println(o);
        } else {
          out.print(o);
        }
      }
      case markdown -> {
        StringBuilder line = new StringBuilder("|");
        for (Object v : values) {
          line.append(' ').append(v == null ? "NULL" : markdownCell(text(v))).append(" |");
        }
        out.println(line);
      }
      default -> throw new IllegalStateException(name());
    }
  }

  private void end(long written, PrintWriter out) {
    if (this == json) {
      out.println(written == 0 ? "]" : "\n]");
    }
  }

  /** A value as text: decimals in plain notation, dates and timestamps ISO-8601. */
  static String text(Object v) {
    if (v instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (v instanceof byte[] b) {
      return Base64.getEncoder().encodeToString(b);
    }
    return v.toString();
  }

  /** A CSV field, quoted when it holds a comma, quote or line break, or is empty (not NULL). */
  static String csvField(String value) {
    boolean quote =
        value.isEmpty()
            || value.indexOf(',') >= 0
            || value.indexOf('"') >= 0
            || value.indexOf('\n') >= 0
            || value.indexOf('\r') >= 0;
    return quote ? '"' + value.replace("\"", "\"\"") + '"' : value;
  }

  private static String markdownCell(String s) {
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "").replace("\n", "<br>");
  }

  private static void json(StringBuilder o, Object v) {
    if (v == null) {
      o.append("null");
    } else if (v instanceof Boolean
        || v instanceof Integer
        || v instanceof Long
        || v instanceof Short
        || v instanceof Byte) {
      o.append(v);
    } else if (v instanceof BigDecimal d) {
      o.append(d.toPlainString());
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isFinite(d)) {
        o.append(v);
      } else {
        jsonString(o, v.toString());
      }
    } else if (v instanceof List<?> list) {
      o.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          o.append(',');
        }
        json(o, list.get(i));
      }
      o.append(']');
    } else {
      jsonString(o, text(v));
    }
  }

  private static void jsonString(StringBuilder o, String s) {
    o.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> o.append("\\\"");
        case '\\' -> o.append("\\\\");
        case '\n' -> o.append("\\n");
        case '\r' -> o.append("\\r");
        case '\t' -> o.append("\\t");
        default -> {
          if (c < 0x20) {
            o.append(String.format("\\u%04x", (int) c));
          } else {
            o.append(c);
          }
        }
      }
    }
    o.append('"');
  }
}
