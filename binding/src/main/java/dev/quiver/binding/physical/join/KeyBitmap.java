package dev.quiver.binding.physical.join;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Raw;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The values one integer-like build key takes, as a bitmap over their range [min, max]. A probe row
 * whose key falls outside, or on a clear bit, has no partner, and the join drops it before
 * extracting, hashing and looking up its keys. That pays where most probe rows find none: partsupp
 * or lineitem probing a filtered part, a few big orders, one nation's suppliers. With several keys
 * the bitmap covers one of them, so it only ever says "no partner" for sure; the hash table still
 * decides the rest.
 */
final class KeyBitmap {
  /**
   * Bits a bitmap may always take (1 MiB), however few build rows set them: TPC-H's orders of one
   * quarter (57K of 6M keys at SF 1) still rule out nine probe rows in ten.
   */
  private static final long MIN_BITS = 1L << 23;

  /** Bits per build row beyond {@link #MIN_BITS}: 16 bytes a row, next to the table's 25+. */
  private static final long BITS_PER_ROW = 128;

  /** Hard cap on a bitmap (16 MiB). */
  private static final long MAX_BITS = 1L << 27;

  /** Which join key the bitmap covers. */
  private final int key;

  private final long min;
  private final long span;
  private final long[] bits;

  private KeyBitmap(int key, long min, long span, long[] bits) {
    this.key = key;
    this.min = min;
    this.span = span;
    this.bits = bits;
  }

  /**
   * A bitmap over the first key that both sides hold as integers and whose non-null build values
   * span few enough values, or null when none does.
   */
  static KeyBitmap of(JoinKeys build, List<PhysicalExpr> probeKeys) {
    for (int k = 0; k < probeKeys.size(); k++) {
      long[] values = build.integerValues(k);
      if (values == null || !integerLike(probeKeys.get(k))) {
        continue;
      }
      long lo = Long.MAX_VALUE;
      long hi = Long.MIN_VALUE;
      int present = 0;
      for (int r = 0; r < values.length; r++) {
        if (!build.isNull(k, r)) {
          lo = Math.min(lo, values[r]);
          hi = Math.max(hi, values[r]);
          present++;
        }
      }
      if (present == 0) {
        continue;
      }
      long span = hi - lo + 1;
      long allowed = Math.min(MAX_BITS, Math.max(MIN_BITS, BITS_PER_ROW * present));
      if (span <= 0 || span > allowed) { // span <= 0: the range overflowed a long
        continue;
      }
      long[] bits = new long[(int) ((span + 63) >>> 6)];
      for (int r = 0; r < values.length; r++) {
        if (!build.isNull(k, r)) {
          long off = values[r] - lo;
          bits[(int) (off >>> 6)] |= 1L << off;
        }
      }
      return new KeyBitmap(k, lo, span, bits);
    }
    return null;
  }

  private static boolean integerLike(PhysicalExpr e) {
    return switch (e.dataType().getTypeID()) {
      case Int, Date, Time, Timestamp -> true;
      default -> false;
    };
  }

  /** Heap bytes of the bitmap. */
  long heapBytes() {
    return 8L * bits.length;
  }

  /**
   * Sets {@code keep[i]} for the rows of {@code batch} that may have a partner and returns how many
   * do. A null key may only have one when {@code nullMayMatch}.
   */
  int mayMatch(
      VectorSchemaRoot batch,
      List<PhysicalExpr> probeKeys,
      boolean nullMayMatch,
      BufferAllocator allocator,
      boolean[] keep) {
    int rows = batch.getRowCount();
    try (FieldVector v = probeKeys.get(key).evaluate(batch, allocator)) {
      BaseFixedWidthVector fixed = (BaseFixedWidthVector) v;
      ArrowBuf data = fixed.getDataBuffer();
      int width = fixed.getTypeWidth();
      long address = rows == 0 ? 0 : Raw.address(data, (long) rows * width);
      long[] b = bits;
      long lo = min;
      long n = span;
      int kept = 0;
      for (int i = 0; i < rows; i++) {
        long value =
            switch (width) {
              case 8 -> Raw.getLong(address + 8L * i);
              case 4 -> Raw.getInt(address + 4L * i);
              case 2 -> data.getShort(2L * i);
              default -> data.getByte(i);
            };
        long off = value - lo;
        boolean may = off >= 0 && off < n && (b[(int) (off >>> 6)] & (1L << off)) != 0;
        keep[i] = may;
        kept += may ? 1 : 0;
      }
      if (v.getNullCount() > 0) {
        long validity = Raw.address(v.getValidityBuffer(), (rows + 7) >>> 3);
        for (int i = 0; i < rows; i++) {
          if (!Raw.bit(validity, i)) {
            kept += (nullMayMatch ? 1 : 0) - (keep[i] ? 1 : 0);
            keep[i] = nullMayMatch;
          }
        }
      }
      return kept;
    }
  }
}
