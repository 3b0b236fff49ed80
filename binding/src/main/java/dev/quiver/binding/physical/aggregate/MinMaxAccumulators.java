package dev.quiver.binding.physical.aggregate;

import static dev.quiver.binding.physical.aggregate.GroupStates.grow;
import static dev.quiver.binding.physical.aggregate.GroupStates.validMask;

import dev.quiver.binding.physical.expr.Vectors;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * MIN, MAX and ANY_VALUE: one value per group in the argument's storage type, kept when it is the
 * first of its group or beats the current one.
 */
final class MinMaxAccumulators {
  static final int MIN = 0;
  static final int MAX = 1;
  static final int ANY = 2;

  private MinMaxAccumulators() {}

  /** MIN/MAX/ANY_VALUE of integers, dates, timestamps and booleans. */
  static final class MinMaxLongAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private final int mode;
    private long[] vals = new long[16];
    private boolean[] seen = new boolean[16];
    private long[] buf;

    MinMaxLongAcc(List<Field> state, Field out, int mode) {
      this.state = state;
      this.out = out;
      this.mode = mode;
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > vals.length) {
        int c = grow(vals.length, groups);
        vals = Arrays.copyOf(vals, c);
        seen = Arrays.copyOf(seen, c);
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      long[] v = buf = Vectors.longs(args[0], rows, buf);
      long[] cur = vals;
      boolean[] s = seen;
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          int g = gids[i];
          long x = v[i];
          if (!s[g]) {
            s[g] = true;
            cur[g] = x;
          } else if (mode == MIN ? x < cur[g] : mode == MAX && x > cur[g]) {
            cur[g] = x;
          }
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      update(st, gids, rows, validMask(st[0], rows));
    }

