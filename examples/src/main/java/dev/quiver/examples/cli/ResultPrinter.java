package dev.quiver.examples.cli;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.format.TableFormatter;
import java.io.PrintWriter;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Runs a query and prints the first rows of its result as a table; returns the row count. */
final class ResultPrinter {
  private ResultPrinter() {}

  static long print(DataFrame df, int maxRows, PrintWriter out) {
    List<VectorSchemaRoot> batches = df.collect();
    try {
      long rows = 0;
      for (VectorSchemaRoot b : batches) {
        rows += b.getRowCount();
      }
      out.println(TableFormatter.format(df.schema(), batches, maxRows));
      out.flush();
      return rows;
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  /** Runs a query and returns its row count, the batches freed at once. */
  static long count(DataFrame df) {
    List<VectorSchemaRoot> batches = df.collect();
    try {
      long rows = 0;
      for (VectorSchemaRoot b : batches) {
        rows += b.getRowCount();
      }
      return rows;
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
