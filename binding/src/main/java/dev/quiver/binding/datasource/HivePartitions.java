package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.scan.PartitionValues;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hive-style partition folders ({@code events/cat=a/day=2026-01-01/part-0.parquet}): the {@code
 * name=value} folders between a table's root and its files become columns, typed by what their
 * values all parse as (BIGINT, else DATE, else VARCHAR) unless the caller says otherwise, and
 * filters on them skip whole files.
 */
final class HivePartitions {
  /** The folder name Hive and Spark write for a NULL partition value. */
  static final String DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__";

  private HivePartitions() {}

  /** The {@code name=value} folders of {@code relativePath} (a file below the table's root). */
  static List<String[]> parse(String relativePath) {
    List<String[]> out = new ArrayList<>();
    String[] parts = relativePath.split("/");
    for (int i = 0; i < parts.length - 1; i++) {
      int eq = parts[i].indexOf('=');
      if (eq > 0) {
        String value = unescape(parts[i].substring(eq + 1));
        out.add(new String[] {unescape(parts[i].substring(0, eq)), isNull(value) ? null : value});
      }
    }
    return out;
  }

  /** Hive and Spark write NULL as {@link #DEFAULT_PARTITION}, DuckDB as {@code NULL}. */
  private static boolean isNull(String value) {
    return value.equals(DEFAULT_PARTITION) || value.equals("NULL");
  }

  /** Hive escapes special characters in folder names as %XX. */
  static String unescape(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length()) {
        try {
          out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
          i += 2;
          continue;
        } catch (NumberFormatException e) {
          // Not an escape: keep the '%'.
        }
      }
      byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
      out.write(b, 0, b.length);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * The partition columns of {@code files} (paths relative to the table's root), typed by {@code
   * types} where given, else by their values; empty when the files are not partitioned. Throws when
   * files disagree on the partition folders.
   */
  static List<Field> columns(
      List<String> relativePaths, Map<String, ArrowType> types, String table) {
    List<String> names = null;
    String first = null;
    List<List<String>> values = new ArrayList<>();
    for (String rel : relativePaths) {
      List<String[]> parts = parse(rel);
      List<String> n = parts.stream().map(p -> p[0]).toList();
      if (names == null) {
        names = n;
        first = rel;
        for (int i = 0; i < n.size(); i++) {
          values.add(new ArrayList<>());
        }
      } else if (!names.equals(n)) {
        throw new DataSourceException(
            "Table "
                + table
                + ": file "
                + rel
                + " lies in partition folders "
                + n
                + " but "
                + first
                + " in "
                + names
                + "; every file needs the same name=value folders");
      }
      for (int i = 0; i < parts.size(); i++) {
        values.get(i).add(parts.get(i)[1]);
      }
    }
    List<Field> fields = new ArrayList<>();
    for (int i = 0; names != null && i < names.size(); i++) {
      String name = names.get(i);
      ArrowType type = types.containsKey(name) ? types.get(name) : infer(values.get(i));
      fields.add(new Field(name, FieldType.nullable(type), null));
    }
    for (String name : types.keySet()) {
      if (names == null || !names.contains(name)) {
        throw new DataSourceException(
            "Table "
                + table
                + " has no partition folder "
                + name
                + "=...; its partition columns are "
                + (names == null ? "[]" : names));
      }
    }
    return fields;
  }

  private static ArrowType infer(List<String> values) {
    boolean longs = true;
    boolean dates = true;
    for (String v : values) {
      if (v == null) {
        continue;
      }
      longs &= PartitionValues.parse(v, new ArrowType.Int(64, true)) != null;
      dates &= PartitionValues.parse(v, new ArrowType.Date(DateUnit.DAY)) != null;
    }
    if (values.stream().allMatch(v -> v == null)) {
      return ArrowType.Utf8.INSTANCE;
    }
    return longs
        ? new ArrowType.Int(64, true)
        : dates ? new ArrowType.Date(DateUnit.DAY) : ArrowType.Utf8.INSTANCE;
  }

  /**
   * Evaluates the filters that read only partition columns (the last {@code partitionFields} of
   * {@code schema}) on one file's partition values: false when one of them refutes the file.
   */
  static final class Pruner implements AutoCloseable {
    private final Schema schema;
    private final int firstPartition;
    private final List<PhysicalExpr> filters = new ArrayList<>();
    private final BufferAllocator allocator = new RootAllocator();

    Pruner(List<PhysicalExpr> all, Schema schema, int partitionFields) {
      this.schema = schema;
      this.firstPartition = schema.getFields().size() - partitionFields;
      if (partitionFields > 0 && all != null) {
        for (PhysicalExpr f : all) {
          if (onlyPartitionColumns(f)) {
            filters.add(f);
          }
        }
      }
    }

    private boolean onlyPartitionColumns(PhysicalExpr e) {
      if (e instanceof ColumnExpr c) {
        return c.index() >= firstPartition;
      }
      boolean any = false;
      for (PhysicalExpr child : e.children()) {
        if (!onlyPartitionColumns(child)) {
          return false;
        }
        any = true;
      }
      return any || e.children().isEmpty();
    }

    /** Whether a file with partition {@code values} may hold matching rows. */
    boolean keeps(List<String> values) {
      if (filters.isEmpty()) {
        return true;
      }
      try (VectorSchemaRoot row = VectorSchemaRoot.create(schema, allocator)) {
        for (int i = 0; i < schema.getFields().size(); i++) {
          FieldVector v = row.getVector(i);
          v.allocateNew();
          if (i >= firstPartition) {
            PartitionValues.fill(v, values.get(i - firstPartition), 1);
          } else {
            v.setNull(0);
            v.setValueCount(1);
          }
        }
        row.setRowCount(1);
        for (PhysicalExpr f : filters) {
          try (FieldVector result = f.evaluate(row, allocator)) {
            if (result instanceof BitVector b && (b.isNull(0) || b.get(0) == 0)) {
              return false;
            }
          } catch (RuntimeException e) {
            // A filter that cannot be evaluated here keeps the file; the planner applies it.
          }
        }
        return true;
      }
    }

    @Override
    public void close() {
      allocator.close();
    }
  }
}
