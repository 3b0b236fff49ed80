package dev.quiver.examples.tpch;

import java.util.List;

/**
 * One TPC-H query: its number, SQL text, and the output columns of its top-level ORDER BY (empty
 * when the result order is unspecified).
 */
public record TpchQuery(int number, String sql, List<String> orderBy) {
  /** Creates a query; copies the ordering list. */
  public TpchQuery {
    orderBy = List.copyOf(orderBy);
  }

  /** The query's short name, {@code q01} .. {@code q22}. */
  public String name() {
    return String.format("q%02d", number);
  }

  /** Whether the query has a top-level ORDER BY, so its rows must be compared in order. */
  public boolean ordered() {
    return !orderBy.isEmpty();
  }
}
