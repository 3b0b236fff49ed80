package dev.quiver.binding.physical.aggregate;

import static dev.quiver.binding.physical.aggregate.GroupStates.gather;
import static dev.quiver.binding.physical.aggregate.GroupStates.grow;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.expr.Vectors;
import dev.quiver.binding.physical.kernel.Raw;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** SUM and AVG: a sum per group in the argument's storage type and the count of non-null inputs. */
final class SumAccumulators {
  private SumAccumulators() {}

  static QuiverException sumOverflow(Field out) {
    return new QuiverException(
        "SUM overflowed BIGINT in "
            + out.getName()
            + "; cast the argument to DECIMAL(38, 0) or DOUBLE");
  }

  /** Shared shape of SUM/AVG: a sum per group plus the count of non-null inputs. */
  abstract static class SumBase implements Accumulator {
    final List<Field> state;
    final Field out;
    final boolean avg;
    long[] counts = new long[16];

    SumBase(List<Field> state, Field out, boolean avg) {
      this.state = state;
      this.out = out;
      this.avg = avg;
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > counts.length) {
        int c = grow(counts.length, groups);
        counts = Arrays.copyOf(counts, c);
        growSums(c);
      }
    }

    abstract void growSums(int capacity);

    abstract void resetSums();

    boolean[] validity(int[] gids, int n) {
      boolean[] valid = new boolean[n];
      for (int i = 0; i < n; i++) {
        valid[i] = counts[gids[i]] > 0;
      }
      return valid;
    }

    FieldVector countColumn(int[] gids, int n, BufferAllocator a) {
      return Vectors.fromLongs(state.get(1), gather(counts, gids, n), null, n, a);
    }

