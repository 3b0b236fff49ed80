package dev.quiver.binding.sql;

import dev.quiver.binding.dataframe.DataFrame;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The rows of a result as text, for tests: each row's values joined by '|', in row order. */
public final class SqlRows {
  private SqlRows() {}

  /** Collects {@code df} and returns its rows, the batches freed. */
  public static List<String> of(DataFrame df) {
    List<String> out = new ArrayList<>();
    List<VectorSchemaRoot> batches = df.collect();
    try {
      for (VectorSchemaRoot b : batches) {
        for (int r = 0; r < b.getRowCount(); r++) {
          List<String> values = new ArrayList<>();
          for (FieldVector v : b.getFieldVectors()) {
            values.add(String.valueOf(v.getObject(r)));
          }
          out.add(String.join("|", values));
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return out;
  }
}
