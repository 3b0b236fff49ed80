package dev.quiver.binding.physical.aggregate;

import static dev.quiver.binding.physical.aggregate.GroupStates.grow;

import dev.quiver.binding.physical.expr.Vectors;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/** Variances and standard deviations with Welford's update and Chan's merge. */
final class VarianceAcc implements Accumulator {
  private final List<Field> state;
  private final Field out;
  private final AggregateFunction fn;
  private long[] count = new long[16];
  private double[] mean = new double[16];
  private double[] m2 = new double[16];

  VarianceAcc(List<Field> state, Field out, AggregateFunction fn) {
    this.state = state;
    this.out = out;
    this.fn = fn;
  }

  @Override
  public void ensureCapacity(int groups) {
    if (groups > count.length) {
      int c = grow(count.length, groups);
      count = Arrays.copyOf(count, c);
      mean = Arrays.copyOf(mean, c);
      m2 = Arrays.copyOf(m2, c);
    }
  }

  @Override
  public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
    double[] v = Vectors.doubles(args[0], rows, null);
    for (int i = 0; i < rows; i++) {
      if (use == null || use[i]) {
        int g = gids[i];
        long n = ++count[g];
        double delta = v[i] - mean[g];
        mean[g] += delta / n;
        m2[g] += delta * (v[i] - mean[g]);
      }
    }
  }

  @Override
  public void merge(FieldVector[] st, int[] gids, int rows) {
    long[] nb = Vectors.longs(st[0], rows, null);
    double[] mb = Vectors.doubles(st[1], rows, null);
    double[] qb = Vectors.doubles(st[2], rows, null);
    for (int i = 0; i < rows; i++) {
      if (nb[i] == 0) {
        continue;
      }
      int g = gids[i];
      long na = count[g];
      long n = na + nb[i];
      double delta = mb[i] - mean[g];
      mean[g] += delta * nb[i] / n;
      m2[g] += qb[i] + delta * delta * ((double) na * nb[i] / n);
      count[g] = n;
    }
  }

  @Override
  public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
    long[] c = new long[n];
    double[] m = new double[n];
    double[] q = new double[n];
    for (int i = 0; i < n; i++) {
      int g = gids[i];
      c[i] = count[g];
      m[i] = mean[g];
      q[i] = m2[g];
    }
    FieldVector cv = Vectors.fromLongs(state.get(0), c, null, n, a);
    try {
      FieldVector mv = Vectors.fromDoubles(state.get(1), m, null, n, a);
      return List.of(cv, mv, Vectors.fromDoubles(state.get(2), q, null, n, a));
    } catch (RuntimeException e) {
      cv.close();
      throw e;
    }
  }

  @Override
  public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
    boolean sample = fn == AggregateFunction.VAR_SAMP || fn == AggregateFunction.STDDEV_SAMP;
    boolean sqrt = fn == AggregateFunction.STDDEV_POP || fn == AggregateFunction.STDDEV_SAMP;
    double[] r = new double[n];
    boolean[] valid = new boolean[n];
    for (int i = 0; i < n; i++) {
      int g = gids[i];
      long c = count[g];
      if (sample ? c > 1 : c > 0) {
        double var = Math.max(0, m2[g] / (sample ? c - 1 : c));
        r[i] = sqrt ? Math.sqrt(var) : var;
        valid[i] = true;
      }
    }
    return Vectors.fromDoubles(out, r, valid, n, a);
  }

  @Override
  public long estimatedBytes() {
    return (long) count.length * 24;
  }

  @Override
  public void reset() {
    count = new long[16];
    mean = new double[16];
    m2 = new double[16];
  }
}
