package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.physical.expr.Vectors;
import dev.quiver.binding.physical.kernel.Raw;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Packs a row's whole group key into one long when every key column is narrow, so that {@link
 * GroupTable} can find the group of a row by comparing one long instead of hashing and comparing
 * each column. The encoding is injective: each column owns a fixed bit slot, decided once from the
 * key types, holding a null flag or code besides the value, and a value that does not fit its slot
 * makes the row {@link #UNPACKABLE} instead of being truncated.
 *
 * <ul>
 *   <li>An integer, date, time or boolean slot of width w holds the low w bits of a value that
 *       sign-extends back from them, plus a null bit above them.
 *   <li>A string slot of up to L bytes holds a 3-bit code (0 = NULL, 1 + length otherwise) and the
 *       bytes above it; a longer string does not fit.
 * </ul>
 *
 * All slots together use at most 63 bits, so no packed key is negative and {@link #UNPACKABLE} (-1)
 * is never a packed key.
 */
final class KeyPacker {
  /** Marks a row whose key does not fit, and a group whose key was never packed. */
  static final long UNPACKABLE = -1L;

  private static final int BUDGET = 63;
  private static final int MAX_STRING_BYTES = 6; // what a 3-bit code (NULL, lengths 0..6) covers
  private static final int STRING_CODE_BITS = 3;
  private static final int MIN_INT_BITS = 8;
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private final Slot[] slots;

  private KeyPacker(Slot[] slots) {
    this.slots = slots;
  }

  /**
   * A packer for keys of these types, or null when they cannot share one long (a floating point or
   * decimal column, or more columns than fit): fixed-width integers up to 32 bits, booleans and
   * dates take their natural width; wider integers and strings split the bits that remain.
   */
  static KeyPacker of(List<Field> keys) {
    if (keys.isEmpty()) {
      return null;
    }
    int fixedBits = 0;
    int flexible = 0;
    int[] natural = new int[keys.size()];
    for (int c = 0; c < keys.size(); c++) {
      ArrowType t = keys.get(c).getType();
      int w = naturalWidth(t);
      if (w == -2) {
        return null;
      }
      natural[c] = w;
      if (w >= 0) {
        fixedBits += w == 0 ? 0 : w + 1;
      } else {
        flexible++;
      }
    }
    if (fixedBits > BUDGET) {
      return null;
    }
    int share = flexible == 0 ? 0 : (BUDGET - fixedBits) / flexible;
    Slot[] slots = new Slot[keys.size()];
    int shift = 0;
    for (int c = 0; c < keys.size(); c++) {
      ArrowType t = keys.get(c).getType();
      Slot s;
      if (natural[c] == 0) {
        s = new NullSlot();
      } else if (natural[c] > 0) {
        s = new IntSlot(shift, natural[c]);
      } else if (Vectors.storage(t) == Vectors.Storage.BYTES) {
        int bytes = Math.min(MAX_STRING_BYTES, (share - STRING_CODE_BITS) / 8);
        if (bytes < 1) {
          return null;
        }
        s = new StringSlot(shift, bytes);
      } else {
        if (share - 1 < MIN_INT_BITS) {
          return null;
        }
        s = new IntSlot(shift, share - 1);
      }
      shift += s.bits();
      slots[c] = s;
    }
    return new KeyPacker(slots);
  }

  /**
   * Bits of a fixed slot's value (0 for the untyped NULL), -1 for a column sharing the remaining
   * bits, -2 for a type that is not packed.
   */
  private static int naturalWidth(ArrowType t) {
    return switch (Vectors.storage(t)) {
      case BOOL -> 2;
      case NULL -> 0;
      case BYTES -> -1;
      case DOUBLE, DECIMAL -> -2;
      case LONG -> {
        if (t instanceof ArrowType.Int i && i.getBitWidth() <= 32) {
          yield i.getBitWidth(); // unsigned values are read sign-extended from their width
        }
        if (t instanceof ArrowType.Date d && d.getUnit() == DateUnit.DAY) {
          yield 32;
        }
        if (t instanceof ArrowType.Time tm && tm.getBitWidth() <= 32) {
          yield tm.getBitWidth();
        }
        yield -1;
      }
    };
  }

  /** Total bits used by the slots (at most 63). */
  int bits() {
    int b = 0;
    for (Slot s : slots) {
      b += s.bits();
    }
    return b;
  }

  /**
   * Sets {@code out[i]} to the packed key of row {@code i}, or {@link #UNPACKABLE} when some column
   * of it does not fit its slot.
   */
  void pack(List<FieldVector> keys, int rows, Scratch scratch, long[] out) {
    Arrays.fill(out, 0, rows, 0L);
    for (int c = 0; c < slots.length; c++) {
      slots[c].pack(keys.get(c), rows, scratch, out);
    }
  }

  /** Reusable per-batch buffers. */
  static final class Scratch {
    long[] values = new long[0];
    boolean[] nulls = new boolean[0];

    void ensure(int rows) {
      if (values.length < rows) {
        values = new long[Math.max(rows, 1024)];
        nulls = new boolean[values.length];
      }
    }
  }

  private interface Slot {
    int bits();

    /** ORs this column's code into {@code out}, or {@link #UNPACKABLE} for rows that do not fit. */
    void pack(FieldVector v, int rows, Scratch scratch, long[] out);
  }

  /** Integer-like values of {@code width} bits (sign-extended) and a null bit above them. */
  private record IntSlot(int shift, int width) implements Slot {
    @Override
    public int bits() {
      return width + 1;
    }

    @Override
    public void pack(FieldVector v, int rows, Scratch scratch, long[] out) {
      scratch.ensure(rows);
      long[] x = Vectors.longs(v, rows, scratch.values);
      boolean hasNulls = Vectors.nulls(v, rows, scratch.nulls);
      int sh = 64 - width;
      long mask = (1L << width) - 1;
      if (!hasNulls) {
        for (int i = 0; i < rows; i++) {
          long a = x[i];
          out[i] |= ((a << sh) >> sh) == a ? (a & mask) << shift : UNPACKABLE;
        }
        return;
      }
      boolean[] n = scratch.nulls;
      long nullCode = (1L << width) << shift;
      for (int i = 0; i < rows; i++) {
        long a = x[i];
        out[i] |= n[i] ? nullCode : ((a << sh) >> sh) == a ? (a & mask) << shift : UNPACKABLE;
      }
    }
  }

  /** Strings of at most {@code maxBytes} bytes: a NULL/length code, then the bytes. */
  private record StringSlot(int shift, int maxBytes) implements Slot {
    @Override
    public int bits() {
      return STRING_CODE_BITS + 8 * maxBytes;
    }

    @Override
    public void pack(FieldVector v, int rows, Scratch scratch, long[] out) {
      if (!(v instanceof BaseVariableWidthVector var)) {
        Arrays.fill(out, 0, rows, UNPACKABLE);
        return;
      }
      if (rows == 0) {
        return;
      }
      scratch.ensure(rows);
      boolean hasNulls = Vectors.nulls(v, rows, scratch.nulls);
      boolean[] n = scratch.nulls;
      long off = Raw.address(var.getOffsetBuffer(), (rows + 1L) * 4);
      int first = Raw.getInt(off);
      int last = Raw.getInt(off + rows * 4L);
      ArrowBuf dataBuf = var.getDataBuffer();
      long data = Raw.address(dataBuf, last);
      // Rows starting at or before this read their bytes as one (masked) long.
      long wholeLongs = LITTLE_ENDIAN ? Math.min(dataBuf.capacity(), Integer.MAX_VALUE) - 8 : -1;
      int start = first;
      for (int i = 0; i < rows; i++) {
        int end = Raw.getInt(off + (i + 1) * 4L);
        int len = end - start;
        int s = start;
        start = end;
        if (hasNulls && n[i]) {
          continue; // code 0
        }
        if (len > maxBytes || len < 0 || s < first || end > last) {
          out[i] = UNPACKABLE;
          continue;
        }
        long bytes;
        if (s <= wholeLongs) {
          bytes = len == 0 ? 0 : Raw.getLong(data + s) & (-1L >>> (64 - 8 * len));
        } else {
          bytes = 0;
          for (int k = 0; k < len; k++) {
            bytes |= (Raw.getByte(data + s + k) & 0xFFL) << (8 * k);
          }
        }
        out[i] |= ((bytes << STRING_CODE_BITS) | (len + 1)) << shift;
      }
    }
  }

  /** The untyped NULL: every row has the same key, which takes no bits. */
  private record NullSlot() implements Slot {
    @Override
    public int bits() {
      return 0;
    }

    @Override
    public void pack(FieldVector v, int rows, Scratch scratch, long[] out) {}
  }
}
