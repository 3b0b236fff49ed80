package dev.quiver.binding.datasource;

import dev.quiver.binding.physical.ExecutionPlan;
import org.apache.arrow.vector.types.pojo.Schema;

/** A source of rows that can be registered as a table: memory batches, files, or custom code. */
public interface TableProvider {
  /** The table's schema. */
  Schema schema();

  /** Builds the plan that reads the requested columns and rows. */
  ExecutionPlan scan(ScanRequest request);

  /** What is known of the table's size; defaults to nothing. */
  default TableStatistics statistics() {
    return TableStatistics.unknown();
  }
}