    /** AVG's result from an exact sum. */
    FieldVector average(BigDecimal[] sums, boolean[] valid, int[] gids, int n, BufferAllocator a) {
      if (out.getType() instanceof ArrowType.Decimal d) {
        BigInteger[] big = new BigInteger[n];
        for (int i = 0; i < n; i++) {
          if (valid[i]) {
            big[i] =
                sums[i]
                    .divide(BigDecimal.valueOf(counts[gids[i]]), d.getScale(), RoundingMode.HALF_UP)
                    .unscaledValue();
          }
        }
        return Vectors.fromDecimal(out, new long[n], big, d.getScale(), valid, n, a);
      }
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        if (valid[i]) {
          r[i] =
              sums[i]
                  .divide(BigDecimal.valueOf(counts[gids[i]]), MathContext.DECIMAL128)
                  .doubleValue();
        }
      }
      return Vectors.fromDoubles(out, r, valid, n, a);
    }

    @Override
    public void reset() {
      counts = new long[16];
      resetSums();
    }
  }

  /** SUM/AVG of integers in a long per group, with an overflow check. */
  static final class SumLongAcc extends SumBase {
    private long[] sums = new long[16];
    private long[] buf;

    SumLongAcc(List<Field> state, Field out, boolean avg) {
      super(state, out, avg);
    }

    @Override
    void growSums(int capacity) {
      sums = Arrays.copyOf(sums, capacity);
    }

    @Override
    void resetSums() {
      sums = new long[16];
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      long[] v = buf = Vectors.longs(args[0], rows, buf);
      long[] s = sums;
      long[] c = counts;
      try {
        for (int i = 0; i < rows; i++) {
          if (use == null || use[i]) {
            int g = gids[i];
            s[g] = Math.addExact(s[g], v[i]);
            c[g]++;
          }
        }
      } catch (ArithmeticException e) {
        throw sumOverflow(out);
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      long[] v = Vectors.longs(st[0], rows, null);
      long[] n = Vectors.longs(st[1], rows, null);
      try {
        for (int i = 0; i < rows; i++) {
          if (n[i] > 0) {
            int g = gids[i];
            sums[g] = Math.addExact(sums[g], v[i]);
            counts[g] += n[i];
          }
        }
      } catch (ArithmeticException e) {
        throw sumOverflow(out);
      }
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      FieldVector s =
          Vectors.fromLongs(state.get(0), gather(sums, gids, n), validity(gids, n), n, a);
      return List.of(s, countColumn(gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      boolean[] valid = validity(gids, n);
      if (!avg) {
        return Vectors.fromLongs(out, gather(sums, gids, n), valid, n, a);
      }
      if (out.getType() instanceof ArrowType.Decimal) {
        BigDecimal[] b = new BigDecimal[n];
        for (int i = 0; i < n; i++) {
          b[i] = BigDecimal.valueOf(sums[gids[i]]);
        }
        return average(b, valid, gids, n, a);
      }
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        int g = gids[i];
        r[i] = valid[i] ? (double) sums[g] / counts[g] : 0;
      }
      return Vectors.fromDoubles(out, r, valid, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) counts.length * 16;
    }
  }

  /** SUM/AVG of floating point. */
  static final class SumDoubleAcc extends SumBase {
    private double[] sums = new double[16];
    private double[] buf;

    SumDoubleAcc(List<Field> state, Field out, boolean avg) {
      super(state, out, avg);
    }

    @Override
    void growSums(int capacity) {
      sums = Arrays.copyOf(sums, capacity);
    }

    @Override
    void resetSums() {
      sums = new double[16];
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      double[] v = buf = Vectors.doubles(args[0], rows, buf);
      double[] s = sums;
      long[] c = counts;
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          int g = gids[i];
          s[g] += v[i];
          c[g]++;
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      double[] v = Vectors.doubles(st[0], rows, null);
      long[] n = Vectors.longs(st[1], rows, null);
      for (int i = 0; i < rows; i++) {
        if (n[i] > 0) {
          int g = gids[i];
          sums[g] += v[i];
          counts[g] += n[i];
        }
      }
    }

    private double[] gather(int[] gids, int n, boolean divide) {
      double[] v = new double[n];
      for (int i = 0; i < n; i++) {
        int g = gids[i];
        v[i] = divide ? (counts[g] == 0 ? 0 : sums[g] / counts[g]) : sums[g];
      }
      return v;
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      FieldVector s =
          Vectors.fromDoubles(state.get(0), gather(gids, n, false), validity(gids, n), n, a);
      return List.of(s, countColumn(gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return Vectors.fromDoubles(out, gather(gids, n, avg), validity(gids, n), n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) counts.length * 16;
    }
  }

  /**
   * SUM/AVG of decimals: the unscaled sum in a long per group, moving that group to a BigInteger
   * only when the long would overflow.
   */
  static final class SumDecimalAcc extends SumBase {
    private final int scale;
    private long[] sums = new long[16];
    private BigInteger[] big;

    SumDecimalAcc(List<Field> state, Field out, boolean avg, int scale) {
      super(state, out, avg);
      this.scale = scale;
    }

    @Override
    void resetSums() {
      sums = new long[16];
      big = null;
    }

    @Override
    void growSums(int capacity) {
      sums = Arrays.copyOf(sums, capacity);
      if (big != null) {
        big = Arrays.copyOf(big, capacity);
      }
    }

    private void add(int g, long lo, long hi) {
      if (big == null || big[g] == null) {
        if (hi == (lo >> 63)) {
          long s = sums[g];
          long r = s + lo;
          if (((s ^ r) & (lo ^ r)) >= 0) {
            sums[g] = r;
            return;
          }
        }
        if (big == null) {
          big = new BigInteger[sums.length];
        }
        big[g] = BigInteger.valueOf(sums[g]);
      }
      big[g] = big[g].add(Vectors.big(lo, hi));
    }

    private void fold(FieldVector v, int[] gids, int rows, boolean[] use, long[] n) {
      long data = Raw.address(((BaseFixedWidthVector) v).getDataBuffer(), rows * 16L);
      int from = use == null && n == null && big == null ? foldFast(data, gids, rows) : 0;
      for (int i = from; i < rows; i++) {
        if (n != null ? n[i] > 0 : use == null || use[i]) {
          int g = gids[i];
          add(g, Raw.getLong(data + i * 16L), Raw.getLong(data + i * 16L + 8));
          counts[g] += n != null ? n[i] : 1;
        }
      }
    }

    /**
     * Adds every row to its group's long sum while all values and sums fit 64 bits (no row masked,
     * no group moved to a BigInteger yet): two loads, an add and an overflow test per row. Returns
     * the first row it could not add (rows when it added them all), which the general loop
     * continues from.
     */
    private int foldFast(long data, int[] gids, int rows) {
      long[] s = sums;
      long[] c = counts;
      for (int i = 0; i < rows; i++) {
        long lo = Raw.getLong(data + i * 16L);
        long hi = Raw.getLong(data + i * 16L + 8);
        int g = gids[i];
        long a = s[g];
        long r = a + lo;
        if (hi != (lo >> 63) || ((a ^ r) & (lo ^ r)) < 0) {
          return i;
        }
        s[g] = r;
        c[g]++;
      }
      return rows;
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      fold(args[0], gids, rows, use, null);
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      fold(st[0], gids, rows, null, Vectors.longs(st[1], rows, null));
    }

    private BigInteger[] gatherBig(int[] gids, int n) {
      if (big == null) {
        return null;
      }
      BigInteger[] v = new BigInteger[n];
      for (int i = 0; i < n; i++) {
        v[i] = big[gids[i]];
      }
      return v;
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      FieldVector s =
          Vectors.fromDecimal(
              state.get(0),
              gather(sums, gids, n),
              gatherBig(gids, n),
              scale,
              validity(gids, n),
              n,
              a);
      return List.of(s, countColumn(gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      boolean[] valid = validity(gids, n);
      long[] lo = gather(sums, gids, n);
      BigInteger[] b = gatherBig(gids, n);
      if (!avg) {
        return Vectors.fromDecimal(out, lo, b, scale, valid, n, a);
      }
      BigDecimal[] s = new BigDecimal[n];
      for (int i = 0; i < n; i++) {
        s[i] =
            b != null && b[i] != null
                ? new BigDecimal(b[i], scale)
                : BigDecimal.valueOf(lo[i], scale);
      }
      return average(s, valid, gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) counts.length * (big == null ? 16 : 24);
    }
  }
}
