package dev.quiver.binding.datasource;

import dev.quiver.binding.ScanRequest;
import dev.quiver.binding.TableProvider;
import dev.quiver.binding.physical.ExecutionPlan;
import org.apache.arrow.vector.types.pojo.Schema;

/** STUB (signature fixed; owner replaces the body). A CSV file (header row) or directory of them. */
public final class CsvTable implements TableProvider {
  /** Opens a CSV file (infers its schema) or a directory of them. */
  public static CsvTable open(String path) {
    throw new UnsupportedOperationException("pending");
  }

  @Override
  public Schema schema() {
    throw new UnsupportedOperationException("pending");
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    throw new UnsupportedOperationException("pending");
  }
}
