package dev.quiver.binding.physical.window;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.Vectors;
import dev.quiver.binding.physical.expr.Vectors.Storage;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.window.WindowFrame.Bound;
import dev.quiver.binding.physical.window.WindowFrame.BoundKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Computes one window call over a fully buffered, sorted batch: partition and peer boundaries come
 * from comparing adjacent rows column by column; frames are index ranges per row; frame aggregates
 * use prefix sums (COUNT, SUM, AVG) or a monotonic deque (MIN, MAX).
 */
final class WindowFunctions {
  private WindowFunctions() {}

  /** The call's output column over all rows of {@code batch}. */
  static FieldVector compute(WindowCall call, VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    Field out = WindowExec.outputField(call);
    List<FieldVector> owned = new ArrayList<>();
    try {
      boolean[] partStart = new boolean[n];
      if (n > 0) {
        partStart[0] = true;
      }
      for (PhysicalExpr e : call.partitionBy()) {
        FieldVector v = e.evaluate(batch, allocator);
        owned.add(v);
        markChanges(v, n, partStart);
      }
      boolean[] peerStart = partStart.clone();
      List<FieldVector> orderKeys = new ArrayList<>();
      for (SortField s : call.orderBy()) {
        FieldVector v = s.expr().evaluate(batch, allocator);
        owned.add(v);
        orderKeys.add(v);
        markChanges(v, n, peerStart);
      }
      FieldVector[] args = new FieldVector[call.args().size()];
      for (int i = 0; i < args.length; i++) {
        args[i] = call.args().get(i).evaluate(batch, allocator);
        owned.add(args[i]);
      }
      int[] partEnd = ends(partStart, n);
      int[] peerFirst = new int[n];
      int[] peerEnd = ends(peerStart, n);
      for (int i = 0; i < n; i++) {
        peerFirst[i] = peerStart[i] ? i : peerFirst[i - 1];
      }
      int[] partFirst = new int[n];
      for (int i = 0; i < n; i++) {
        partFirst[i] = partStart[i] ? i : partFirst[i - 1];
      }
      Ctx c =
          new Ctx(call, out, n, partFirst, partEnd, peerStart, peerFirst, peerEnd, args, allocator);
      return switch (call.function()) {
        case ROW_NUMBER, RANK, DENSE_RANK, NTILE -> ranking(c);
        case PERCENT_RANK, CUME_DIST -> distribution(c);
        case LAG, LEAD -> offsetValue(c);
        case FIRST_VALUE, LAST_VALUE, COUNT, SUM, AVG, MIN, MAX -> {
          int[][] frame = frames(c, orderKeys);
          yield framed(c, frame[0], frame[1]);
        }
      };
    } finally {
      Batches.closeAll(owned);
    }
  }

  /** Everything a function needs about the rows. */
  private record Ctx(
      WindowCall call,
      Field out,
      int n,
      int[] partFirst,
      int[] partEnd,
      boolean[] peerStart,
      int[] peerFirst,
      int[] peerEnd,
      FieldVector[] args,
      BufferAllocator allocator) {}

  /** For each row, the (exclusive) end of the run that starts at the last marked row. */
  private static int[] ends(boolean[] starts, int n) {
    int[] end = new int[n];
    int e = n;
    for (int i = n - 1; i >= 0; i--) {
      end[i] = e;
      if (starts[i]) {
        e = i;
      }
    }
    return end;
  }

