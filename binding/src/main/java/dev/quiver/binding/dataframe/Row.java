package dev.quiver.binding.dataframe;

import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One result row as Java values (see {@link DataFrame#rows()}): numbers as Integer, Long, Double or
 * BigDecimal, strings, Boolean, dates as {@link java.time.LocalDate}, timestamps as {@link
 * java.time.LocalDateTime}, NULL as null.
 */
public final class Row {
  private final Map<String, Integer> index;
  private final List<Object> values;

  Row(Map<String, Integer> index, List<Object> values) {
    this.index = index;
    this.values = Collections.unmodifiableList(values);
  }

  /** The rows of {@code batches} (which stay open), in order. */
  static List<Row> of(List<String> columns, List<VectorSchemaRoot> batches) {
    Map<String, Integer> index = new java.util.LinkedHashMap<>();
    for (int i = 0; i < columns.size(); i++) {
      index.putIfAbsent(columns.get(i), i);
    }
    Map<String, Integer> shared = Collections.unmodifiableMap(index);
    List<Row> rows = new ArrayList<>();
    for (VectorSchemaRoot batch : batches) {
      List<FieldVector> vectors = batch.getFieldVectors();
      for (int r = 0; r < batch.getRowCount(); r++) {
        List<Object> values = new ArrayList<>(vectors.size());
        for (FieldVector v : vectors) {
          values.add(dev.quiver.binding.format.ArrowValues.get(v, r));
        }
        rows.add(new Row(shared, values));
      }
    }
    return rows;
  }

  /** Number of columns. */
  public int size() {
    return values.size();
  }

  /** The value of column {@code i} (0-based), or null. */
  public Object get(int i) {
    return values.get(i);
  }

  /** The value of the (first) column named {@code column}, or null. */
  public Object get(String column) {
    Integer i = index.get(column);
    if (i == null) {
      throw new UnknownColumnException(
          column, Suggestions.closest(column, List.copyOf(index.keySet())));
    }
    return values.get(i);
  }

  /** The value of column {@code i} as a {@code type}. */
  public <T> T get(int i, Class<T> type) {
    return type.cast(values.get(i));
  }

  /** The value of column {@code column} as a {@code type}. */
  public <T> T get(String column, Class<T> type) {
    return type.cast(get(column));
  }

  /** The values, in column order (unmodifiable). */
  public List<Object> values() {
    return values;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Row r && values.equals(r.values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
