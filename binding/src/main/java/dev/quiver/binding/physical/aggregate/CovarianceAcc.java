package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.physical.expr.Vectors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * COVAR_POP, COVAR_SAMP and CORR of (y, x) over the rows where both are non-NULL, with Welford's
 * online update and the pairwise merge of Chan et al., so partial states from any split of the rows
 * combine exactly as the rows would: state (count, mean x, mean y, co-moment, m2 x, m2 y).
 */
final class CovarianceAcc implements Accumulator {
  private final List<Field> state;
  private final Field out;
  private final AggregateFunction fn;
  private long[] count = new long[16];
  private double[] meanX = new double[16];
  private double[] meanY = new double[16];
  private double[] c2 = new double[16];
  private double[] m2x = new double[16];
  private double[] m2y = new double[16];

  CovarianceAcc(List<Field> state, Field out, AggregateFunction fn) {
    this.state = state;
    this.out = out;
    this.fn = fn;
  }

  /** The state columns, all NOT NULL: count BIGINT, then five DOUBLEs. */
  static List<Field> stateFields(String name) {
    List<Field> f = new ArrayList<>();
    f.add(Accumulators.notNull(name + "[count]", Accumulators.INT64));
    for (String s : List.of("mean_x", "mean_y", "c2", "m2_x", "m2_y")) {
      f.add(Accumulators.notNull(name + "[" + s + "]", Accumulators.FLOAT64));
    }
    return f;
  }

  @Override
  public void ensureCapacity(int groups) {
    if (groups > count.length) {
      int c = GroupStates.grow(count.length, groups);
      count = Arrays.copyOf(count, c);
      meanX = Arrays.copyOf(meanX, c);
      meanY = Arrays.copyOf(meanY, c);
      c2 = Arrays.copyOf(c2, c);
      m2x = Arrays.copyOf(m2x, c);
      m2y = Arrays.copyOf(m2y, c);
    }
  }

  @Override
  public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
    double[] y = Vectors.doubles(args[0], rows, null);
    double[] x = Vectors.doubles(args[1], rows, null);
    for (int i = 0; i < rows; i++) {
      if (use == null || use[i]) {
        int g = gids[i];
        long n = ++count[g];
        double dx = x[i] - meanX[g];
        double dy = y[i] - meanY[g];
        meanX[g] += dx / n;
        meanY[g] += dy / n;
        c2[g] += dx * (y[i] - meanY[g]);
        m2x[g] += dx * (x[i] - meanX[g]);
        m2y[g] += dy * (y[i] - meanY[g]);
      }
    }
  }

  @Override
  public void merge(FieldVector[] st, int[] gids, int rows) {
    long[] nb = Vectors.longs(st[0], rows, null);
    double[] mxb = Vectors.doubles(st[1], rows, null);
    double[] myb = Vectors.doubles(st[2], rows, null);
    double[] cb = Vectors.doubles(st[3], rows, null);
    double[] qxb = Vectors.doubles(st[4], rows, null);
    double[] qyb = Vectors.doubles(st[5], rows, null);
    for (int i = 0; i < rows; i++) {
      if (nb[i] == 0) {
        continue;
      }
      int g = gids[i];
      long na = count[g];
      long n = na + nb[i];
      double dx = mxb[i] - meanX[g];
      double dy = myb[i] - meanY[g];
      double w = (double) na * nb[i] / n;
      c2[g] += cb[i] + dx * dy * w;
      m2x[g] += qxb[i] + dx * dx * w;
      m2y[g] += qyb[i] + dy * dy * w;
      meanX[g] += dx * nb[i] / n;
      meanY[g] += dy * nb[i] / n;
      count[g] = n;
    }
  }

  @Override
  public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
    long[] c = new long[n];
    double[][] d = new double[5][n];
    double[][] src = {meanX, meanY, c2, m2x, m2y};
    for (int i = 0; i < n; i++) {
      int g = gids[i];
      c[i] = count[g];
      for (int k = 0; k < 5; k++) {
        d[k][i] = src[k][g];
      }
    }
    List<FieldVector> vs = new ArrayList<>();
    try {
      vs.add(Vectors.fromLongs(state.get(0), c, null, n, a));
      for (int k = 0; k < 5; k++) {
        vs.add(Vectors.fromDoubles(state.get(k + 1), d[k], null, n, a));
      }
      return vs;
    } catch (RuntimeException e) {
      vs.forEach(FieldVector::close);
      throw e;
    }
  }

  @Override
  public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
    double[] r = new double[n];
    boolean[] valid = new boolean[n];
    for (int i = 0; i < n; i++) {
      int g = gids[i];
      long c = count[g];
      switch (fn) {
        case COVAR_POP -> {
          if (c > 0) {
            r[i] = c2[g] / c;
            valid[i] = true;
          }
        }
        case COVAR_SAMP -> {
          if (c > 1) {
            r[i] = c2[g] / (c - 1);
            valid[i] = true;
          }
        }
        default -> {
          // CORR: NULL for fewer than two rows or a constant column (PostgreSQL, DuckDB).
          double den = Math.sqrt(m2x[g] * m2y[g]);
          if (c > 1 && den != 0 && Double.isFinite(den)) {
            r[i] = Math.max(-1, Math.min(1, c2[g] / den));
            valid[i] = true;
          }
        }
      }
    }
    return Vectors.fromDoubles(out, r, valid, n, a);
  }

  @Override
  public long estimatedBytes() {
    return (long) count.length * 48;
  }

  @Override
  public void reset() {
    count = new long[16];
    meanX = new double[16];
    meanY = new double[16];
    c2 = new double[16];
    m2x = new double[16];
    m2y = new double[16];
  }
}
