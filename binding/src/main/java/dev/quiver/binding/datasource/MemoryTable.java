package dev.quiver.binding.datasource;

import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.DataSourceException;
import dev.quiver.binding.ScanRequest;
import dev.quiver.binding.TableProvider;
import dev.quiver.binding.TableStatistics;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.MemoryScanExec;
import dev.quiver.binding.physical.scan.ScanBatches;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Batches held in memory; INSERT appends. The table owns copies of its batches; scans read
 * reference-counted slices of them, so the table must stay open while a scan of it runs.
 */
public final class MemoryTable implements TableProvider, AutoCloseable {
  private final Schema schema;
  private final BufferAllocator allocator;
  // Copy-on-write: a scan keeps the list it saw while INSERT publishes a new one.
  private volatile List<VectorSchemaRoot> batches = List.of();
  private boolean closed;

  /** Creates a table holding copies of {@code batches} allocated from {@code allocator}. */
  public MemoryTable(Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    this.schema = schema;
    this.allocator = allocator;
    append(batches);
  }

  /** Appends copies of {@code batches} (same schema). */
  public void append(List<VectorSchemaRoot> batches) {
    List<VectorSchemaRoot> copies = new ArrayList<>(batches.size());
    try {
      for (VectorSchemaRoot batch : batches) {
        checkSchema(batch.getSchema());
        copies.add(Batches.withSchema(ScanBatches.deepCopy(batch, allocator), schema));
      }
    } catch (RuntimeException e) {
      copies.forEach(VectorSchemaRoot::close);
      throw e;
    }
    synchronized (this) {
      if (closed) {
        copies.forEach(VectorSchemaRoot::close);
        throw new DataSourceException("Memory table is closed; register the data again");
      }
      List<VectorSchemaRoot> all = new ArrayList<>(this.batches);
      all.addAll(copies);
      this.batches = List.copyOf(all);
    }
  }

  private void checkSchema(Schema other) {
    List<Field> mine = schema.getFields();
    List<Field> theirs = other.getFields();
    boolean same = mine.size() == theirs.size();
    for (int i = 0; same && i < mine.size(); i++) {
      same = mine.get(i).getType().equals(theirs.get(i).getType());
    }
    if (!same) {
      throw new DataSourceException(
          "Batch schema "
              + other
              + " does not match the memory table's schema "
              + schema
              + "; cast the columns to the table's types");
    }
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    return new MemoryScanExec(
        schema,
        batches,
        request.projection(),
        request.limit(),
        Math.max(1, request.targetPartitions()),
        request.config().batchSize());
  }

  @Override
  public TableStatistics statistics() {
    List<VectorSchemaRoot> snapshot = batches;
    long rows = 0;
    long bytes = 0;
    for (VectorSchemaRoot b : snapshot) {
      rows += b.getRowCount();
      bytes += ScanBatches.bufferBytes(b);
    }
    return TableStatistics.of(rows, bytes);
  }

  /** The table's batches (owned by the table; do not close them). */
  public List<VectorSchemaRoot> batches() {
    return batches;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      batches.forEach(VectorSchemaRoot::close);
      batches = List.of();
    }
  }
}
