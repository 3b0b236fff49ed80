package dev.quiver.binding.sql;

import dev.quiver.binding.dataframe.Cancellable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An {@link ArrowReader} over a running query; closing it cancels the query and frees its memory.
 */
final class QueryReader extends ArrowReader implements Cancellable {
  private final QueryExecution execution;

  QueryReader(QueryExecution execution, BufferAllocator allocator) {
    super(allocator);
    this.execution = execution;
  }

  @Override
  public boolean loadNextBatch() throws java.io.IOException {
    VectorSchemaRoot batch = execution.next();
    if (batch == null) {
      return false;
    }
    try (batch) {
      VectorSchemaRoot root = getVectorSchemaRoot();
      for (int i = 0; i < batch.getFieldVectors().size(); i++) {
        FieldVector from = batch.getVector(i);
        from.makeTransferPair(root.getVector(i)).transfer();
      }
      root.setRowCount(batch.getRowCount());
    }
    return true;
  }

  @Override
  public void cancel(String reason) {
    execution.cancel(reason);
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    execution.close();
  }

  @Override
  protected Schema readSchema() {
    return execution.schema();
  }
}
