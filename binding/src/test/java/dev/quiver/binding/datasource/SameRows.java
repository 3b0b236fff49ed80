package dev.quiver.binding.datasource;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import java.math.BigDecimal;
import java.math.MathContext;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Query results of Quiver and of DuckDB (JDBC, in memory) as rows of text normalized alike, for
 * tests that check a reader against DuckDB reading the same files.
 */
public final class SameRows {
  private SameRows() {}

  /** DuckDB's rows for {@code sql}, with {@code view} defined as view {@code name}. */
  public static List<String> duckdb(String name, String view, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = c.createStatement()) {
      s.execute("CREATE VIEW " + name + " AS " + view);
      List<String> rows = new ArrayList<>();
      try (ResultSet r = s.executeQuery(sql)) {
        int n = r.getMetaData().getColumnCount();
        while (r.next()) {
          StringBuilder b = new StringBuilder();
          for (int i = 1; i <= n; i++) {
            Object o = r.getObject(i);
            if (o instanceof java.sql.Date d) {
              o = d.toLocalDate();
            }
            b.append(i > 1 ? "|" : "").append(normalize(o));
          }
          rows.add(b.toString());
        }
      }
      return rows;
    }
  }

  public static String normalize(Object o) {
    if (o == null) {
      return "NULL";
    }
    if (o instanceof org.duckdb.DuckDBStruct st) {
      try {
        return normalize(st.getMap());
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    if (o instanceof java.sql.Array a) {
      try {
        return normalize(java.util.Arrays.asList((Object[]) a.getArray()));
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    if (o instanceof java.util.Map<?, ?> m) {
      StringBuilder b = new StringBuilder("{");
      for (java.util.Map.Entry<?, ?> e : m.entrySet()) {
        b.append(b.length() > 1 ? ", " : "")
            .append(normalize(e.getKey()))
            .append(": ")
            .append(normalize(e.getValue()));
      }
      return b.append('}').toString();
    }
    if (o instanceof List<?> l) {
      StringBuilder b = new StringBuilder("[");
      for (Object e : l) {
        b.append(b.length() > 1 ? ", " : "").append(normalize(e));
      }
      return b.append(']').toString();
    }
    if (o instanceof java.sql.Timestamp t) {
      return t.toLocalDateTime().toString();
    }
    if (o instanceof java.time.OffsetDateTime t) {
      // TIMESTAMP WITH TIME ZONE: Quiver reads the instant as a UTC timestamp.
      return t.withOffsetSameInstant(java.time.ZoneOffset.UTC).toLocalDateTime().toString();
    }
    if (o instanceof java.sql.Time t) {
      return t.toLocalTime().toString();
    }
    if (o instanceof BigDecimal d) {
      return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    }
    if (o instanceof Double || o instanceof Float) {
      double d = ((Number) o).doubleValue();
      return d == Math.rint(d) && Math.abs(d) < 1e15
          ? Long.toString((long) d)
          : new BigDecimal(d).round(new MathContext(12)).stripTrailingZeros().toPlainString();
    }
    if (o instanceof Number n) {
      return Long.toString(n.longValue());
    }
    if (o instanceof org.apache.arrow.vector.util.Text t) {
      return t.toString();
    }
    return o.toString();
  }

  public static List<String> quiver(SessionContext ctx, String sql) {
    List<String> rows = new ArrayList<>();
    for (VectorSchemaRoot b : ctx.sql(sql).collect()) {
      try (b) {
        for (int r = 0; r < b.getRowCount(); r++) {
          StringBuilder s = new StringBuilder();
          int i = 0;
          for (FieldVector v : b.getFieldVectors()) {
            s.append(i++ > 0 ? "|" : "").append(normalize(value(v, r)));
          }
          rows.add(s.toString());
        }
      }
    }
    return rows;
  }

  /** Row {@code r} of {@code v} as a plain Java value: structs and maps as maps, lists as lists. */
  public static Object value(FieldVector v, int r) {
    return v.isNull(r) ? null : dev.quiver.binding.format.ArrowValues.get(v, r);
  }

  public static void same(List<String> want, List<String> got, String sql) {
    if (sql.contains("ORDER BY")) {
      assertThat(got).as(sql).containsExactlyElementsOf(want);
    } else {
      assertThat(got).as(sql).containsExactlyInAnyOrderElementsOf(want);
    }
  }
}
