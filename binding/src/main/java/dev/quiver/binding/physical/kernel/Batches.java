package dev.quiver.binding.physical.kernel;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorBatchAppender;

/** Small batch-level helpers shared by operators: empty batches, slices, transfers, concatenation. */
public final class Batches {
  private Batches() {}

  /** A batch with zero rows. */
  public static VectorSchemaRoot empty(Schema schema, BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    root.setRowCount(0);
    return root;
  }

  /** Moves a batch's buffers to {@code allocator} (ownership moves; the source is left empty). */
  public static VectorSchemaRoot transfer(VectorSchemaRoot batch, BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>();
    for (FieldVector v : batch.getFieldVectors()) {
      TransferPair pair = v.getTransferPair(v.getField(), allocator);
      pair.transfer();
      out.add((FieldVector) pair.getTo());
    }
    int rows = batch.getRowCount();
    return new VectorSchemaRoot(batch.getSchema(), out, rows);
  }

  /**
   * Returns rows {@code [offset, offset + length)} as a new batch owned by the caller. The source
   * keeps its data; buffers are shared where Arrow can slice them.
   */
  public static VectorSchemaRoot slice(
      VectorSchemaRoot batch, int offset, int length, BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>();
    try {
      for (FieldVector v : batch.getFieldVectors()) {
        TransferPair pair = v.getTransferPair(v.getField(), allocator);
        pair.splitAndTransfer(offset, length);
        out.add((FieldVector) pair.getTo());
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(batch.getSchema(), out, length);
  }

  /** Returns a new batch with the given columns (owned by the batch from now on). */
  public static VectorSchemaRoot of(Schema schema, List<FieldVector> columns, int rowCount) {
    return new VectorSchemaRoot(schema, columns, rowCount);
  }

  /** Concatenates batches of one schema into one new batch owned by the caller. */
  public static VectorSchemaRoot concat(
      Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    VectorSchemaRoot result = empty(schema, allocator);
    try {
      int rows = 0;
      for (VectorSchemaRoot b : batches) {
        if (b.getRowCount() == 0) {
          continue;
        }
        for (int c = 0; c < schema.getFields().size(); c++) {
          VectorBatchAppender.batchAppend(result.getVector(c), b.getVector(c));
        }
        rows += b.getRowCount();
      }
      result.setRowCount(rows);
      return result;
    } catch (RuntimeException e) {
      result.close();
      throw e;
    }
  }

  /** Closes every batch in the list, ignoring nulls. */
  public static void closeAll(Iterable<? extends AutoCloseable> items) {
    RuntimeException first = null;
    for (AutoCloseable c : items) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e instanceof RuntimeException re ? re : new RuntimeException(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /** Bytes held by a batch's buffers. */
  public static long sizeInBytes(VectorSchemaRoot batch) {
    long total = 0;
    for (FieldVector v : batch.getFieldVectors()) {
      total += v.getBufferSize();
    }
    return total;
  }
}
