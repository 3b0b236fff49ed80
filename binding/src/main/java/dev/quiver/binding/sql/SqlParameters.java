package dev.quiver.binding.sql;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnboundParametersException;
import dev.quiver.binding.logical.TypeMapping;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * The {@code ?} parameters of a statement: where they stand in its text, and the SQL literal that
 * replaces each once bound. Binding by text keeps every statement kind (including those the session
 * runs at once, like INSERT) on the one path that plans SQL; each literal is a CAST to the
 * parameter's type, so a bound statement means what the prepared one did.
 */
final class SqlParameters {
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSSSS");

  private SqlParameters() {}

  /** Offsets of the {@code ?} placeholders outside string literals, quoted names and comments. */
  static List<Integer> placeholders(String sql) {
    List<Integer> out = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"') {
        // A doubled quote inside is an escaped quote: skipping to each next quote handles it.
        int end = sql.indexOf(c, i + 1);
        i = end < 0 ? n : end + 1;
      } else if (c == '-' && sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (c == '/' && sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else {
        if (c == '?') {
          out.add(i);
        }
        i++;
      }
    }
    return out;
  }

  /**
   * Checks that the parsed statement {@code node} has no {@code ?} left: one run without its values
   * would otherwise fail deep in planning.
   *
   * @throws UnboundParametersException naming how many parameters need values
   */
  static void requireBound(SqlNode node) {
    int[] count = {0};
    node.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlDynamicParam param) {
            count[0]++;
            return null;
          }
        });
    if (count[0] > 0) {
      throw new UnboundParametersException(count[0]);
    }
  }

  /** {@code sql} with each placeholder replaced by the literal of its value. */
  static String bind(String sql, List<Integer> placeholders, List<Field> types, List<?> values) {
    if (values.size() != placeholders.size()) {
      throw new QuiverException(
          "The statement has "
              + placeholders.size()
              + " parameters (?) but "
              + values.size()
              + " values were given");
    }
    StringBuilder out = new StringBuilder(sql);
    for (int p = placeholders.size() - 1; p >= 0; p--) {
      int at = placeholders.get(p);
      out.replace(at, at + 1, literal(values.get(p), types.get(p).getType(), p + 1));
    }
    return out.toString();
  }

  /** A SQL expression of type {@code type} for {@code value} (parameter {@code index}, 1-based). */
  static String literal(Object value, ArrowType type, int index) {
    String sqlType = sqlType(type, index);
    if (value == null) {
      return "CAST(NULL AS " + sqlType + ")";
    }
    String text;
    if (value instanceof Boolean b) {
      text = b ? "TRUE" : "FALSE";
    } else if (value instanceof Byte
        || value instanceof Short
        || value instanceof Integer
        || value instanceof Long
        || value instanceof BigInteger) {
      text = value.toString();
    } else if (value instanceof BigDecimal d) {
      text = d.toPlainString();
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new QueryTypeException(
            "Parameter " + index + " is " + d + ", which SQL has no literal for");
      }
      // The exponent makes it an approximate (DOUBLE) literal rather than a DECIMAL.
      String digits = Double.toString(d);
      text = digits.contains("E") ? digits : digits + "E0";
    } else if (value instanceof CharSequence || value instanceof Character) {
      text = quote(value.toString());
    } else if (value instanceof LocalDate d) {
      text = "DATE '" + d + "'";
    } else if (value instanceof java.sql.Date d) {
      text = "DATE '" + d.toLocalDate() + "'";
    } else if (value instanceof LocalDateTime t) {
      text = "TIMESTAMP '" + TIMESTAMP.format(t) + "'";
    } else if (value instanceof java.sql.Timestamp t) {
      text = "TIMESTAMP '" + TIMESTAMP.format(t.toLocalDateTime()) + "'";
    } else if (value instanceof Instant t) {
      text = "TIMESTAMP '" + TIMESTAMP.format(LocalDateTime.ofInstant(t, ZoneOffset.UTC)) + "'";
    } else if (value instanceof LocalTime t) {
      text = "TIME '" + t + "'";
    } else if (value instanceof byte[] bytes) {
      text = "X'" + HexFormat.of().formatHex(bytes) + "'";
    } else {
      throw new QueryTypeException(
          "Parameter "
              + index
              + " is a "
              + value.getClass().getName()
              + ", which cannot be bound; give a number, string, boolean, date or timestamp");
    }
    return "CAST(" + text + " AS " + sqlType + ")";
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  /** The SQL name of a parameter's Arrow type. */
  static String sqlType(ArrowType type, int index) {
    String name = TypeMapping.sqlName(type);
    if (name == null) {
      throw new QueryTypeException(
          "Parameter " + index + " has type " + type + ", which cannot be bound");
    }
    return name;
  }
}