    private FieldVector emit(Field f, int[] gids, int n, BufferAllocator a) {
      long[] v = new long[n];
      boolean[] valid = new boolean[n];
      for (int i = 0; i < n; i++) {
        v[i] = vals[gids[i]];
        valid[i] = seen[gids[i]];
      }
      return Vectors.fromLongs(f, v, valid, n, a);
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      return List.of(emit(state.get(0), gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return emit(out, gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) vals.length * 9;
    }

    @Override
    public void reset() {
      vals = new long[16];
      seen = new boolean[16];
    }
  }

  /** MIN/MAX/ANY_VALUE of floating point (NaN is the largest value, as in SQL ordering). */
  static final class MinMaxDoubleAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private final int mode;
    private double[] vals = new double[16];
    private boolean[] seen = new boolean[16];
    private double[] buf;

    MinMaxDoubleAcc(List<Field> state, Field out, int mode) {
      this.state = state;
      this.out = out;
      this.mode = mode;
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > vals.length) {
        int c = grow(vals.length, groups);
        vals = Arrays.copyOf(vals, c);
        seen = Arrays.copyOf(seen, c);
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      double[] v = buf = Vectors.doubles(args[0], rows, buf);
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          int g = gids[i];
          double x = v[i];
          if (!seen[g]) {
            seen[g] = true;
            vals[g] = x;
          } else if (mode == MIN
              ? Double.compare(x, vals[g]) < 0
              : mode == MAX && Double.compare(x, vals[g]) > 0) {
            vals[g] = x;
          }
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      update(st, gids, rows, validMask(st[0], rows));
    }

    private FieldVector emit(Field f, int[] gids, int n, BufferAllocator a) {
      double[] v = new double[n];
      boolean[] valid = new boolean[n];
      for (int i = 0; i < n; i++) {
        v[i] = vals[gids[i]];
        valid[i] = seen[gids[i]];
      }
      return Vectors.fromDoubles(f, v, valid, n, a);
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      return List.of(emit(state.get(0), gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return emit(out, gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) vals.length * 9;
    }

    @Override
    public void reset() {
      vals = new double[16];
      seen = new boolean[16];
    }
  }

  /** MIN/MAX/ANY_VALUE of decimals, compared as 128-bit integers. */
  static final class MinMaxDecimalAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private final int mode;
    private final int scale;
    private long[] lo = new long[16];
    private long[] hi = new long[16];
    private boolean[] seen = new boolean[16];

    MinMaxDecimalAcc(List<Field> state, Field out, int mode) {
      this.state = state;
      this.out = out;
      this.mode = mode;
      this.scale = Vectors.scale(state.get(0).getType());
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > lo.length) {
        int c = grow(lo.length, groups);
        lo = Arrays.copyOf(lo, c);
        hi = Arrays.copyOf(hi, c);
        seen = Arrays.copyOf(seen, c);
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      ArrowBuf data = ((BaseFixedWidthVector) args[0]).getDataBuffer();
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          int g = gids[i];
          long l = data.getLong((long) i * 16);
          long h = data.getLong((long) i * 16 + 8);
          boolean take;
          if (!seen[g]) {
            take = true;
          } else if (mode == ANY) {
            take = false;
          } else {
            int c = h != hi[g] ? Long.compare(h, hi[g]) : Long.compareUnsigned(l, lo[g]);
            take = mode == MIN ? c < 0 : c > 0;
          }
          if (take) {
            seen[g] = true;
            lo[g] = l;
            hi[g] = h;
          }
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      update(st, gids, rows, validMask(st[0], rows));
    }

    private FieldVector emit(Field f, int[] gids, int n, BufferAllocator a) {
      long[] l = new long[n];
      BigInteger[] b = null;
      boolean[] valid = new boolean[n];
      for (int i = 0; i < n; i++) {
        int g = gids[i];
        valid[i] = seen[g];
        l[i] = lo[g];
        if (hi[g] != (lo[g] >> 63)) {
          if (b == null) {
            b = new BigInteger[n];
          }
          b[i] = Vectors.big(lo[g], hi[g]);
        }
      }
      return Vectors.fromDecimal(f, l, b, scale, valid, n, a);
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      return List.of(emit(state.get(0), gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return emit(out, gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) lo.length * 17;
    }

    @Override
    public void reset() {
      lo = new long[16];
      hi = new long[16];
      seen = new boolean[16];
    }
  }

  /** MIN/MAX/ANY_VALUE of strings and binary, compared as unsigned bytes (code point order). */
  static final class MinMaxBytesAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private final int mode;
    private byte[][] vals = new byte[16][];
    private long bytes;
    private byte[] scratch = new byte[64];

    MinMaxBytesAcc(List<Field> state, Field out, int mode) {
      this.state = state;
      this.out = out;
      this.mode = mode;
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > vals.length) {
        vals = Arrays.copyOf(vals, grow(vals.length, groups));
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      BaseVariableWidthVector v = (BaseVariableWidthVector) args[0];
      ArrowBuf offsets = v.getOffsetBuffer();
      ArrowBuf data = v.getDataBuffer();
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          int g = gids[i];
          byte[] cur = vals[g];
          if (cur != null && mode == ANY) {
            continue;
          }
          int start = offsets.getInt((long) i * 4);
          int len = offsets.getInt((long) (i + 1) * 4) - start;
          if (scratch.length < len) {
            scratch = new byte[Math.max(len, scratch.length * 2)];
          }
          data.getBytes(start, scratch, 0, len);
          boolean take = cur == null;
          if (!take) {
            int c = Arrays.compareUnsigned(scratch, 0, len, cur, 0, cur.length);
            take = mode == MIN ? c < 0 : c > 0;
          }
          if (take) {
            bytes += len - (cur == null ? 0 : cur.length);
            vals[g] = Arrays.copyOf(scratch, len);
          }
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      update(st, gids, rows, validMask(st[0], rows));
    }

    private FieldVector emit(Field f, int[] gids, int n, BufferAllocator a) {
      byte[][] v = new byte[n][];
      for (int i = 0; i < n; i++) {
        v[i] = vals[gids[i]];
      }
      return Vectors.fromBytes(f, v, n, a);
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      return List.of(emit(state.get(0), gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return emit(out, gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) vals.length * 24 + bytes;
    }

    @Override
    public void reset() {
      vals = new byte[16][];
      bytes = 0;
    }
  }
}
