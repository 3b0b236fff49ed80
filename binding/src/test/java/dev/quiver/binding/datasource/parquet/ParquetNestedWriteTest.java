package dev.quiver.binding.datasource.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structs, lists (of values, of lists, of structs) and maps written by {@link ParquetFileWriter}
 * and read back by DuckDB: null and empty at every level, items that are null, several row groups;
 * compared as DuckDB renders each value, and the footer's LIST/MAP layout and field ids.
 */
@Timeout(value = 60, unit = java.util.concurrent.TimeUnit.SECONDS)
class ParquetNestedWriteTest {
  private static final int ROWS = 5_000;

  @TempDir Path tmp;

  private static Field field(String name, boolean nullable, ArrowType type, int id, Field... kids) {
    return new Field(
        name,
        new FieldType(nullable, type, null, Map.of("PARQUET:field_id", Integer.toString(id))),
        List.of(kids));
  }

  private static final Schema SCHEMA =
      new Schema(
          List.of(
              field("id", false, new ArrowType.Int(32, true), 1),
              field(
                  "s",
                  true,
                  ArrowType.Struct.INSTANCE,
                  2,
                  field("a", true, new ArrowType.Int(32, true), 3),
                  field("b", true, ArrowType.Utf8.INSTANCE, 4)),
              field(
                  "l",
                  true,
                  ArrowType.List.INSTANCE,
                  5,
                  field("element", true, new ArrowType.Int(32, true), 6)),
              field(
                  "ll",
                  true,
                  ArrowType.List.INSTANCE,
                  7,
                  field(
                      "element",
                      true,
                      ArrowType.List.INSTANCE,
                      8,
                      field("element", true, new ArrowType.Int(32, true), 9))),
              field(
                  "m",
                  true,
                  new ArrowType.Map(false),
                  10,
                  new Field(
                      "entries",
                      FieldType.notNullable(ArrowType.Struct.INSTANCE),
                      List.of(
                          field("key", false, ArrowType.Utf8.INSTANCE, 11),
                          field("value", true, new ArrowType.Int(32, true), 12)))),
              field(
                  "ls",
                  true,
                  ArrowType.List.INSTANCE,
                  13,
                  field(
                      "element",
                      true,
                      ArrowType.Struct.INSTANCE,
                      14,
                      field("x", true, new ArrowType.Int(32, true), 15),
                      field("y", true, ArrowType.Utf8.INSTANCE, 16)))));

  // The value of each column at row r, as DuckDB renders it (null for NULL).

  private static String s(int r) {
    if (r % 5 == 4) {
      return null;
    }
    return "{'a': " + (r % 3 == 0 ? "NULL" : r) + ", 'b': x" + r + "}";
  }

  private static Integer item(int r, int k) {
    return k == 1 ? null : r * 10 + k;
  }

  private static String l(int r) {
    if (r % 6 == 5) {
      return null;
    }
    List<String> items = new ArrayList<>();
    for (int k = 0; k < r % 4; k++) {
      items.add(String.valueOf(item(r, k)).replace("null", "NULL"));
    }
    return "[" + String.join(", ", items) + "]";
  }

  private static String ll(int r) {
    if (r % 7 == 3) {
      return null;
    }
    List<String> lists = new ArrayList<>();
    for (int j = 0; j < r % 4; j++) {
      lists.add(j == 1 ? "[]" : j == 2 ? "NULL" : "[" + r + ", " + (r + j) + "]");
    }
    return "[" + String.join(", ", lists) + "]";
  }

  private static String m(int r) {
    if (r % 4 == 3) {
      return null;
    }
    List<String> entries = new ArrayList<>();
    for (int k = 0; k < r % 3; k++) {
      entries.add("k" + k + "=" + (k == 1 ? "NULL" : String.valueOf(r + k)));
    }
    return "{" + String.join(", ", entries) + "}";
  }

  private static String ls(int r) {
    if (r % 5 == 2) {
      return "[]";
    }
    String first = "{'x': " + r + ", 'y': " + (r % 2 == 0 ? "NULL" : "y" + r) + "}";
    return r % 3 == 0 ? "[" + first + ", NULL]" : "[" + first + "]";
  }