  /** Sets {@code changed[i]} when row i differs from row i - 1 in {@code v} (nulls are equal). */
  static void markChanges(FieldVector v, int n, boolean[] changed) {
    if (n < 2) {
      return;
    }
    boolean[] nulls = new boolean[n];
    Vectors.nulls(v, n, nulls);
    Storage kind = Vectors.storage(v.getField().getType());
    switch (kind) {
      case LONG, BOOL -> {
        long[] x = Vectors.longs(v, n, null);
        for (int i = 1; i < n; i++) {
          changed[i] |= nulls[i] != nulls[i - 1] || (!nulls[i] && x[i] != x[i - 1]);
        }
      }
      case DOUBLE -> {
        double[] x = Vectors.doubles(v, n, null);
        for (int i = 1; i < n; i++) {
          changed[i] |=
              nulls[i] != nulls[i - 1]
                  || (!nulls[i] && Double.compare(x[i], x[i - 1]) != 0 && x[i] != x[i - 1]);
        }
      }
      case DECIMAL -> {
        ArrowBuf d = ((BaseFixedWidthVector) v).getDataBuffer();
        for (int i = 1; i < n; i++) {
          changed[i] |=
              nulls[i] != nulls[i - 1]
                  || (!nulls[i]
                      && (d.getLong(i * 16L) != d.getLong((i - 1) * 16L)
                          || d.getLong(i * 16L + 8) != d.getLong((i - 1) * 16L + 8)));
        }
      }
      case BYTES -> {
        BaseVariableWidthVector var = (BaseVariableWidthVector) v;
        ArrowBuf off = var.getOffsetBuffer();
        int base = off.getInt(0);
        int len = off.getInt(n * 4L) - base;
        byte[] data = new byte[Math.max(len, 1)];
        var.getDataBuffer().getBytes(base, data, 0, len);
        for (int i = 1; i < n; i++) {
          if (nulls[i] != nulls[i - 1]) {
            changed[i] = true;
          } else if (!nulls[i] && !changed[i]) {
            int s0 = off.getInt((i - 1) * 4L) - base;
            int s1 = off.getInt(i * 4L) - base;
            int e1 = off.getInt((i + 1) * 4L) - base;
            changed[i] = !Arrays.equals(data, s0, s1, data, s1, e1);
          }
        }
      }
      case NULL -> {}
    }
  }

  // ---- ranking ----

  private static FieldVector ranking(Ctx c) {
    int n = c.n;
    long[] r = new long[n];
    long buckets = 0;
    if (c.call.function() == WindowFunction.NTILE) {
      long[] b = Vectors.longs(c.args[0], n, null);
      buckets = n > 0 ? b[0] : 1;
      if (n > 0 && (buckets <= 0 || !Vectors.valid(c.args[0], 0))) {
        throw new QuiverException(
            "NTILE needs a positive bucket count in "
                + c.call.name()
                + ", got "
                + (Vectors.valid(c.args[0], 0) ? buckets : "NULL"));
      }
    }
    long dense = 0;
    for (int i = 0; i < n; i++) {
      int ps = c.partFirst[i];
      if (i == ps) {
        dense = 0;
      }
      if (c.peerStart[i]) {
        dense++;
      }
      r[i] =
          switch (c.call.function()) {
            case ROW_NUMBER -> i - ps + 1;
            case RANK -> c.peerFirst[i] - ps + 1;
            case DENSE_RANK -> dense;
            default -> ntile(i - ps, c.partEnd[i] - ps, buckets);
          };
    }
    return Vectors.fromLongs(c.out, r, null, n, c.allocator);
  }

  /** 1-based bucket of row {@code r} of {@code size} rows in {@code k} buckets, larger first. */
  private static long ntile(long r, long size, long k) {
    if (k >= size) {
      return r + 1;
    }
    long q = size / k;
    long rem = size % k;
    long big = rem * (q + 1);
    return r < big ? r / (q + 1) + 1 : rem + (r - big) / q + 1;
  }

  private static FieldVector distribution(Ctx c) {
    int n = c.n;
    double[] r = new double[n];
    for (int i = 0; i < n; i++) {
      int ps = c.partFirst[i];
      long size = c.partEnd[i] - ps;
      if (c.call.function() == WindowFunction.PERCENT_RANK) {
        r[i] = size <= 1 ? 0 : (double) (c.peerFirst[i] - ps) / (size - 1);
      } else {
        r[i] = (double) (c.peerEnd[i] - ps) / size;
      }
    }
    return Vectors.fromDoubles(c.out, r, null, n, c.allocator);
  }

  // ---- LAG / LEAD ----

