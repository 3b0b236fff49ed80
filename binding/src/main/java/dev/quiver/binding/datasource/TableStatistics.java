package dev.quiver.binding.datasource;

import java.util.OptionalLong;

/** What a table knows of its size, for join ordering and task sizing. */
public record TableStatistics(OptionalLong rowCount, OptionalLong totalBytes) {
  /** Nothing known. */
  public static TableStatistics unknown() {
    return new TableStatistics(OptionalLong.empty(), OptionalLong.empty());
  }

  /** Known row count and byte size. */
  public static TableStatistics of(long rows, long bytes) {
    return new TableStatistics(OptionalLong.of(rows), OptionalLong.of(bytes));
  }
}
