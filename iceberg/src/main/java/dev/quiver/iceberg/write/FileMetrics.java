package dev.quiver.iceberg.write;

import dev.quiver.binding.errors.ConstraintViolationException;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UnicodeUtil;

/**
 * The column metrics of one data file, computed from the Arrow batches written to it: value, null
 * and NaN counts, and lower and upper bounds (strings truncated to {@link #TRUNCATE} characters, as
 * Iceberg's default metrics mode does), which Iceberg's planning prunes files with. A NULL in a
 * required column fails the write here, before any file is published.
 */
final class FileMetrics {
  /** Characters of string bounds, Iceberg's default {@code truncate(16)}. */
  static final int TRUNCATE = 16;

  private final String table;
  private final List<Types.NestedField> columns;
  private final long[] nulls;
  private final long[] nans;
  private final Object[] lower;
  private final Object[] upper;
  private long rows;

  FileMetrics(String table, List<Types.NestedField> columns) {
    this.table = table;
    this.columns = columns;
    int n = columns.size();
    this.nulls = new long[n];
    this.nans = new long[n];
    this.lower = new Object[n];
    this.upper = new Object[n];
  }

  /** Counts the rows of {@code batch}, whose columns are the table's, in order. */
  void add(VectorSchemaRoot batch) {
    int n = batch.getRowCount();
    for (int c = 0; c < columns.size(); c++) {
      Types.NestedField col = columns.get(c);
      FieldVector v = batch.getVector(c);
      Type type = col.type();
      Comparator<Object> order = Comparators.forType(type.asPrimitiveType());
      boolean floating = type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
      for (int r = 0; r < n; r++) {
        Object value = ArrowValues.get(v, type, r);
        if (value == null) {
          if (col.isRequired()) {
            throw new ConstraintViolationException(
                "Iceberg table "
                    + table
                    + ": NULL in column "
                    + col.name()
                    + ", which is NOT NULL; give it a value",
                table,
                col.name(),
                "NULL");
          }
          nulls[c]++;
          continue;
        }
        if (floating && Double.isNaN(((Number) value).doubleValue())) {
          nans[c]++;
          continue;
        }
        if (lower[c] == null || order.compare(value, lower[c]) < 0) {
          lower[c] = value;
        }
        if (upper[c] == null || order.compare(value, upper[c]) > 0) {
          upper[c] = value;
        }
      }
    }
    rows += n;
  }

  /** The metrics of the rows added. */
  Metrics metrics() {
    Map<Integer, Long> valueCounts = new HashMap<>();
    Map<Integer, Long> nullCounts = new HashMap<>();
    Map<Integer, Long> nanCounts = new HashMap<>();
    Map<Integer, ByteBuffer> lowerBounds = new HashMap<>();
    Map<Integer, ByteBuffer> upperBounds = new HashMap<>();
    for (int c = 0; c < columns.size(); c++) {
      Types.NestedField col = columns.get(c);
      int id = col.fieldId();
      Type type = col.type();
      valueCounts.put(id, rows);
      nullCounts.put(id, nulls[c]);
      if (type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE) {
        nanCounts.put(id, nans[c]);
      }
      Object lo = lower[c];
      Object hi = upper[c];
      if (type.typeId() == Type.TypeID.STRING && lo != null) {
        lo = UnicodeUtil.truncateStringMin(lo.toString(), TRUNCATE);
        // Null when no string of TRUNCATE characters is above the maximum: no upper bound.
        hi = UnicodeUtil.truncateStringMax(hi.toString(), TRUNCATE);
      }
      if (lo != null) {
        lowerBounds.put(id, Conversions.toByteBuffer(type, lo));
      }
      if (hi != null) {
        upperBounds.put(id, Conversions.toByteBuffer(type, hi));
      }
    }
    return new Metrics(rows, null, valueCounts, nullCounts, nanCounts, lowerBounds, upperBounds);
  }

  long rows() {
    return rows;
  }
}