  private static FieldVector offsetValue(Ctx c) {
    int n = c.n;
    long[] offsets = c.args.length > 1 ? Vectors.longs(c.args[1], n, null) : null;
    int sign = c.call.function() == WindowFunction.LAG ? -1 : 1;
    int[] idx = new int[n];
    boolean anyDefault = false;
    for (int i = 0; i < n; i++) {
      long off = offsets == null ? 1 : offsets[i];
      long j = i + sign * off;
      if (j >= c.partFirst[i] && j < c.partEnd[i]) {
        idx[i] = (int) j;
      } else {
        idx[i] = -1;
        anyDefault = true;
      }
    }
    if (!anyDefault || c.args.length <= 2) {
      return gather(c, c.args[0], idx);
    }
    FieldVector value = c.args[0];
    FieldVector def = c.args[2];
    if (def.getClass() != value.getClass()) {
      throw new QueryTypeException(
          "The default of "
              + c.call.function()
              + " in "
              + c.call.name()
              + " has type "
              + def.getField().getType()
              + " but the value has type "
              + value.getField().getType()
              + "; cast the default to the value's type");
    }
    // Written row after row: a variable-width vector cannot have a value replaced in the middle
    // (overwriting the defaults after a gather shifted the strings that followed them).
    FieldVector v = c.out.createVector(c.allocator);
    try {
      v.allocateNew();
      // An untyped NULL column holds no values to copy (a NullVector cannot copy them).
      for (int i = 0; i < n && !(v instanceof NullVector); i++) {
        if (idx[i] >= 0) {
          v.copyFromSafe(idx[i], i, value);
        } else {
          v.copyFromSafe(i, i, def);
        }
      }
      v.setValueCount(n);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  /** {@code source[idx[i]]} (null where idx is negative), renamed to the output field. */
  private static FieldVector gather(Ctx c, FieldVector source, int[] idx) {
    FieldVector taken = Take.take(source, idx, c.n, c.allocator);
    try {
      TransferPair pair = taken.getTransferPair(c.out, c.allocator);
      pair.transfer();
      return (FieldVector) pair.getTo();
    } finally {
      taken.close();
    }
  }

  // ---- frames ----

  /** Inclusive [lo, hi] per row; the frame is empty when lo > hi. */
  private static int[][] frames(Ctx c, List<FieldVector> orderKeys) {
    int n = c.n;
    WindowFrame f = c.call.frame();
    if (f == null) {
      f =
          c.call.orderBy().isEmpty()
              ? WindowFrame.wholePartition()
              : WindowFrame.defaultWithOrder();
    }
    int[] lo = new int[n];
    int[] hi = new int[n];
    if (f.rows()) {
      for (int i = 0; i < n; i++) {
        int ps = c.partFirst[i];
        int pe = c.partEnd[i];
        lo[i] = (int) Math.max(ps, Math.min(pe, rowsBound(f.start(), i, ps, pe)));
        hi[i] = (int) Math.max(ps - 1, Math.min(pe - 1, rowsBound(f.end(), i, ps, pe)));
      }
      return new int[][] {lo, hi};
    }
    boolean offsets = isOffset(f.start()) || isOffset(f.end());
    RangeKey key = null;
    if (offsets && !c.call.orderBy().isEmpty()) {
      key = new RangeKey(orderKeys.get(0), c.call.orderBy().get(0).ascending(), n);
    }
    for (int i = 0; i < n; i++) {
      lo[i] = rangeBound(f.start(), true, i, c, key);
      hi[i] = rangeBound(f.end(), false, i, c, key);
    }
    return new int[][] {lo, hi};
  }

  private static boolean isOffset(Bound b) {
    return b.kind() == BoundKind.PRECEDING || b.kind() == BoundKind.FOLLOWING;
  }

  private static long rowsBound(Bound b, int i, int ps, int pe) {
    return switch (b.kind()) {
      case UNBOUNDED_PRECEDING -> ps;
      case PRECEDING -> (long) i - b.offset();
      case CURRENT_ROW -> i;
      case FOLLOWING -> (long) i + b.offset();
      case UNBOUNDED_FOLLOWING -> pe - 1;
    };
  }

  /** A single numeric order key, negated for DESC so that frames always search ascending values. */
  private static final class RangeKey {
    final boolean[] nulls;
    final long[] longs;
    final double[] doubles;
    private int blockPartition = -1;
    private int blockLo;
    private int blockHi;

    RangeKey(FieldVector v, boolean ascending, int n) {
      nulls = new boolean[n];
      Vectors.nulls(v, n, nulls);
      Storage kind = Vectors.storage(v.getField().getType());
      if (kind == Storage.LONG) {
        longs = Vectors.longs(v, n, null);
        doubles = null;
        if (!ascending) {
          for (int i = 0; i < n; i++) {
            longs[i] = -longs[i];
          }
        }
      } else if (kind == Storage.DOUBLE || kind == Storage.DECIMAL) {
        longs = null;
        doubles = Vectors.doubles(v, n, null);
        if (!ascending) {
          for (int i = 0; i < n; i++) {
            doubles[i] = -doubles[i];
          }
        }
      } else {
        throw new QueryTypeException(
            "RANGE frames with an offset need a numeric or date ORDER BY key, got "
                + v.getField().getType()
                + "; use ROWS instead");
      }
    }

    /** Rows [lo, hi) of the partition starting at {@code ps} whose key is non-null. */
    int[] nonNullBlock(int ps, int pe) {
      if (blockPartition != ps) {
        int lo = ps;
        int hi = pe;
        while (lo < hi && nulls[lo]) {
          lo++;
        }
        while (hi > lo && nulls[hi - 1]) {
          hi--;
        }
        blockPartition = ps;
        blockLo = lo;
        blockHi = hi;
      }
      return new int[] {blockLo, blockHi};
    }

    /**
     * Compares row j's key with row i's key shifted by delta: sign of key[j] - (key[i] + delta).
     */
    int compare(int j, int i, long delta) {
      if (longs != null) {
        return Long.compare(longs[j], longs[i] + delta);
      }
      return Double.compare(doubles[j], doubles[i] + delta);
    }
  }

  private static int rangeBound(Bound b, boolean start, int i, Ctx c, RangeKey key) {
    int ps = c.partFirst[i];
    int pe = c.partEnd[i];
    switch (b.kind()) {
      case UNBOUNDED_PRECEDING:
        return start ? ps : ps - 1;
      case UNBOUNDED_FOLLOWING:
        return start ? pe : pe - 1;
      case CURRENT_ROW:
        return start ? c.peerFirst[i] : c.peerEnd[i] - 1;
      default:
        break;
    }
    if (key == null || key.nulls[i]) {
      // Without an order key every row is a peer; a NULL key's frame is its peers (the NULLs).
      return start ? c.peerFirst[i] : c.peerEnd[i] - 1;
    }
    // Non-null keys of the partition form one contiguous block (NULLs sort first or last).
    int[] block = key.nonNullBlock(ps, pe);
    int lo = block[0];
    int hi = block[1];
    long delta = b.kind() == BoundKind.PRECEDING ? -b.offset() : b.offset();
    if (start) {
      // first j with key[j] >= key[i] + delta
      int a = lo;
      int z = hi;
      while (a < z) {
        int m = (a + z) >>> 1;
        if (key.compare(m, i, delta) < 0) {
          a = m + 1;
        } else {
          z = m;
        }
      }
      return a;
    }
    // last j with key[j] <= key[i] + delta
    int a = lo;
    int z = hi;
    while (a < z) {
      int m = (a + z) >>> 1;
      if (key.compare(m, i, delta) <= 0) {
        a = m + 1;
      } else {
        z = m;
      }
    }
    return a - 1;
  }

  // ---- framed functions ----

  private static FieldVector framed(Ctx c, int[] lo, int[] hi) {
    int n = c.n;
    switch (c.call.function()) {
      case FIRST_VALUE, LAST_VALUE -> {
        int[] idx = new int[n];
        boolean first = c.call.function() == WindowFunction.FIRST_VALUE;
        for (int i = 0; i < n; i++) {
          idx[i] = lo[i] > hi[i] ? -1 : first ? lo[i] : hi[i];
        }
        return gather(c, c.args[0], idx);
      }
      case MIN, MAX -> {
        return gather(c, c.args[0], minMax(c, lo, hi, c.call.function() == WindowFunction.MIN));
      }
      default -> {
        return sumCountAvg(c, lo, hi);
      }
    }
  }

  /** Prefix counts of non-null argument rows (all rows for COUNT(*)). */
  private static long[] prefixCounts(Ctx c) {
    int n = c.n;
    long[] pc = new long[n + 1];
    boolean[] nulls = new boolean[n];
    for (FieldVector a : c.args) {
      boolean[] an = new boolean[n];
      Vectors.nulls(a, n, an);
      for (int i = 0; i < n; i++) {
        nulls[i] |= an[i];
      }
    }
    for (int i = 0; i < n; i++) {
      pc[i + 1] = pc[i] + (nulls[i] ? 0 : 1);
    }
    return pc;
  }

  private static FieldVector sumCountAvg(Ctx c, int[] lo, int[] hi) {
    int n = c.n;
    long[] pc = prefixCounts(c);
    long[] counts = new long[n];
    boolean[] valid = new boolean[n];
    for (int i = 0; i < n; i++) {
      counts[i] = lo[i] > hi[i] ? 0 : pc[hi[i] + 1] - pc[lo[i]];
      valid[i] = counts[i] > 0;
    }
    if (c.call.function() == WindowFunction.COUNT) {
      return Vectors.fromLongs(c.out, counts, null, n, c.allocator);
    }
    boolean avg = c.call.function() == WindowFunction.AVG;
    FieldVector arg = c.args[0];
    boolean[] nulls = new boolean[n];
    Vectors.nulls(arg, n, nulls);
    ArrowType type = arg.getField().getType();
    Storage kind = Vectors.storage(type);
    if (kind == Storage.DOUBLE) {
      double[] x = Vectors.doubles(arg, n, null);
      double[] p = new double[n + 1];
      for (int i = 0; i < n; i++) {
        p[i + 1] = p[i] + (nulls[i] ? 0 : x[i]);
      }
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        if (valid[i]) {
          double s = p[hi[i] + 1] - p[lo[i]];
          r[i] = avg ? s / counts[i] : s;
        }
      }
      return Vectors.fromDoubles(c.out, r, valid, n, c.allocator);
    }
    if (kind != Storage.LONG && kind != Storage.DECIMAL && kind != Storage.NULL) {
      throw new QueryTypeException(
          c.call.function() + " needs a numeric argument in " + c.call.name() + ", got " + type);
    }
    // Exact prefix sums of integers or unscaled decimals; BigInteger only if a long overflows.
    int scale = Vectors.scale(type);
    long[] p = new long[n + 1];
    BigInteger[] pb = null;
    ArrowBuf dec = kind == Storage.DECIMAL ? ((BaseFixedWidthVector) arg).getDataBuffer() : null;
    long[] x = kind == Storage.DECIMAL ? null : Vectors.longs(arg, n, null);
    for (int i = 0; i < n; i++) {
      long v = 0;
      boolean wide = false;
      if (!nulls[i]) {
        if (dec != null) {
          long l = dec.getLong(i * 16L);
          long h = dec.getLong(i * 16L + 8);
          wide = h != (l >> 63);
          v = l;
        } else {
          v = x[i];
        }
      }
      if (pb == null) {
        long s = p[i] + v;
        if (!wide && ((p[i] ^ s) & (v ^ s)) >= 0) {
          p[i + 1] = s;
          continue;
        }
        pb = new BigInteger[n + 1];
        for (int j = 0; j <= i; j++) {
          pb[j] = BigInteger.valueOf(p[j]);
        }
      }
      BigInteger add =
          nulls[i] ? BigInteger.ZERO : dec != null ? Vectors.bigAt(dec, i) : BigInteger.valueOf(v);
      pb[i + 1] = pb[i].add(add);
    }
    long[] sumLo = new long[n];
    BigInteger[] sumBig = pb == null ? null : new BigInteger[n];
    for (int i = 0; i < n; i++) {
      if (!valid[i]) {
        continue;
      }
      if (pb == null) {
        sumLo[i] = p[hi[i] + 1] - p[lo[i]];
      } else {
        sumBig[i] = pb[hi[i] + 1].subtract(pb[lo[i]]);
      }
    }
    if (!avg) {
      if (kind == Storage.LONG && !(c.out.getType() instanceof ArrowType.Decimal)) {
        if (sumBig != null) {
          for (int i = 0; i < n; i++) {
            if (valid[i]) {
              if (sumBig[i].bitLength() > 63) {
                throw new QuiverException(
                    "SUM overflowed BIGINT in "
                        + c.call.name()
                        + "; cast the argument to DECIMAL(38, 0) or DOUBLE");
              }
              sumLo[i] = sumBig[i].longValue();
            }
          }
        }
        return Vectors.fromLongs(c.out, sumLo, valid, n, c.allocator);
      }
      return Vectors.fromDecimal(c.out, sumLo, sumBig, scale, valid, n, c.allocator);
    }
    if (c.out.getType() instanceof ArrowType.Decimal d) {
      BigInteger[] big = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        if (valid[i]) {
          BigDecimal s =
              new BigDecimal(sumBig != null ? sumBig[i] : BigInteger.valueOf(sumLo[i]), scale);
          big[i] =
              s.divide(BigDecimal.valueOf(counts[i]), d.getScale(), RoundingMode.HALF_UP)
                  .unscaledValue();
        }
      }
      return Vectors.fromDecimal(c.out, new long[n], big, d.getScale(), valid, n, c.allocator);
    }
    double[] r = new double[n];
    double div = Math.pow(10, scale);
    for (int i = 0; i < n; i++) {
      if (valid[i]) {
        r[i] =
            sumBig == null && scale == 0
                ? (double) sumLo[i] / counts[i]
                : sumBig == null && Math.abs(sumLo[i]) < (1L << 53)
                    ? sumLo[i] / div / counts[i]
                    : new BigDecimal(
                            sumBig != null ? sumBig[i] : BigInteger.valueOf(sumLo[i]), scale)
                        .divide(BigDecimal.valueOf(counts[i]), MathContext.DECIMAL128)
                        .doubleValue();
      }
    }
    return Vectors.fromDoubles(c.out, r, valid, n, c.allocator);
  }

