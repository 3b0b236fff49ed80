package dev.quiver.tests;

import dev.quiver.binding.dataframe.DataFrame;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The text of a result's columns (e.g. EXPLAIN's), values joined by newlines. */
final class QuiverRowsText {
  private QuiverRowsText() {}

  static String allColumns(DataFrame df) {
    List<VectorSchemaRoot> batches = df.collect();
    try {
      StringBuilder sb = new StringBuilder();
      for (VectorSchemaRoot b : batches) {
        for (int i = 0; i < b.getRowCount(); i++) {
          for (FieldVector v : b.getFieldVectors()) {
            sb.append(v.getObject(i)).append('\n');
          }
        }
      }
      return sb.toString();
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
