package dev.quiver.binding.physical.sort;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.SortField;
import java.math.BigInteger;
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
 * The sort-key columns of one batch, copied into primitive arrays per key type so rows can be
 * compared within a batch (sorting) and across batches (merging) without boxing.
 */
public final class SortKeys {
  private final KeyColumn[] columns;
  private final int rows;

  /** Ranges at most this long are sorted by comparing rows rather than by normalized keys. */
  private static final int COMPARE_BELOW = 32;

  private SortKeys(KeyColumn[] columns, int rows) {
    this.columns = columns;
    this.rows = rows;
  }

  /** Evaluates {@code order}'s expressions over {@code batch} and extracts the keys. */
  public static SortKeys extract(
      VectorSchemaRoot batch, List<SortField> order, BufferAllocator allocator) {
    int rows = batch.getRowCount();
    KeyColumn[] cols = new KeyColumn[order.size()];
    for (int k = 0; k < cols.length; k++) {
      SortField f = order.get(k);
      try (FieldVector v = f.expr().evaluate(batch, allocator)) {
        cols[k] = KeyColumn.of(v, rows, f);
      }
    }
    return new SortKeys(cols, rows);
  }

  /** Checks that every key's type can be ordered, naming the first that cannot. */
  public static void checkSortable(List<SortField> order) {
    for (SortField f : order) {
      ArrowType t = f.expr().dataType();
      switch (t.getTypeID()) {
        case Int, FloatingPoint, Decimal, Utf8, Binary, Bool, Date, Timestamp, Time, Null -> {}
        default ->
            throw new QueryTypeException(
                "Cannot sort by "
                    + f.expr()
                    + " of type "
                    + dev.quiver.binding.physical.expr.Vectors.sqlName(t)
                    + ": ORDER BY supports numbers, decimals, strings, booleans, dates, times and "
                    + "timestamps (sort by a STRUCT's fields or a LIST's elements instead)");
      }
    }
  }

  /** Number of rows. */
  public int rows() {
    return rows;
  }

