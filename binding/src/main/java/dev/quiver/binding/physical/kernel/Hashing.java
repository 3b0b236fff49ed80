package dev.quiver.binding.physical.kernel;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.NullVector;

/**
 * Row hashes over key columns, computed column by column over Arrow buffers. Used to route rows to
 * partitions and as the first probe into hash tables; equal keys always hash alike, nulls hash to a
 * fixed value.
 */
public final class Hashing {
  private static final int NULL_HASH = 0x5bd1e995;
  private static final long SEED = 0x9E3779B97F4A7C15L;

  private Hashing() {}

  /** Fills {@code out[0..rows)} with the combined hash of {@code keys} for each row. */
  public static void hashRows(List<FieldVector> keys, int rows, int[] out) {
    for (int i = 0; i < rows; i++) {
      out[i] = 17;
    }
    for (FieldVector key : keys) {
      combine(key, rows, out);
    }
  }

  /** Maps a hash to a partition in [0, n). */
  public static int partition(int hash, int n) {
    return Math.floorMod(mix(hash), n);
  }

  private static void combine(FieldVector v, int rows, int[] out) {
    if (v instanceof NullVector) {
      // An untyped NULL column: every row is NULL (and the vector has no validity buffer).
      for (int i = 0; i < rows; i++) {
        out[i] = out[i] * 31 + NULL_HASH;
      }
      return;
    }
    boolean hasNulls = v.getNullCount() > 0;
    ArrowBuf validity = v.getValidityBuffer();
    if (v instanceof BitVector bits) {
      ArrowBuf data = bits.getDataBuffer();
      for (int i = 0; i < rows; i++) {
        int h =
            hasNulls && BitVectorHelper.get(validity, i) == 0
                ? NULL_HASH
                : BitVectorHelper.get(data, i) + 1231;
        out[i] = out[i] * 31 + h;
      }
    } else if (v instanceof Float8Vector || v instanceof Float4Vector) {
      // By value, not by bits: -0.0 equals 0.0 and every NaN is one key, as in GROUP BY and joins.
      ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
      boolean wide = v instanceof Float8Vector;
      for (int i = 0; i < rows; i++) {
        int h;
        if (hasNulls && BitVectorHelper.get(validity, i) == 0) {
          h = NULL_HASH;
        } else {
          double d = wide ? data.getDouble((long) i * 8) : data.getFloat((long) i * 4);
          h = hashLong(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
        }
        out[i] = out[i] * 31 + h;
      }
    } else if (v instanceof BaseFixedWidthVector fixed) {
      combineFixed(fixed, rows, hasNulls, out);
    } else if (v instanceof BaseVariableWidthVector var) {
      ArrowBuf data = var.getDataBuffer();
      ArrowBuf offsets = var.getOffsetBuffer();
      for (int i = 0; i < rows; i++) {
        int h;
        if (hasNulls && BitVectorHelper.get(validity, i) == 0) {
          h = NULL_HASH;
        } else {
          int start = offsets.getInt((long) i * 4);
          int end = offsets.getInt((long) (i + 1) * 4);
          h = hashBytes(data, start, end - start);
        }
        out[i] = out[i] * 31 + h;
      }
    } else {
      for (int i = 0; i < rows; i++) {
        out[i] = out[i] * 31 + (v.isNull(i) ? NULL_HASH : v.hashCode(i));
      }
    }
  }

  /**
   * Fixed-width values: without nulls, one loop per common width reading memory unchecked after one
   * range check; with nulls, a loop that tests each row's validity.
   */
  private static void combineFixed(BaseFixedWidthVector v, int rows, boolean hasNulls, int[] out) {
    int width = v.getTypeWidth();
    if (rows == 0) {
      return;
    }
    long data = Raw.address(v.getDataBuffer(), (long) rows * width);
    if (hasNulls) {
      long validity = Raw.address(v.getValidityBuffer(), (rows + 7) >>> 3);
      for (int i = 0; i < rows; i++) {
        int h = Raw.bit(validity, i) ? fixedHash(v, data, i, width) : NULL_HASH;
        out[i] = out[i] * 31 + h;
      }
      return;
    }
    switch (width) {
      case 8 -> {
        for (int i = 0; i < rows; i++) {
          out[i] = out[i] * 31 + hashLong(Raw.getLong(data + i * 8L));
        }
      }
      case 4 -> {
        for (int i = 0; i < rows; i++) {
          out[i] = out[i] * 31 + hashLong(Raw.getInt(data + i * 4L));
        }
      }
      default -> {
        for (int i = 0; i < rows; i++) {
          out[i] = out[i] * 31 + fixedHash(v, data, i, width);
        }
      }
    }
  }

  /** Hash of fixed-width row {@code i} of {@code v}, whose data starts at {@code data}. */
  private static int fixedHash(BaseFixedWidthVector v, long data, int i, int width) {
    return switch (width) {
      case 8 -> hashLong(Raw.getLong(data + i * 8L));
      case 4 -> hashLong(Raw.getInt(data + i * 4L));
      case 16 -> hashLong(Raw.getLong(data + i * 16L) * 31 + Raw.getLong(data + i * 16L + 8));
      default -> hashBytes(v.getDataBuffer(), (long) i * width, width);
    };
  }

  /** Hash of one 64-bit value (also used for 32-bit values widened, so int and long keys agree). */
  public static int hashLong(long x) {
    long h = x * SEED;
    return (int) (h ^ (h >>> 32));
  }

  /** Hash of a byte range. */
  public static int hashBytes(ArrowBuf buf, long start, int length) {
    long h = length;
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      h = (h ^ buf.getLong(start + i)) * SEED;
      h ^= h >>> 29;
    }
    for (; i < length; i++) {
      h = (h ^ buf.getByte(start + i)) * SEED;
    }
    h ^= h >>> 32;
    return (int) h;
  }

  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    return h;
  }
}