  /** Row comparison by argument value, specialized per storage kind. */
  private interface RowOrder {
    int compare(int a, int b);
  }

  private static RowOrder order(FieldVector v, int n) {
    Storage kind = Vectors.storage(v.getField().getType());
    return switch (kind) {
      case LONG, BOOL -> {
        long[] x = Vectors.longs(v, n, null);
        yield (a, b) -> Long.compare(x[a], x[b]);
      }
      case DOUBLE -> {
        double[] x = Vectors.doubles(v, n, null);
        yield (a, b) -> Double.compare(x[a], x[b]);
      }
      case DECIMAL -> {
        ArrowBuf d = ((BaseFixedWidthVector) v).getDataBuffer();
        yield (a, b) -> {
          long ha = d.getLong(a * 16L + 8);
          long hb = d.getLong(b * 16L + 8);
          return ha != hb
              ? Long.compare(ha, hb)
              : Long.compareUnsigned(d.getLong(a * 16L), d.getLong(b * 16L));
        };
      }
      case BYTES -> {
        BaseVariableWidthVector var = (BaseVariableWidthVector) v;
        ArrowBuf off = var.getOffsetBuffer();
        int base = off.getInt(0);
        int len = off.getInt(n * 4L) - base;
        byte[] data = new byte[Math.max(len, 1)];
        var.getDataBuffer().getBytes(base, data, 0, len);
        yield (a, b) ->
            Arrays.compareUnsigned(
                data,
                off.getInt(a * 4L) - base,
                off.getInt((a + 1) * 4L) - base,
                data,
                off.getInt(b * 4L) - base,
                off.getInt((b + 1) * 4L) - base);
      }
      case NULL -> (a, b) -> 0;
    };
  }

