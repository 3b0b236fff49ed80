package dev.quiver.binding.physical.sort;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Gathers rows from several batches of one schema into a new batch: row i of the result is row
 * {@code rows[i]} of batch {@code sources[i]}. The multi-batch counterpart of {@code Take}, used by
 * merges.
 */
public final class Interleave {
  private Interleave() {}

  /** Builds the interleaved batch (owned by the caller). */
  public static VectorSchemaRoot interleave(
      Schema schema,
      List<VectorSchemaRoot> batches,
      int[] sources,
      int[] rows,
      int count,
      BufferAllocator allocator) {
    List<FieldVector> out = new ArrayList<>(schema.getFields().size());
    FieldVector[] src = new FieldVector[batches.size()];
    try {
      for (int c = 0; c < schema.getFields().size(); c++) {
        for (int b = 0; b < src.length; b++) {
          src[b] = batches.get(b).getVector(c);
        }
        out.add(column(src, sources, rows, count, allocator));
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(schema, out, count);
  }

  private static FieldVector column(
      FieldVector[] src, int[] sources, int[] rows, int count, BufferAllocator allocator) {
    FieldVector target = src[0].getField().createVector(allocator);
    try {
      if (target instanceof BitVector dst) {
        bits(src, dst, sources, rows, count);
      } else if (target instanceof BaseFixedWidthVector dst) {
        fixed(src, dst, sources, rows, count);
      } else if (target instanceof BaseVariableWidthVector dst) {
        variable(src, dst, sources, rows, count);
      } else if (target instanceof NullVector) {
        // An untyped NULL column: no values to copy, only the count.
        target.setValueCount(count);
      } else {
        target.setInitialCapacity(Math.max(count, 1));
        target.allocateNew();
        for (int i = 0; i < count; i++) {
          target.copyFromSafe(rows[i], i, src[sources[i]]);
        }
        target.setValueCount(count);
      }
      return target;
    } catch (RuntimeException e) {
      target.close();
      throw e;
    }
  }

  private static void fixed(
      FieldVector[] src, BaseFixedWidthVector dst, int[] sources, int[] rows, int count) {
    dst.allocateNew(Math.max(count, 1));
    int width = dst.getTypeWidth();
    int n = src.length;
    ArrowBuf[] data = new ArrowBuf[n];
    ArrowBuf[] valid = new ArrowBuf[n];
    boolean[] hasNulls = new boolean[n];
    for (int b = 0; b < n; b++) {
      data[b] = src[b].getDataBuffer();
      valid[b] = src[b].getValidityBuffer();
      hasNulls[b] = src[b].getNullCount() > 0;
    }
    ArrowBuf dd = dst.getDataBuffer();
    ArrowBuf dv = dst.getValidityBuffer();
    for (int i = 0; i < count; i++) {
      int s = sources[i];
      int r = rows[i];
      switch (width) {
        case 8 -> dd.setLong((long) i * 8, data[s].getLong((long) r * 8));
        case 4 -> dd.setInt((long) i * 4, data[s].getInt((long) r * 4));
        case 16 -> {
          dd.setLong((long) i * 16, data[s].getLong((long) r * 16));
          dd.setLong((long) i * 16 + 8, data[s].getLong((long) r * 16 + 8));
        }
        default -> dd.setBytes((long) i * width, data[s], (long) r * width, width);
      }
      if (!hasNulls[s] || BitVectorHelper.get(valid[s], r) != 0) {
        BitVectorHelper.setBit(dv, i);
      }
    }
    dst.setValueCount(count);
  }

  private static void bits(FieldVector[] src, BitVector dst, int[] sources, int[] rows, int count) {
    dst.allocateNew(Math.max(count, 1));
    ArrowBuf dd = dst.getDataBuffer();
    ArrowBuf dv = dst.getValidityBuffer();
    for (int i = 0; i < count; i++) {
      FieldVector s = src[sources[i]];
      int r = rows[i];
      if (BitVectorHelper.get(s.getValidityBuffer(), r) != 0) {
        BitVectorHelper.setBit(dv, i);
        if (BitVectorHelper.get(s.getDataBuffer(), r) != 0) {
          BitVectorHelper.setBit(dd, i);
        }
      }
    }
    dst.setValueCount(count);
  }

  private static void variable(
      FieldVector[] src, BaseVariableWidthVector dst, int[] sources, int[] rows, int count) {
    int n = src.length;
    ArrowBuf[] data = new ArrowBuf[n];
    ArrowBuf[] offs = new ArrowBuf[n];
    ArrowBuf[] valid = new ArrowBuf[n];
    boolean[] hasNulls = new boolean[n];
    for (int b = 0; b < n; b++) {
      data[b] = src[b].getDataBuffer();
      offs[b] = src[b].getOffsetBuffer();
      valid[b] = src[b].getValidityBuffer();
      hasNulls[b] = src[b].getNullCount() > 0;
    }
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      ArrowBuf o = offs[sources[i]];
      bytes += o.getInt((long) (rows[i] + 1) * 4) - o.getInt((long) rows[i] * 4);
    }
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalStateException(
          "merged batch too large for a 32-bit offset vector: " + bytes);
    }
    dst.allocateNew(Math.max(bytes, 1), Math.max(count, 1));
    ArrowBuf dd = dst.getDataBuffer();
    ArrowBuf doff = dst.getOffsetBuffer();
    ArrowBuf dv = dst.getValidityBuffer();
    int pos = 0;
    doff.setInt(0, 0);
    for (int i = 0; i < count; i++) {
      int s = sources[i];
      int r = rows[i];
      int start = offs[s].getInt((long) r * 4);
      int len = offs[s].getInt((long) (r + 1) * 4) - start;
      if (len > 0) {
        dd.setBytes(pos, data[s], start, len);
      }
      pos += len;
      if (!hasNulls[s] || BitVectorHelper.get(valid[s], r) != 0) {
        BitVectorHelper.setBit(dv, i);
      }
      doff.setInt((long) (i + 1) * 4, pos);
    }
    dst.setLastSet(count - 1);
    dst.setValueCount(count);
  }
}
