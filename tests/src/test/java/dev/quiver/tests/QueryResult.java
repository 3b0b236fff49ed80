package dev.quiver.tests;

import java.util.List;

/**
 * A query result as plain Java values (Long, BigDecimal, Double, String, LocalDate, LocalDateTime,
 * Boolean or null), with each column's name and whether it is floating point.
 */
public record QueryResult(List<String> columns, List<Boolean> floating, List<List<Object>> rows) {
  /** Creates a result; the lists are used as given. */
  public QueryResult {
    if (columns.size() != floating.size()) {
      throw new IllegalArgumentException("columns and floating flags differ in length");
    }
  }

  /** Number of rows. */
  public int rowCount() {
    return rows.size();
  }
}