  /**
   * Index of the minimum (or maximum) non-null value in each row's frame, or -1. Frames whose
   * bounds never move backwards within a partition use a monotonic deque (linear time); others fall
   * back to scanning the frame.
   */
  private static int[] minMax(Ctx c, int[] lo, int[] hi, boolean min) {
    int n = c.n;
    int[] res = new int[n];
    boolean[] nulls = new boolean[n];
    Vectors.nulls(c.args[0], n, nulls);
    RowOrder ord = order(c.args[0], n);
    int sign = min ? 1 : -1;
    int[] dq = new int[Math.max(n, 1)];
    int i = 0;
    while (i < n) {
      int ps = c.partFirst[i];
      int pe = c.partEnd[i];
      boolean monotone = true;
      for (int r = ps + 1; r < pe; r++) {
        if (lo[r] < lo[r - 1] || hi[r] < hi[r - 1]) {
          monotone = false;
          break;
        }
      }
      if (monotone) {
        int head = 0;
        int tail = 0;
        int next = ps; // next row to push
        for (int r = ps; r < pe; r++) {
          while (next <= hi[r]) {
            if (!nulls[next]) {
              while (tail > head && sign * ord.compare(dq[tail - 1], next) > 0) {
                tail--;
              }
              dq[tail++] = next;
            }
            next++;
          }
          while (tail > head && dq[head] < lo[r]) {
            head++;
          }
          res[r] = lo[r] > hi[r] || tail == head ? -1 : dq[head];
        }
      } else {
        for (int r = ps; r < pe; r++) {
          int best = -1;
          for (int j = lo[r]; j <= hi[r]; j++) {
            if (!nulls[j] && (best < 0 || sign * ord.compare(j, best) < 0)) {
              best = j;
            }
          }
          res[r] = best;
        }
      }
      i = pe;
    }
    return res;
  }
}
