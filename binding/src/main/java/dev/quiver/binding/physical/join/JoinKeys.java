package dev.quiver.binding.physical.join;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Raw;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Equi-join key columns of one batch copied into primitive arrays, with a hash per row. Values of
 * one family compare equal across widths (an INT key joins a BIGINT key; 0.0 equals -0.0), and
 * build and probe sides hash through the same code so equal keys always land in one bucket.
 */
final class JoinKeys {
  private static final int NULL_HASH = 0x5bd1e995;

  private final Col[] cols;
  private final int rows;
  private final boolean[] rowHasNull;
  private final int[] hashes;
  private final long[][] words;

  private JoinKeys(Col[] cols, int rows) {
    this.cols = cols;
    this.rows = rows;
    boolean[] anyNull = null;
    for (Col c : cols) {
      if (c.nulls != null) {
        if (anyNull == null) {
          anyNull = new boolean[rows];
        }
        for (int i = 0; i < rows; i++) {
          anyNull[i] |= c.nulls[i];
        }
      }
    }
    this.rowHasNull = anyNull;
    this.hashes = new int[rows];
    Arrays.fill(hashes, 17);
    for (Col c : cols) {
      c.hashInto(hashes);
    }
    this.words = anyNull == null ? words(cols) : null;
  }

  /** The columns' values as 64-bit words (a decimal gives two), or null if a key is not fixed. */
  private static long[][] words(Col[] cols) {
    int n = 0;
    for (Col c : cols) {
      if (c instanceof LongCol) {
        n++;
      } else if (c instanceof DecimalCol) {
        n += 2;
      } else {
        return null;
      }
    }
    long[][] out = new long[n][];
    int w = 0;
    for (Col c : cols) {
      if (c instanceof LongCol lc) {
        out[w++] = lc.values;
      } else {
        DecimalCol dc = (DecimalCol) c;
        out[w++] = dc.lo;
        out[w++] = dc.hi;
      }
    }
    return out;
  }

  /** Evaluates {@code exprs} over {@code batch} and extracts the keys. */
  static JoinKeys extract(VectorSchemaRoot batch, List<PhysicalExpr> exprs, BufferAllocator alloc) {
    int rows = batch.getRowCount();
    Col[] cols = new Col[exprs.size()];
    for (int k = 0; k < cols.length; k++) {
      try (FieldVector v = exprs.get(k).evaluate(batch, alloc)) {
        cols[k] = Col.of(v, rows);
      }
    }
    return new JoinKeys(cols, rows);
  }

  /** Throws a typed error naming the first key pair whose types cannot be compared. */
  static void checkCompatible(List<PhysicalExpr> left, List<PhysicalExpr> right, String what) {
    if (left.size() != right.size()) {
      throw new IllegalArgumentException(
          what + " needs as many left keys as right keys: " + left + " vs " + right);
    }
    for (int i = 0; i < left.size(); i++) {
      String a = family(left.get(i).dataType());
      String b = family(right.get(i).dataType());
      if (!a.equals(b) && !a.equals("null") && !b.equals("null")) {
        throw new QueryTypeException(
            what
                + " cannot compare key "
                + left.get(i)
                + " of type "
                + left.get(i).dataType()
                + " with "
                + right.get(i)
                + " of type "
                + right.get(i).dataType()
                + "; cast one side so both keys have the same type");
      }
    }
  }

  private static String family(ArrowType t) {
    return switch (t.getTypeID()) {
      case Int -> "int";
      case FloatingPoint -> "float";
      case Decimal -> "decimal(" + ((ArrowType.Decimal) t).getScale() + ")";
      case Utf8, Binary -> "bytes";
      case Bool -> "bool";
      case Date -> "date(" + ((ArrowType.Date) t).getUnit() + ")";
      case Timestamp -> "timestamp(" + ((ArrowType.Timestamp) t).getUnit() + ")";
      case Time -> "time(" + ((ArrowType.Time) t).getUnit() + ")";
      case Null -> "null";
      default ->
          throw new QueryTypeException(
              "Join keys of type "
                  + t
                  + " are not supported; join on numbers, decimals, strings, "
                  + "booleans, dates or timestamps");
    };
  }

  int rows() {
    return rows;
  }

  int hash(int row) {
    return hashes[row];
  }

