package dev.quiver.binding.physical.kernel;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Gathers rows by index into new vectors: the kernel behind filter, join output, sort and
 * partitioning. A negative index produces a null (outer-join padding).
 */
public final class Take {
  private Take() {}

  /** Returns a new batch holding rows {@code indices[0..count)} of {@code batch}. */
  public static VectorSchemaRoot take(
      VectorSchemaRoot batch, int[] indices, int count, BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>(batch.getFieldVectors().size());
    try {
      for (FieldVector v : batch.getFieldVectors()) {
        out.add(take(v, indices, count, allocator));
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    VectorSchemaRoot root = new VectorSchemaRoot(batch.getSchema(), out, count);
    return root;
  }

  /** Returns a new vector holding {@code source[indices[i]]} for i in [0, count). */
  public static FieldVector take(
      FieldVector source, int[] indices, int count, BufferAllocator allocator) {
    FieldVector target = source.getField().createVector(allocator);
    try {
      if (source instanceof BitVector src) {
        takeBits(src, (BitVector) target, indices, count);
      } else if (source instanceof BaseFixedWidthVector src) {
        takeFixed(src, (BaseFixedWidthVector) target, indices, count);
      } else if (source instanceof BaseVariableWidthVector src) {
        takeVariable(src, (BaseVariableWidthVector) target, indices, count);
      } else {
        takeGeneric(source, target, indices, count);
      }
      return target;
    } catch (RuntimeException e) {
      target.close();
      throw e;
    }
  }

  private static void takeFixed(
      BaseFixedWidthVector src, BaseFixedWidthVector dst, int[] indices, int count) {
    dst.allocateNew(Math.max(count, 1));
    int width = src.getTypeWidth();
    ArrowBuf sd = src.getDataBuffer();
    ArrowBuf dd = dst.getDataBuffer();
    ArrowBuf sv = src.getValidityBuffer();
    ArrowBuf dv = dst.getValidityBuffer();
    boolean srcHasNulls = src.getNullCount() > 0;
    switch (width) {
      case 8 -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= 0) {
            dd.setLong((long) i * 8, sd.getLong((long) j * 8));
          }
        }
      }
      case 4 -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= 0) {
            dd.setInt((long) i * 4, sd.getInt((long) j * 4));
          }
        }
      }
      case 16 -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= 0) {
            dd.setLong((long) i * 16, sd.getLong((long) j * 16));
            dd.setLong((long) i * 16 + 8, sd.getLong((long) j * 16 + 8));
          }
        }
      }
      default -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= 0) {
            dd.setBytes((long) i * width, sd, (long) j * width, width);
          }
        }
      }
    }
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      boolean valid = j >= 0 && (!srcHasNulls || BitVectorHelper.get(sv, j) != 0);
      if (valid) {
        BitVectorHelper.setBit(dv, i);
      }
    }
    dst.setValueCount(count);
  }

  private static void takeBits(BitVector src, BitVector dst, int[] indices, int count) {
    dst.allocateNew(Math.max(count, 1));
    ArrowBuf sd = src.getDataBuffer();
    ArrowBuf sv = src.getValidityBuffer();
    ArrowBuf dd = dst.getDataBuffer();
    ArrowBuf dv = dst.getValidityBuffer();
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= 0 && BitVectorHelper.get(sv, j) != 0) {
        BitVectorHelper.setBit(dv, i);
        if (BitVectorHelper.get(sd, j) != 0) {
          BitVectorHelper.setBit(dd, i);
        }
      }
    }
    dst.setValueCount(count);
  }

  private static void takeVariable(
      BaseVariableWidthVector src, BaseVariableWidthVector dst, int[] indices, int count) {
    ArrowBuf so = src.getOffsetBuffer();
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= 0) {
        bytes += so.getInt((long) (j + 1) * 4) - so.getInt((long) j * 4);
      }
    }
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalStateException("batch too large for a 32-bit offset string vector: " + bytes);
    }
    dst.allocateNew(Math.max(bytes, 1), Math.max(count, 1));
    ArrowBuf sd = src.getDataBuffer();
    ArrowBuf sv = src.getValidityBuffer();
    ArrowBuf dd = dst.getDataBuffer();
    ArrowBuf doff = dst.getOffsetBuffer();
    ArrowBuf dv = dst.getValidityBuffer();
    boolean srcHasNulls = src.getNullCount() > 0;
    int pos = 0;
    doff.setInt(0, 0);
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= 0) {
        int start = so.getInt((long) j * 4);
        int len = so.getInt((long) (j + 1) * 4) - start;
        if (len > 0) {
          dd.setBytes(pos, sd, start, len);
        }
        pos += len;
        if (!srcHasNulls || BitVectorHelper.get(sv, j) != 0) {
          BitVectorHelper.setBit(dv, i);
        }
      }
      doff.setInt((long) (i + 1) * 4, pos);
    }
    dst.setLastSet(count - 1);
    dst.setValueCount(count);
  }

  private static void takeGeneric(FieldVector src, FieldVector dst, int[] indices, int count) {
    dst.setInitialCapacity(Math.max(count, 1));
    dst.allocateNew();
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= 0) {
        dst.copyFromSafe(j, i, src);
      }
    }
    dst.setValueCount(count);
  }
}
