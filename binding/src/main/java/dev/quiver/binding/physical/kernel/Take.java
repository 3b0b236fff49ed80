package dev.quiver.binding.physical.kernel;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
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
    return take(source, source.getNullCount() > 0, indices, count, allocator);
  }

  /**
   * As {@link #take(FieldVector, int[], int, BufferAllocator)} for a caller that knows whether
   * {@code source} has nulls ({@code sourceHasNulls} may be true when it has none, never false when
   * it has some): counting them scans the whole validity buffer, which costs more than the gather
   * when few rows are taken from a large vector, such as a join's build side.
   */
  public static FieldVector take(
      FieldVector source,
      boolean sourceHasNulls,
      int[] indices,
      int count,
      BufferAllocator allocator) {
    FieldVector target = source.getField().createVector(allocator);
    try {
      if (source instanceof BitVector src) {
        takeBits(src, (BitVector) target, indices, count);
      } else if (source instanceof BaseFixedWidthVector src) {
        takeFixed(src, sourceHasNulls, (BaseFixedWidthVector) target, indices, count);
      } else if (source instanceof BaseVariableWidthVector src) {
        takeVariable(src, sourceHasNulls, (BaseVariableWidthVector) target, indices, count);
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
      BaseFixedWidthVector src,
      boolean srcHasNulls,
      BaseFixedWidthVector dst,
      int[] indices,
      int count) {
    dst.allocateNew(Math.max(count, 1));
    int width = src.getTypeWidth();
    // Rows the buffers can hold (not the value count, which callers may leave unset).
    int limit = (int) Math.min(Integer.MAX_VALUE, src.getDataBuffer().capacity() / width);
    if (srcHasNulls) {
      limit = (int) Math.min(limit, src.getValidityBuffer().capacity() * 8);
    }
    long sd = Raw.address(src.getDataBuffer(), (long) limit * width);
    long dd = Raw.address(dst.getDataBuffer(), (long) count * width);
    // One pass per width over the indices: check each before reading, copy, note any asking for a
    // null.
    int min = 0;
    switch (width) {
      case 8 -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= limit) {
            throw outOfRange(j, limit);
          }
          if (j >= 0) {
            Raw.putLong(dd + (long) i * 8, Raw.getLong(sd + (long) j * 8));
          } else {
            min = j;
          }
        }
      }
      case 4 -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= limit) {
            throw outOfRange(j, limit);
          }
          if (j >= 0) {
            Raw.putInt(dd + (long) i * 4, Raw.getInt(sd + (long) j * 4));
          } else {
            min = j;
          }
        }
      }
      case 16 -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= limit) {
            throw outOfRange(j, limit);
          }
          if (j >= 0) {
            Raw.putLong(dd + (long) i * 16, Raw.getLong(sd + (long) j * 16));
            Raw.putLong(dd + (long) i * 16 + 8, Raw.getLong(sd + (long) j * 16 + 8));
          } else {
            min = j;
          }
        }
      }
      default -> {
        for (int i = 0; i < count; i++) {
          int j = indices[i];
          if (j >= limit) {
            throw outOfRange(j, limit);
          }
          if (j >= 0) {
            Raw.copy(sd + (long) j * width, dd + (long) i * width, width);
          } else {
            min = j;
          }
        }
      }
    }
    // Indices are in range now.
    gatherValidity(src, srcHasNulls, limit, indices, count, min >= 0, dst.getValidityBuffer());
    dst.setValueCount(count);
  }

  /**
   * Sets validity bit i of the target for each row whose index is non-negative and valid in the
   * source; word-wise when the source has no nulls and no index asks for a null.
   */
  private static void gatherValidity(
      FieldVector src,
      boolean srcHasNulls,
      int limit,
      int[] indices,
      int count,
      boolean noNegative,
      ArrowBuf validity) {
    long dv = Raw.address(validity, (count + 7) >>> 3);
    if (!srcHasNulls) {
      if (noNegative) {
        Raw.setBits(dv, 0, count);
      } else {
        for (int i = 0; i < count; i++) {
          if (indices[i] >= 0) {
            Raw.setBit(dv, i);
          }
        }
      }
      return;
    }
    long sv = Raw.address(src.getValidityBuffer(), (limit + 7) >>> 3);
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= 0 && Raw.bit(sv, j)) {
        Raw.setBit(dv, i);
      }
    }
  }

  private static IndexOutOfBoundsException outOfRange(int index, int rows) {
    return new IndexOutOfBoundsException(
        "take index " + index + " of a vector of " + rows + " rows");
  }

  private static void takeBits(BitVector src, BitVector dst, int[] indices, int count) {
    dst.allocateNew(Math.max(count, 1));
    int limit =
        (int)
            Math.min(
                Integer.MAX_VALUE,
                8 * Math.min(src.getDataBuffer().capacity(), src.getValidityBuffer().capacity()));
    long sd = Raw.address(src.getDataBuffer(), (limit + 7) >>> 3);
    long sv = Raw.address(src.getValidityBuffer(), (limit + 7) >>> 3);
    long dd = Raw.address(dst.getDataBuffer(), (count + 7) >>> 3);
    long dv = Raw.address(dst.getValidityBuffer(), (count + 7) >>> 3);
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= limit) {
        throw outOfRange(j, limit);
      }
      if (j >= 0 && Raw.bit(sv, j)) {
        Raw.setBit(dv, i);
        if (Raw.bit(sd, j)) {
          Raw.setBit(dd, i);
        }
      }
    }
    dst.setValueCount(count);
  }

  private static void takeVariable(
      BaseVariableWidthVector src,
      boolean srcHasNulls,
      BaseVariableWidthVector dst,
      int[] indices,
      int count) {
    // Rows the offsets can describe (not the value count, which callers may leave unset).
    int limit =
        (int) Math.max(0, Math.min(Integer.MAX_VALUE, src.getOffsetBuffer().capacity() / 4 - 1));
    long so = Raw.address(src.getOffsetBuffer(), limit == 0 ? 0 : (limit + 1L) * 4);
    long sdCapacity = src.getDataBuffer().capacity();
    int maxIndex = -1;
    long bytes = 0;
    boolean noNegative = true;
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= limit) {
        throw outOfRange(j, limit);
      }
      if (j < 0) {
        noNegative = false;
      } else {
        int start = Raw.getInt(so + (long) j * 4);
        int end = Raw.getInt(so + (long) (j + 1) * 4);
        if (start < 0 || end < start || end > sdCapacity) {
          throw new IndexOutOfBoundsException(
              "string offsets [" + start + ", " + end + ") outside a buffer of " + sdCapacity);
        }
        bytes += end - start;
        maxIndex = Math.max(maxIndex, j);
      }
    }
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalStateException(
          "batch too large for a 32-bit offset string vector: " + bytes);
    }
    dst.allocateNew(Math.max(bytes, 1), Math.max(count, 1));
    long sd = src.getDataBuffer().memoryAddress();
    long sv = srcHasNulls ? Raw.address(src.getValidityBuffer(), (maxIndex + 8) >>> 3) : 0;
    long dd = Raw.address(dst.getDataBuffer(), bytes);
    long doff = Raw.address(dst.getOffsetBuffer(), (count + 1L) * 4);
    long dv = Raw.address(dst.getValidityBuffer(), (count + 7) >>> 3);
    int pos = 0;
    Raw.putInt(doff, 0);
    for (int i = 0; i < count; i++) {
      int j = indices[i];
      if (j >= 0) {
        int start = Raw.getInt(so + (long) j * 4);
        int len = Raw.getInt(so + (long) (j + 1) * 4) - start;
        Raw.copy(sd + start, dd + pos, len);
        pos += len;
        if (srcHasNulls ? Raw.bit(sv, j) : !noNegative) {
          Raw.setBit(dv, i);
        }
      }
      Raw.putInt(doff + (long) (i + 1) * 4, pos);
    }
    if (!srcHasNulls && noNegative) {
      Raw.setBits(dv, 0, count);
    }
    dst.setLastSet(count - 1);
    dst.setValueCount(count);
  }

  private static void takeGeneric(FieldVector src, FieldVector dst, int[] indices, int count) {
    if (dst instanceof NullVector) {
      // Every value of an untyped NULL column is NULL: only the count is kept (and a NullVector
      // cannot copy values).
      dst.setValueCount(count);
      return;
    }
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