  /** True if any key of the row is null. */
  boolean hasNull(int row) {
    return rowHasNull != null && rowHasNull[row];
  }

  /** Heap bytes of the extracted keys and their hashes. */
  long heapBytes() {
    long bytes = 4L * rows + (rowHasNull != null ? rows : 0);
    for (Col c : cols) {
      bytes += (c.nulls != null ? rows : 0) + c.valueBytes();
    }
    return bytes;
  }

  /** Whether any row has a null key. */
  boolean anyNull() {
    return rowHasNull != null;
  }

  /**
   * The keys as 64-bit words, one array per word (an integer-like key gives one, a decimal two),
   * when no key is null and none is a string; else null. Rows are equal iff all their words are,
   * which lets the hash table compare keys without per-column dispatch.
   */
  long[][] words() {
    return words;
  }

  /**
   * Key {@code k}'s values as integers when it is an integer-like column (integers, dates, times,
   * timestamps: not floating point), else null; rows where {@link #isNull} holds carry no value.
   */
  long[] integerValues(int k) {
    return cols[k] instanceof LongCol lc && lc.integer ? lc.values : null;
  }

  /** Whether key {@code k} of row {@code row} is null. */
  boolean isNull(int k, int row) {
    boolean[] n = cols[k].nulls;
    return n != null && n[row];
  }

  /** Whether row {@code a} here equals row {@code b} of {@code other}; null equals null. */
  boolean equal(int a, JoinKeys other, int b) {
    for (int k = 0; k < cols.length; k++) {
      Col x = cols[k];
      Col y = other.cols[k];
      boolean na = x.nulls != null && x.nulls[a];
      boolean nb = y.nulls != null && y.nulls[b];
      if (na || nb) {
        if (na != nb) {
          return false;
        }
        continue;
      }
      if (!x.eq(a, y, b)) {
        return false;
      }
    }
    return true;
  }

