package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/** Batch helpers shared by the scan operators: deep copies, zero-copy slices and projections. */
public final class ScanBatches {
  private ScanBatches() {}

  /**
   * Returns a deep copy of {@code source} whose buffers are freshly allocated from {@code
   * allocator}.
   */
  public static VectorSchemaRoot deepCopy(VectorSchemaRoot source, BufferAllocator allocator) {
    VectorSchemaRoot copy = VectorSchemaRoot.create(source.getSchema(), allocator);
    List<ArrowBuf> copies = new ArrayList<>();
    try (ArrowRecordBatch batch = new VectorUnloader(source).getRecordBatch()) {
      for (ArrowBuf buf : batch.getBuffers()) {
        long size = buf.readableBytes();
        ArrowBuf target = allocator.buffer(size);
        copies.add(target);
        target.setBytes(0, buf, buf.readerIndex(), size);
        target.writerIndex(size);
      }
      try (ArrowRecordBatch copied =
          new ArrowRecordBatch(batch.getLength(), batch.getNodes(), copies)) {
        new VectorLoader(copy).load(copied);
      }
    } catch (OutOfMemoryException e) {
      copy.close();
      throw exhausted("copying a batch of " + source.getRowCount() + " rows", e);
    } catch (RuntimeException e) {
      copy.close();
      throw e;
    } finally {
      copies.forEach(ArrowBuf::close);
    }
    return copy;
  }

  /**
   * Returns rows {@code [offset, offset + length)} of the columns {@code columns} of {@code source}
   * (all columns when null) as a new batch owned by the caller. Buffers are shared by reference
   * counting where Arrow can slice them; {@code source} stays valid and unchanged.
   */
  public static VectorSchemaRoot slice(
      VectorSchemaRoot source, int[] columns, int offset, int length, BufferAllocator allocator) {
    int n = columns == null ? source.getFieldVectors().size() : columns.length;
    List<FieldVector> out = new ArrayList<>(n);
    List<Field> fields = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        FieldVector vector = source.getVector(columns == null ? i : columns[i]);
        TransferPair pair = vector.getTransferPair(vector.getField(), allocator);
        pair.splitAndTransfer(offset, length);
        FieldVector sliced = (FieldVector) pair.getTo();
        out.add(sliced);
        fields.add(sliced.getField());
      }
    } catch (OutOfMemoryException e) {
      out.forEach(FieldVector::close);
      throw exhausted("slicing a batch of " + length + " rows", e);
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(new Schema(fields), out, length);
  }

  /** Bytes held by the buffers of {@code batch}. */
  public static long bufferBytes(VectorSchemaRoot batch) {
    long bytes = 0;
    for (FieldVector v : batch.getFieldVectors()) {
      bytes += v.getBufferSize();
    }
    return bytes;
  }

  /** Converts an allocator limit into the engine's typed error. */
  public static ResourcesExhaustedException exhausted(String what, OutOfMemoryException cause) {
    return new ResourcesExhaustedException(
        "Resources exhausted while "
            + what
            + ": "
            + cause.getMessage()
            + "; raise quiver.execution.memory_limit or read fewer columns",
        cause);
  }
}
