package dev.quiver.binding.datasource;

import dev.quiver.binding.ScanRequest;
import dev.quiver.binding.TableProvider;
import dev.quiver.binding.physical.ExecutionPlan;
import org.apache.arrow.vector.types.pojo.Schema;

/** STUB (signature fixed; owner replaces the body). A Parquet file or directory of files. */
public final class ParquetTable implements TableProvider {
  /** Opens (reads the footers of) a Parquet file or a directory of them. */
  public static ParquetTable open(String path) {
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