  static int mix(long x) {
    long h = x * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 29) ^ (h >>> 47));
  }

  private abstract static class Col {
    final boolean[] nulls;

    Col(boolean[] nulls) {
      this.nulls = nulls;
    }

    abstract boolean eq(int a, Col other, int b);

    abstract int valueHash(int row);

    abstract long valueBytes();

    void hashInto(int[] out) {
      for (int i = 0; i < out.length; i++) {
        int h = nulls != null && nulls[i] ? NULL_HASH : valueHash(i);
        out[i] = out[i] * 31 + h;
      }
    }

    static Col of(FieldVector v, int rows) {
      ArrowType type = v.getField().getType();
      if (type.getTypeID() == ArrowType.ArrowTypeID.Null) {
        boolean[] all = new boolean[rows];
        Arrays.fill(all, true);
        return new LongCol(all, new long[rows]);
      }
      boolean[] nulls = null;
      if (v.getNullCount() > 0) {
        nulls = new boolean[rows];
        long validity = Raw.address(v.getValidityBuffer(), (rows + 7) >>> 3);
        for (int i = 0; i < rows; i++) {
          nulls[i] = !Raw.bit(validity, i);
        }
      }
      switch (type.getTypeID()) {
        case Bool:
          {
            ArrowBuf data = ((BitVector) v).getDataBuffer();
            long[] vals = new long[rows];
            for (int i = 0; i < rows; i++) {
              vals[i] = BitVectorHelper.get(data, i);
            }
            return new LongCol(nulls, vals);
          }
        case FloatingPoint:
          {
            BaseFixedWidthVector f = (BaseFixedWidthVector) v;
            ArrowBuf data = f.getDataBuffer();
            long[] vals = new long[rows];
            for (int i = 0; i < rows; i++) {
              double d =
                  f.getTypeWidth() == 8
                      ? data.getDouble((long) i * 8)
                      : data.getFloat((long) i * 4);
              // SQL equality: 0.0 = -0.0, and every NaN is one value.
              vals[i] = d == 0.0 ? 0L : Double.doubleToLongBits(d);
            }
            return new LongCol(nulls, vals);
          }
        case Decimal:
          {
            long data = Raw.address(((BaseFixedWidthVector) v).getDataBuffer(), rows * 16L);
            long[] lo = new long[rows];
            long[] hi = new long[rows];
            for (int i = 0; i < rows; i++) {
              lo[i] = Raw.getLong(data + i * 16L);
              hi[i] = Raw.getLong(data + i * 16L + 8);
            }
            return new DecimalCol(nulls, lo, hi);
          }
        case Utf8:
        case Binary:
          {
            BaseVariableWidthVector var = (BaseVariableWidthVector) v;
            ArrowBuf offs = var.getOffsetBuffer();
            int[] offsets = new int[rows + 1];
            int base = rows == 0 ? 0 : offs.getInt(0);
            for (int i = 0; i <= rows && rows > 0; i++) {
              offsets[i] = offs.getInt((long) i * 4) - base;
            }
            byte[] bytes = new byte[offsets[rows]];
            if (bytes.length > 0) {
              var.getDataBuffer().getBytes(base, bytes);
            }
            return new BytesCol(nulls, bytes, offsets);
          }
        case Int:
        case Date:
        case Timestamp:
        case Time:
          {
            BaseFixedWidthVector fixed = (BaseFixedWidthVector) v;
            ArrowBuf data = fixed.getDataBuffer();
            long[] vals = new long[rows];
            switch (fixed.getTypeWidth()) {
              case 8 -> {
                long address = Raw.address(data, rows * 8L);
                for (int i = 0; i < rows; i++) {
                  vals[i] = Raw.getLong(address + i * 8L);
                }
              }
              case 4 -> {
                long address = Raw.address(data, rows * 4L);
                for (int i = 0; i < rows; i++) {
                  vals[i] = Raw.getInt(address + i * 4L);
                }
              }
              case 2 -> {
                for (int i = 0; i < rows; i++) {
                  vals[i] = data.getShort((long) i * 2);
                }
              }
              default -> {
                for (int i = 0; i < rows; i++) {
                  vals[i] = data.getByte(i);
                }
              }
            }
            return new LongCol(nulls, vals, true);
          }
        default:
          throw new QueryTypeException("Join keys of type " + type + " are not supported");
      }
    }
  }

  private static final class LongCol extends Col {
    final long[] values;

    /** Whether the values are the column's integers (not a float's or a boolean's encoding). */
    final boolean integer;

    LongCol(boolean[] nulls, long[] values) {
      this(nulls, values, false);
    }

    LongCol(boolean[] nulls, long[] values, boolean integer) {
      super(nulls);
      this.values = values;
      this.integer = integer;
    }

    @Override
    boolean eq(int a, Col other, int b) {
      return values[a] == ((LongCol) other).values[b];
    }

    @Override
    int valueHash(int row) {
      return mix(values[row]);
    }

    @Override
    long valueBytes() {
      return 8L * values.length;
    }

    @Override
    void hashInto(int[] out) {
      if (nulls != null) {
        super.hashInto(out);
        return;
      }
      long[] v = values;
      for (int i = 0; i < out.length; i++) {
        out[i] = out[i] * 31 + mix(v[i]);
      }
    }
  }

  private static final class DecimalCol extends Col {
    final long[] lo;
    final long[] hi;

    DecimalCol(boolean[] nulls, long[] lo, long[] hi) {
      super(nulls);
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    boolean eq(int a, Col other, int b) {
      DecimalCol o = (DecimalCol) other;
      return lo[a] == o.lo[b] && hi[a] == o.hi[b];
    }

    @Override
    int valueHash(int row) {
      return mix(lo[row] * 31 + hi[row]);
    }

    @Override
    long valueBytes() {
      return 16L * lo.length;
    }
  }

  private static final class BytesCol extends Col {
    final byte[] bytes;
    final int[] offsets;

    BytesCol(boolean[] nulls, byte[] bytes, int[] offsets) {
      super(nulls);
      this.bytes = bytes;
      this.offsets = offsets;
    }

    @Override
    boolean eq(int a, Col other, int b) {
      BytesCol o = (BytesCol) other;
      return Arrays.equals(
          bytes, offsets[a], offsets[a + 1], o.bytes, o.offsets[b], o.offsets[b + 1]);
    }

    @Override
    long valueBytes() {
      return bytes.length + 4L * offsets.length;
    }

    @Override
    int valueHash(int row) {
      long h = 0x27d4eb2f165667c5L;
      for (int i = offsets[row]; i < offsets[row + 1]; i++) {
        h = (h ^ bytes[i]) * 0x100000001b3L;
      }
      return mix(h);
    }
  }
}
