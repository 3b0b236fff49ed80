package dev.quiver.binding.datasource.parquet;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Column chunk statistics in the footer's form: null count always; min_value/max_value (ordered by
 * the column's logical type, as {@link org.apache.parquet.format.ColumnOrder TYPE_ORDER} in the
 * footer says) when the chunk has a non-null value; and the deprecated signed min/max as well for
 * signed numeric columns, for old readers.
 */
final class ParquetStatistics {
  /** Longer bounds (long strings) are left out, as parquet-mr does, to keep footers small. */
  private static final int MAX_BOUND_BYTES = 4096;

  private ParquetStatistics() {}

  /**
   * The footer statistics of {@code s}; with {@code nan} (the chunk holds a NaN, which the bounds
   * leave out) without bounds, so that no reader prunes a chunk whose NaNs match its filter.
   */
  static org.apache.parquet.format.Statistics toThrift(Statistics<?> s, boolean nan) {
    org.apache.parquet.format.Statistics t = new org.apache.parquet.format.Statistics();
    t.setNull_count(s.getNumNulls());
    if (!s.hasNonNullValue() || nan) {
      return t;
    }
    byte[] min = s.getMinBytes();
    byte[] max = s.getMaxBytes();
    if (min.length > MAX_BOUND_BYTES || max.length > MAX_BOUND_BYTES) {
      return t;
    }
    t.setMin_value(min);
    t.setMax_value(max);
    if (signed(s.type())) {
      t.setMin(min);
      t.setMax(max);
    }
    return t;
  }

  private static boolean signed(PrimitiveType type) {
    boolean numeric =
        switch (type.getPrimitiveTypeName()) {
          case INT32, INT64, FLOAT, DOUBLE, BOOLEAN -> true;
          default -> false;
        };
    return numeric
        && !(type.getLogicalTypeAnnotation()
                instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
            && !i.isSigned());
  }
}
