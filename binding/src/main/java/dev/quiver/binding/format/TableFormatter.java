package dev.quiver.binding.format;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** STUB (signature fixed; owner replaces the body). Renders batches as a boxed text table. */
public final class TableFormatter {
  private TableFormatter() {}

  /** Renders up to {@code maxRows} rows; says how many more there were. */
  public static String format(Schema schema, List<VectorSchemaRoot> batches, int maxRows) {
    throw new UnsupportedOperationException("pending");
  }
}
