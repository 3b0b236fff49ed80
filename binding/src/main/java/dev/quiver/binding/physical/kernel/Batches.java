package dev.quiver.binding.physical.kernel;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorBatchAppender;

/**
 * Small batch-level helpers shared by operators: empty batches, slices, transfers, concatenation.
 */
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
   * Moves every vector of {@code batch} into a new root with {@code schema}'s fields (names,
   * nullability), without copying data; closes {@code batch}. Returns {@code batch} itself when it
   * already has {@code schema}.
   */
  public static VectorSchemaRoot withSchema(VectorSchemaRoot batch, Schema schema) {
    if (batch.getSchema().equals(schema)) {
      return batch;
    }
    int rows = batch.getRowCount();
    List<FieldVector> out = new ArrayList<>();
    try {
      for (int i = 0; i < schema.getFields().size(); i++) {
        FieldVector vector = batch.getVector(i);
        TransferPair pair =
            vector.getTransferPair(schema.getFields().get(i), vector.getAllocator());
        pair.transfer();
        out.add((FieldVector) pair.getTo());
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    } finally {
      batch.close();
    }
    return new VectorSchemaRoot(schema, out, rows);
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

  /**
   * Concatenates batches of one schema into one new batch owned by the caller. Each column is
   * allocated once at its exact final size (no doubling while appending), since sorts and joins
   * concatenate buffers that are already close to their memory budget.
   */
  public static VectorSchemaRoot concat(
      Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    int rows = 0;
    for (VectorSchemaRoot b : batches) {
      rows += b.getRowCount();
    }
    List<FieldVector> out = new ArrayList<>(schema.getFields().size());
    try {
      for (int c = 0; c < schema.getFields().size(); c++) {
        FieldVector target = schema.getFields().get(c).createVector(allocator);
        out.add(target);
        List<FieldVector> sources = new ArrayList<>(batches.size());
        for (VectorSchemaRoot b : batches) {
          if (b.getRowCount() > 0) {
            sources.add(b.getVector(c));
          }
        }
        concatColumn(sources, target, rows);
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(schema, out, rows);
  }

  private static void concatColumn(List<FieldVector> sources, FieldVector target, int rows) {
    if (target instanceof BaseFixedWidthVector dst && !(target instanceof BitVector)) {
      dst.allocateNew(Math.max(rows, 1));
      int width = dst.getTypeWidth();
      int pos = 0;
      for (FieldVector v : sources) {
        int n = v.getValueCount();
        dst.getDataBuffer().setBytes((long) pos * width, v.getDataBuffer(), 0, (long) n * width);
        copyValidity(v, dst.getValidityBuffer(), pos, n);
        pos += n;
      }
      dst.setValueCount(rows);
    } else if (target instanceof BaseVariableWidthVector dst) {
      long bytes = 0;
      for (FieldVector v : sources) {
        bytes += v.getOffsetBuffer().getInt((long) v.getValueCount() * 4);
      }
      if (bytes > Integer.MAX_VALUE) {
        throw new IllegalStateException(
            "concatenated strings exceed 2 GiB in one column: " + bytes);
      }
      dst.allocateNew(Math.max(bytes, 1), Math.max(rows, 1));
      ArrowBuf offsets = dst.getOffsetBuffer();
      int pos = 0;
      int base = 0;
      for (FieldVector v : sources) {
        int n = v.getValueCount();
        ArrowBuf so = v.getOffsetBuffer();
        int start = so.getInt(0);
        int len = so.getInt((long) n * 4) - start;
        dst.getDataBuffer().setBytes(base, v.getDataBuffer(), start, len);
        for (int i = 0; i <= n; i++) {
          offsets.setInt((long) (pos + i) * 4, base + so.getInt((long) i * 4) - start);
        }
        copyValidity(v, dst.getValidityBuffer(), pos, n);
        pos += n;
        base += len;
      }
      dst.setLastSet(rows - 1);
      dst.setValueCount(rows);
    } else {
      target.setInitialCapacity(Math.max(rows, 1));
      target.allocateNew();
      for (FieldVector v : sources) {
        VectorBatchAppender.batchAppend(target, v);
      }
      target.setValueCount(rows);
    }
  }

  private static void copyValidity(FieldVector source, ArrowBuf validity, int pos, int n) {
    if (n <= 0) {
      return;
    }
    long dv = Raw.address(validity, (pos + n + 7L) >>> 3);
    if (source.getNullCount() == 0) {
      Raw.setBits(dv, pos, n);
      return;
    }
    long sv = Raw.address(source.getValidityBuffer(), (n + 7L) >>> 3);
    for (int i = 0; i < n; i++) {
      if (Raw.bit(sv, i)) {
        Raw.setBit(dv, pos + i);
      }
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