  /** Compares row {@code a} of this batch with row {@code b} of {@code other}. */
  public int compare(int a, SortKeys other, int b) {
    for (int k = 0; k < columns.length; k++) {
      int c = columns[k].compare(a, other.columns[k], b);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** A comparator over this batch's rows, specialized when there is a single key. */
  public IntComparator comparator() {
    if (columns.length == 1) {
      return columns[0].selfComparator();
    }
    if (columns.length == 0) {
      return (a, b) -> 0;
    }
    return (a, b) -> compare(a, this, b);
  }

  /** Returns the row permutation that sorts this batch (stable: ties keep their row order). */
  public int[] sortedPermutation() {
    int[] perm = new int[rows];
    for (int i = 0; i < rows; i++) {
      perm[i] = i;
    }
    sortRange(perm, 0, rows, 0);
    return perm;
  }

  /**
   * Sorts {@code perm[from..to)}, rows equal in the keys before {@code key}, by the keys from
   * {@code key} on. A key whose values map to longs in order is sorted as primitives (nulls set
   * apart), then each run of equal values by the next key; other keys, and short ranges, are sorted
   * by comparing rows key by key.
   */
  private void sortRange(int[] perm, int from, int to, int key) {
    if (to - from < 2 || key == columns.length) {
      return;
    }
    KeyColumn column = columns[key];
    if (to - from <= COMPARE_BELOW || !column.normalizable()) {
      IntSorter.sort(perm, from, to, comparatorFrom(key));
      return;
    }
    int n = to - from;
    long[] values = new long[n];
    int[] rowsOf = new int[n];
    int valued = 0;
    int nullCount = 0;
    for (int i = from; i < to; i++) {
      int row = perm[i];
      if (column.nulls != null && column.nulls[row]) {
        // Nulls keep their order, parked at the end of perm's range for now.
        perm[from + nullCount++] = row;
      } else {
        long k = column.normalized(row);
        values[valued] = column.ascending ? k : ~k;
        rowsOf[valued++] = row;
      }
    }
    IntSorter.sortByKey(values, rowsOf, valued);
    int valuesAt = column.nullOrder < 0 ? from + nullCount : from;
    int nullsAt = column.nullOrder < 0 ? from : from + valued;
    System.arraycopy(perm, from, perm, nullsAt, nullCount);
    System.arraycopy(rowsOf, 0, perm, valuesAt, valued);
    sortRange(perm, nullsAt, nullsAt + nullCount, key + 1);
    if (key + 1 == columns.length) {
      return;
    }
    for (int i = 0; i < valued; ) {
      int j = i + 1;
      while (j < valued && values[j] == values[i]) {
        j++;
      }
      sortRange(perm, valuesAt + i, valuesAt + j, key + 1);
      i = j;
    }
  }

  /** Compares rows by the keys from {@code key} on. */
  private IntComparator comparatorFrom(int key) {
    if (key == 0) {
      return comparator();
    }
    if (key == columns.length - 1) {
      return columns[key].selfComparator();
    }
    return (a, b) -> {
      for (int k = key; k < columns.length; k++) {
        int c = columns[k].compare(a, columns[k], b);
        if (c != 0) {
          return c;
        }
      }
      return 0;
    };
  }

  /**
   * The first {@code k} entries of {@link #sortedPermutation()}, ties in row order as there, found
   * with a bounded heap of the best {@code k} rows: once it is full a row costs about one
   * comparison with the worst kept, where sorting every row costs about log2(rows) (a top-k's
   * buffer is mostly rows that never make it).
   */
  public int[] topPermutation(int k) {
    if (k >= rows) {
      return sortedPermutation();
    }
    if (k <= 0) {
      return new int[0];
    }
    IntComparator keys = comparator();
    IntComparator total =
        (a, b) -> {
          int c = keys.compare(a, b);
          return c != 0 ? c : Integer.compare(a, b);
        };
    // A max-heap under the total order: heap[0] is the worst row kept.
    int[] heap = new int[k];
    for (int r = 0; r < k; r++) {
      heap[r] = r;
      siftUp(heap, r, total);
    }
    for (int r = k; r < rows; r++) {
      if (total.compare(r, heap[0]) < 0) {
        heap[0] = r;
        siftDown(heap, k, total);
      }
    }
    IntSorter.sort(heap, k, total);
    return heap;
  }

  private static void siftUp(int[] heap, int i, IntComparator cmp) {
    int v = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (cmp.compare(heap[parent], v) >= 0) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = v;
  }

  private static void siftDown(int[] heap, int size, IntComparator cmp) {
    int v = heap[0];
    int i = 0;
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && cmp.compare(heap[child + 1], heap[child]) > 0) {
        child++;
      }
      if (cmp.compare(heap[child], v) <= 0) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = v;
  }

  /** One key column; nulls are placed before or after all values regardless of direction. */
  private abstract static class KeyColumn {
    final boolean ascending;
    final int nullOrder;
    final boolean[] nulls;

    KeyColumn(SortField field, boolean[] nulls) {
      this.ascending = field.ascending();
      this.nullOrder = field.nullsFirst() ? -1 : 1;
      this.nulls = nulls;
    }

    static KeyColumn of(FieldVector v, int rows, SortField f) {
      ArrowType type = v.getField().getType();
      boolean[] nulls = nullMask(v, rows);
      switch (type.getTypeID()) {
        case Null:
          boolean[] all = new boolean[rows];
          Arrays.fill(all, true);
          return new LongColumn(f, all, new long[rows]);
        case Bool:
          {
            ArrowBuf data = ((BitVector) v).getDataBuffer();
            long[] vals = new long[rows];
            for (int i = 0; i < rows; i++) {
              vals[i] = BitVectorHelper.get(data, i);
            }
            return new LongColumn(f, nulls, vals);
          }
        case FloatingPoint:
          {
            ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
            int width = ((BaseFixedWidthVector) v).getTypeWidth();
            double[] vals = new double[rows];
            for (int i = 0; i < rows; i++) {
              vals[i] = width == 8 ? data.getDouble((long) i * 8) : data.getFloat((long) i * 4);
            }
            return new DoubleColumn(f, nulls, vals);
          }
        case Decimal:
          {
            ArrowBuf data = ((BaseFixedWidthVector) v).getDataBuffer();
            long[] lo = new long[rows];
            BigInteger[] big = null;
            for (int i = 0; i < rows; i++) {
              long l = data.getLong((long) i * 16);
              long h = data.getLong((long) i * 16 + 8);
              lo[i] = l;
              if (h != (l >> 63)) {
                if (big == null) {
                  big = new BigInteger[rows];
                }
                big[i] = BigInteger.valueOf(h).shiftLeft(64).or(BigInteger.valueOf(l).and(LOW64));
              }
            }
            return new DecimalColumn(f, nulls, lo, big);
          }
        case Utf8:
        case Binary:
          {
            BaseVariableWidthVector var = (BaseVariableWidthVector) v;
            ArrowBuf offs = var.getOffsetBuffer();
            int[] offsets = new int[rows + 1];
            int base = rows == 0 ? 0 : offs.getInt(0);
            for (int i = 0; i <= rows; i++) {
              offsets[i] = rows == 0 ? 0 : offs.getInt((long) i * 4) - base;
            }
            byte[] bytes = new byte[offsets[rows]];
            if (bytes.length > 0) {
              var.getDataBuffer().getBytes(base, bytes);
            }
            return new BytesColumn(f, nulls, bytes, offsets);
          }
        case Int:
        case Date:
        case Timestamp:
        case Time:
          {
            BaseFixedWidthVector fixed = (BaseFixedWidthVector) v;
            ArrowBuf data = fixed.getDataBuffer();
            int width = fixed.getTypeWidth();
            boolean unsigned = type instanceof ArrowType.Int it && !it.getIsSigned();
            long[] vals = new long[rows];
            for (int i = 0; i < rows; i++) {
              vals[i] =
                  switch (width) {
                    case 8 -> data.getLong((long) i * 8);
                    case 4 ->
                        unsigned
                            ? data.getInt((long) i * 4) & 0xFFFFFFFFL
                            : data.getInt((long) i * 4);
                    case 2 ->
                        unsigned
                            ? data.getShort((long) i * 2) & 0xFFFF
                            : data.getShort((long) i * 2);
                    default -> unsigned ? data.getByte(i) & 0xFF : data.getByte(i);
                  };
            }
            return new LongColumn(f, nulls, vals);
          }
        default:
          throw new QueryTypeException(
              "Cannot sort by "
                  + f.expr()
                  + " of type "
                  + type
                  + ": ORDER BY supports numbers, decimals, strings, booleans, dates and timestamps");
      }
    }

    private static boolean[] nullMask(FieldVector v, int rows) {
      if (v.getNullCount() == 0
          || v.getField().getType().getTypeID() == ArrowType.ArrowTypeID.Null) {
        return null;
      }
      ArrowBuf validity = v.getValidityBuffer();
      boolean[] nulls = new boolean[rows];
      for (int i = 0; i < rows; i++) {
        nulls[i] = BitVectorHelper.get(validity, i) == 0;
      }
      return nulls;
    }

    final int compare(int a, KeyColumn other, int b) {
      boolean na = nulls != null && nulls[a];
      boolean nb = other.nulls != null && other.nulls[b];
      if (na || nb) {
        return na == nb ? 0 : (na ? nullOrder : -nullOrder);
      }
      int c = compareValues(a, other, b);
      return ascending ? c : -c;
    }

    abstract int compareValues(int a, KeyColumn other, int b);

    /** Whether values map to longs whose signed order is this column's value order. */
    boolean normalizable() {
      return false;
    }

    long normalized(int row) {
      throw new UnsupportedOperationException();
    }

    IntComparator selfComparator() {
      return (a, b) -> compare(a, this, b);
    }
  }

  private static final BigInteger LOW64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private static final class LongColumn extends KeyColumn {
    final long[] values;

    LongColumn(SortField f, boolean[] nulls, long[] values) {
      super(f, nulls);
      this.values = values;
    }

    @Override
    int compareValues(int a, KeyColumn other, int b) {
      return Long.compare(values[a], ((LongColumn) other).values[b]);
    }

    @Override
    boolean normalizable() {
      return true;
    }

    @Override
    long normalized(int row) {
      return values[row];
    }

    @Override
    IntComparator selfComparator() {
      long[] v = values;
      if (nulls == null) {
        return ascending ? (a, b) -> Long.compare(v[a], v[b]) : (a, b) -> Long.compare(v[b], v[a]);
      }
      return super.selfComparator();
    }
  }

  private static final class DoubleColumn extends KeyColumn {
    final double[] values;

    DoubleColumn(SortField f, boolean[] nulls, double[] values) {
      super(f, nulls);
      this.values = values;
    }

    @Override
    int compareValues(int a, KeyColumn other, int b) {
      return compareDoubles(values[a], ((DoubleColumn) other).values[b]);
    }

    @Override
    boolean normalizable() {
      return true;
    }

    @Override
    long normalized(int row) {
      double d = values[row];
      // -0.0 sorts as 0.0 and every NaN as the canonical NaN, above +Infinity.
      long bits = Double.doubleToLongBits(d == 0.0 ? 0.0 : d);
      return bits ^ ((bits >> 63) & 0x7fffffffffffffffL);
    }

    /** Postgres order: -0.0 equals 0.0, NaN equals NaN and sorts above every other value. */
    static int compareDoubles(double x, double y) {
      if (x < y) {
        return -1;
      }
      if (x > y) {
        return 1;
      }
      if (x == y) {
        return 0;
      }
      boolean nx = Double.isNaN(x);
      boolean ny = Double.isNaN(y);
      return nx == ny ? 0 : (nx ? 1 : -1);
    }

    @Override
    IntComparator selfComparator() {
      double[] v = values;
      if (nulls == null) {
        return ascending
            ? (a, b) -> compareDoubles(v[a], v[b])
            : (a, b) -> compareDoubles(v[b], v[a]);
      }
      return super.selfComparator();
    }
  }

  private static final class DecimalColumn extends KeyColumn {
    final long[] low;
    final BigInteger[] big;

    DecimalColumn(SortField f, boolean[] nulls, long[] low, BigInteger[] big) {
      super(f, nulls);
      this.low = low;
      this.big = big;
    }

    @Override
    int compareValues(int a, KeyColumn other, int b) {
      DecimalColumn o = (DecimalColumn) other;
      BigInteger x = big == null ? null : big[a];
      BigInteger y = o.big == null ? null : o.big[b];
      if (x == null && y == null) {
        return Long.compare(low[a], o.low[b]);
      }
      return (x != null ? x : BigInteger.valueOf(low[a]))
          .compareTo(y != null ? y : BigInteger.valueOf(o.low[b]));
    }

    @Override
    boolean normalizable() {
      // Every value fits a long (the batch has no wider decimal): its unscaled value orders it.
      return big == null;
    }

    @Override
    long normalized(int row) {
      return low[row];
    }
  }

  private static final class BytesColumn extends KeyColumn {
    final byte[] bytes;
    final int[] offsets;

    BytesColumn(SortField f, boolean[] nulls, byte[] bytes, int[] offsets) {
      super(f, nulls);
      this.bytes = bytes;
      this.offsets = offsets;
    }

    @Override
    int compareValues(int a, KeyColumn other, int b) {
      BytesColumn o = (BytesColumn) other;
      return Arrays.compareUnsigned(
          bytes, offsets[a], offsets[a + 1], o.bytes, o.offsets[b], o.offsets[b + 1]);
    }
  }
}
