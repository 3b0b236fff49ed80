package dev.quiver.binding.datasource;

import dev.quiver.binding.ScanRequest;
import dev.quiver.binding.TableProvider;
import dev.quiver.binding.physical.ExecutionPlan;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** STUB (signature fixed; owner replaces the body). Batches held in memory; INSERT appends. */
public final class MemoryTable implements TableProvider, AutoCloseable {
  /** Creates a table holding copies of {@code batches} allocated from {@code allocator}. */
  public MemoryTable(Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    throw new UnsupportedOperationException("pending");
  }

  /** Appends copies of {@code batches} (same schema). */
  public void append(List<VectorSchemaRoot> batches) {
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

  @Override
  public void close() {
    throw new UnsupportedOperationException("pending");
  }
}