  private static void fill(VectorSchemaRoot root, int from, int n) {
    root.allocateNew();
    IntVector id = (IntVector) root.getVector("id");
    StructVector s = (StructVector) root.getVector("s");
    ListVector l = (ListVector) root.getVector("l");
    ListVector ll = (ListVector) root.getVector("ll");
    MapVector m = (MapVector) root.getVector("m");
    ListVector ls = (ListVector) root.getVector("ls");
    IntVector sa = (IntVector) s.getChild("a");
    VarCharVector sb = (VarCharVector) s.getChild("b");
    IntVector li = (IntVector) l.getDataVector();
    ListVector inner = (ListVector) ll.getDataVector();
    IntVector innerItems = (IntVector) inner.getDataVector();
    StructVector entries = (StructVector) m.getDataVector();
    VarCharVector keys = (VarCharVector) entries.getChild("key");
    IntVector values = (IntVector) entries.getChild("value");
    StructVector lsItems = (StructVector) ls.getDataVector();
    IntVector lx = (IntVector) lsItems.getChild("x");
    VarCharVector ly = (VarCharVector) lsItems.getChild("y");
    int innerCount = 0;
    for (int i = 0; i < n; i++) {
      int r = from + i;
      id.setSafe(i, r);
      if (r % 5 == 4) {
        s.setNull(i);
      } else {
        s.setIndexDefined(i);
        if (r % 3 == 0) {
          sa.setNull(i);
        } else {
          sa.setSafe(i, r);
        }
        sb.setSafe(i, ("x" + r).getBytes(StandardCharsets.UTF_8));
      }
      if (r % 6 == 5) {
        l.setNull(i);
      } else {
        int start = l.startNewValue(i);
        for (int k = 0; k < r % 4; k++) {
          Integer v = item(r, k);
          if (v == null) {
            li.setNull(start + k);
          } else {
            li.setSafe(start + k, v);
          }
        }
        l.endValue(i, r % 4);
      }
      if (r % 7 == 3) {
        ll.setNull(i);
      } else {
        ll.startNewValue(i);
        for (int j = 0; j < r % 4; j++) {
          if (j == 2) {
            inner.setNull(innerCount);
          } else {
            int start = inner.startNewValue(innerCount);
            if (j != 1) {
              innerItems.setSafe(start, r);
              innerItems.setSafe(start + 1, r + j);
            }
            inner.endValue(innerCount, j == 1 ? 0 : 2);
          }
          innerCount++;
        }
        ll.endValue(i, r % 4);
      }
      if (r % 4 == 3) {
        m.setNull(i);
      } else {
        int start = m.startNewValue(i);
        for (int k = 0; k < r % 3; k++) {
          entries.setIndexDefined(start + k);
          keys.setSafe(start + k, ("k" + k).getBytes(StandardCharsets.UTF_8));
          if (k == 1) {
            values.setNull(start + k);
          } else {
            values.setSafe(start + k, r + k);
          }
        }
        m.endValue(i, r % 3);
      }
      int start = ls.startNewValue(i);
      int count = r % 5 == 2 ? 0 : r % 3 == 0 ? 2 : 1;
      if (count > 0) {
        lsItems.setIndexDefined(start);
        lx.setSafe(start, r);
        if (r % 2 == 0) {
          ly.setNull(start);
        } else {
          ly.setSafe(start, ("y" + r).getBytes(StandardCharsets.UTF_8));
        }
      }
      if (count > 1) {
        lsItems.setNull(start + 1);
      }
      ls.endValue(i, count);
    }
    inner.setValueCount(innerCount);
    root.setRowCount(n);
  }

  @Test
  void nestedValuesReadBackThroughDuckDb() throws Exception {
    Path file = tmp.resolve("nested.parquet");
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        OutputStream out = Files.newOutputStream(file)) {
      ParquetFileWriter writer =
          new ParquetFileWriter(
              out,
              SCHEMA,
              ParquetWriteOptions.DEFAULT.withRowGroupRows(1_500).withPageBytes(8 * 1024));
      for (int from = 0; from < ROWS; from += 1_000) {
        fill(root, from, 1_000);
        writer.write(root);
      }
      writer.finish();
    }
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, s::VARCHAR, l::VARCHAR, ll::VARCHAR, m::VARCHAR, ls::VARCHAR"
                    + " FROM read_parquet('"
                    + file
                    + "') ORDER BY id")) {
      int r = 0;
      while (rs.next()) {
        assertThat(rs.getInt(1)).isEqualTo(r);
        assertThat(rs.getString(2)).as("s at %d", r).isEqualTo(s(r));
        assertThat(rs.getString(3)).as("l at %d", r).isEqualTo(l(r));
        assertThat(rs.getString(4)).as("ll at %d", r).isEqualTo(ll(r));
        assertThat(rs.getString(5)).as("m at %d", r).isEqualTo(m(r));
        assertThat(rs.getString(6)).as("ls at %d", r).isEqualTo(ls(r));
        r++;
      }
      assertThat(r).isEqualTo(ROWS);
    }
    Map<String, List<Object>> schema = new HashMap<>();
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT name, field_id, converted_type, repetition_type FROM parquet_schema('"
                    + file
                    + "')")) {
      while (rs.next()) {
        schema
            .computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
            .add(rs.getObject(2) + "/" + rs.getString(3) + "/" + rs.getString(4));
      }
    }
    assertThat(schema.get("l")).containsExactly("5/LIST/OPTIONAL");
    assertThat(schema.get("m")).containsExactly("10/MAP/OPTIONAL");
    assertThat(schema.get("key_value")).containsExactly("null/null/REPEATED");
    assertThat(schema.get("key")).containsExactly("11/UTF8/REQUIRED");
    assertThat(schema.get("value")).containsExactly("12/null/OPTIONAL");
    assertThat(schema.get("x")).containsExactly("15/null/OPTIONAL");
    assertThat(schema.get("element"))
        .containsExactlyInAnyOrder(
            "6/null/OPTIONAL", "8/LIST/OPTIONAL", "9/null/OPTIONAL", "14/null/OPTIONAL");
  }
}
