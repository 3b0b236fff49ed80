package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.expr.SingleRowExpr;
import dev.quiver.binding.physical.kernel.Raw;
import dev.quiver.binding.physical.expr.Vectors;
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
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** The intermediate-state schema of every aggregate function and the accumulators behind them. */
public final class Accumulators {
  static final ArrowType INT64 = new ArrowType.Int(64, true);
  static final ArrowType FLOAT64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  static final ArrowType BOOL = ArrowType.Bool.INSTANCE;

  private Accumulators() {}

  /**
   * The state columns a PARTIAL aggregation emits for {@code call} (and FINAL consumes), in
   * order: COUNT: count; SUM and AVG: sum (BIGINT for integers, DOUBLE for floating point,
   * DECIMAL(38, s) for decimals), count of non-null inputs; MIN, MAX, ANY_VALUE: value (argument
   * type); variances and standard deviations: count, mean, m2 (sum of squared deviations);
   * BOOL_AND, BOOL_OR: value; SINGLE_VALUE: value, count of rows (NULL values included);
   * ARG_MIN, ARG_MAX: value, key; STRING_AGG: joined text, separator; COVAR_POP, COVAR_SAMP, CORR:
   * count, means of x and y, co-moment, m2 of x and y; the percentiles have none (holistic).
   */
  public static List<Field> stateFields(AggregateCall call) {
    String n = call.name();
    return switch (call.function()) {
      case COUNT -> List.of(notNull(n + "[count]", INT64));
      case SUM, AVG -> List.of(nullable(n + "[sum]", sumType(argType(call))), notNull(n + "[count]", INT64));
      case MIN, MAX, ANY_VALUE -> List.of(nullable(n + "[value]", argType(call)));
      case VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP -> List.of(
          notNull(n + "[count]", INT64), notNull(n + "[mean]", FLOAT64), notNull(n + "[m2]", FLOAT64));
      case BOOL_AND, BOOL_OR -> List.of(nullable(n + "[value]", BOOL));
      case SINGLE_VALUE ->
          List.of(nullable(n + "[value]", argType(call)), notNull(n + "[rows]", INT64));
      case ARG_MIN, ARG_MAX -> List.of(
          nullable(n + "[value]", argType(call)), nullable(n + "[key]", call.args().get(1).dataType()));
      case STRING_AGG -> List.of(
          nullable(n + "[text]", ArrowType.Utf8.INSTANCE), nullable(n + "[separator]", ArrowType.Utf8.INSTANCE));
      case COVAR_POP, COVAR_SAMP, CORR -> CovarianceAcc.stateFields(n);
      // Holistic: no state leaves the operator (SINGLE mode only).
      case MEDIAN, PERCENTILE_CONT, PERCENTILE_DISC -> List.of();
    };
  }

  /** The final output column of {@code call}. */
  public static Field outputField(AggregateCall call) {
    return call.function() == AggregateFunction.COUNT
        ? notNull(call.name(), call.returnType())
        : nullable(call.name(), call.returnType());
  }

  static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  static Field notNull(String name, ArrowType type) {
    return new Field(name, FieldType.notNullable(type), null);
  }

  private static ArrowType argType(AggregateCall call) {
    if (call.args().isEmpty()) {
      throw new QueryTypeException(call.function() + " needs an argument (in aggregate " + call.name() + ")");
    }
    return call.args().get(0).dataType();
  }

  private static ArrowType sumType(ArrowType arg) {
    return switch (Vectors.storage(arg)) {
      case LONG, NULL -> INT64;
      case DOUBLE -> FLOAT64;
      case DECIMAL -> new ArrowType.Decimal(38, Vectors.scale(arg), 128);
      default -> throw new QueryTypeException("SUM/AVG need a numeric argument, got " + arg
          + "; cast it to a number");
    };
  }

  /** Creates the accumulator for {@code call}. */
  static Accumulator create(AggregateCall call, BufferAllocator allocator) {
    Accumulator acc = createPlain(call);
    if (call.distinct()) {
      List<Field> keyFields = new ArrayList<>();
      keyFields.add(nullable("group", INT64));
      for (int i = 0; i < call.args().size(); i++) {
        keyFields.add(nullable("arg" + i, call.args().get(i).dataType()));
      }
      return new DistinctAcc(acc, keyFields, allocator);
    }
    return acc;
  }

  private static Accumulator createPlain(AggregateCall call) {
    List<Field> state = stateFields(call);
    Field out = outputField(call);
    return switch (call.function()) {
      case COUNT -> new CountAcc(state, out);
      case SUM, AVG -> {
        boolean avg = call.function() == AggregateFunction.AVG;
        ArrowType arg = argType(call);
        yield switch (Vectors.storage(arg)) {
          case LONG, NULL -> new SumLongAcc(state, out, avg);
          case DOUBLE -> new SumDoubleAcc(state, out, avg);
          case DECIMAL -> new SumDecimalAcc(state, out, avg, Vectors.scale(arg));
          default -> throw new QueryTypeException("SUM/AVG need a numeric argument, got " + arg);
        };
      }
      case MIN, MAX, ANY_VALUE -> {
        int mode = call.function() == AggregateFunction.MIN ? MIN
            : call.function() == AggregateFunction.MAX ? MAX : ANY;
        yield valueAcc(call, state, out, mode);
      }
      case SINGLE_VALUE ->
          new SingleValueAcc(valueAcc(call, state.subList(0, 1), out, ANY), state.get(1), call);
      case VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP -> new VarianceAcc(state, out, call.function());
      case BOOL_AND, BOOL_OR -> new BoolAcc(state, out, call.function() == AggregateFunction.BOOL_AND);
      case ARG_MIN, ARG_MAX ->
          new ValueAccumulators.ArgExtremeAcc(state, out, call.function() == AggregateFunction.ARG_MAX);
      case STRING_AGG -> new ValueAccumulators.StringAggAcc(state, out, call.orderDescending());
      case COVAR_POP, COVAR_SAMP, CORR -> new CovarianceAcc(state, out, call.function());
      case MEDIAN, PERCENTILE_CONT, PERCENTILE_DISC ->
          new ValueAccumulators.PercentileAcc(
              out, call.function(), !call.orderDescending().isEmpty() && call.orderDescending().get(0));
    };
  }

  private static Accumulator valueAcc(AggregateCall call, List<Field> state, Field out, int mode) {
    return switch (Vectors.storage(argType(call))) {
      case LONG, BOOL, NULL -> new MinMaxLongAcc(state, out, mode);
      case DOUBLE -> new MinMaxDoubleAcc(state, out, mode);
      case DECIMAL -> new MinMaxDecimalAcc(state, out, mode);
      case BYTES -> new MinMaxBytesAcc(state, out, mode);
    };
  }

  static final int MIN = 0;
  static final int MAX = 1;
  static final int ANY = 2;

  /** Validity of every row of {@code v} as a mask, or null when all rows are valid. */
  static boolean[] validMask(FieldVector v, int rows) {
    boolean[] nulls = new boolean[Math.max(rows, 1)];
    if (!Vectors.nulls(v, rows, nulls)) {
      return null;
    }
    for (int i = 0; i < rows; i++) {
      nulls[i] = !nulls[i];
    }
    return nulls;
  }

  static int grow(int current, int needed) {
    int c = Math.max(current, 16);
    while (c < needed) {
      c *= 2;
    }
    return c;
  }

  static QuiverException sumOverflow(Field out) {
    return new QuiverException("SUM overflowed BIGINT in " + out.getName()
        + "; cast the argument to DECIMAL(38, 0) or DOUBLE");
  }

  /**
   * SINGLE_VALUE: any value of the group (an ANY_VALUE accumulator) and its row count, NULL
   * values included, failing as soon as a group holds a second row. It gets every row the filter
   * keeps, NULL arguments too, and passes the non-NULL ones on.
   */
  static final class SingleValueAcc implements Accumulator {
    private final Accumulator value;
    private final Field rowsField;
    private final AggregateCall call;
    private long[] rows = new long[16];

    SingleValueAcc(Accumulator value, Field rowsField, AggregateCall call) {
      this.value = value;
      this.rowsField = rowsField;
      this.call = call;
    }

    private QuiverException moreThanOneRow() {
      return SingleRowExpr.moreThanOneRow(call.name());
    }

    @Override
    public void ensureCapacity(int groups) {
      value.ensureCapacity(groups);
      if (groups > rows.length) {
        rows = Arrays.copyOf(rows, grow(rows.length, groups));
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int n, boolean[] use) {
      for (int i = 0; i < n; i++) {
        if ((use == null || use[i]) && ++rows[gids[i]] > 1) {
          throw moreThanOneRow();
        }
      }
      boolean[] valid = validMask(args[0], n);
      if (valid != null && use != null) {
        for (int i = 0; i < n; i++) {
          valid[i] &= use[i];
        }
      }
      value.update(args, gids, n, valid != null ? valid : use);
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int n) {
      long[] counts = Vectors.longs(st[1], n, null);
      for (int i = 0; i < n; i++) {
        if ((rows[gids[i]] += counts[i]) > 1) {
          throw moreThanOneRow();
        }
      }
      value.merge(new FieldVector[] {st[0]}, gids, n);
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      long[] counts = new long[n];
      for (int i = 0; i < n; i++) {
        counts[i] = rows[gids[i]];
      }
      List<FieldVector> out = new ArrayList<>(value.emitState(gids, n, a));
      out.add(Vectors.fromLongs(rowsField, counts, null, n, a));
      return out;
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return value.emitFinal(gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return value.estimatedBytes() + (long) rows.length * 8;
    }

    @Override
    public void reset() {
      value.reset();
      rows = new long[16];
    }
  }

  /** COUNT(x) / COUNT(*). */
  static final class CountAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private long[] counts = new long[16];

    CountAcc(List<Field> state, Field out) {
      this.state = state;
      this.out = out;
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > counts.length) {
        counts = Arrays.copyOf(counts, grow(counts.length, groups));
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      long[] c = counts;
      if (use == null) {
        for (int i = 0; i < rows; i++) {
          c[gids[i]]++;
        }
      } else {
        for (int i = 0; i < rows; i++) {
          if (use[i]) {
            c[gids[i]]++;
          }
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      long[] v = Vectors.longs(st[0], rows, null);
      for (int i = 0; i < rows; i++) {
        counts[gids[i]] += v[i];
      }
    }

    private long[] gather(int[] gids, int n) {
      long[] v = new long[n];
      for (int i = 0; i < n; i++) {
        v[i] = counts[gids[i]];
      }
      return v;
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      return List.of(Vectors.fromLongs(state.get(0), gather(gids, n), null, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return Vectors.fromLongs(out, gather(gids, n), null, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) counts.length * 8;
    }

    @Override
    public void reset() {
      counts = new long[16];
    }
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
      long[] c = new long[n];
      for (int i = 0; i < n; i++) {
        c[i] = counts[gids[i]];
      }
      return Vectors.fromLongs(state.get(1), c, null, n, a);
    }

    /** AVG's result from an exact sum. */
    FieldVector average(BigDecimal[] sums, boolean[] valid, int[] gids, int n, BufferAllocator a) {
      if (out.getType() instanceof ArrowType.Decimal d) {
        BigInteger[] big = new BigInteger[n];
        for (int i = 0; i < n; i++) {
          if (valid[i]) {
            big[i] = sums[i].divide(BigDecimal.valueOf(counts[gids[i]]), d.getScale(), RoundingMode.HALF_UP)
                .unscaledValue();
          }
        }
        return Vectors.fromDecimal(out, new long[n], big, d.getScale(), valid, n, a);
      }
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        if (valid[i]) {
          r[i] = sums[i].divide(BigDecimal.valueOf(counts[gids[i]]), MathContext.DECIMAL128).doubleValue();
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

    private long[] gather(int[] gids, int n) {
      long[] v = new long[n];
      for (int i = 0; i < n; i++) {
        v[i] = sums[gids[i]];
      }
      return v;
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      FieldVector s = Vectors.fromLongs(state.get(0), gather(gids, n), validity(gids, n), n, a);
      return List.of(s, countColumn(gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      boolean[] valid = validity(gids, n);
      if (!avg) {
        return Vectors.fromLongs(out, gather(gids, n), valid, n, a);
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
      FieldVector s = Vectors.fromDoubles(state.get(0), gather(gids, n, false), validity(gids, n), n, a);
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
      for (int i = 0; i < rows; i++) {
        if (n != null ? n[i] > 0 : use == null || use[i]) {
          int g = gids[i];
          add(g, Raw.getLong(data + i * 16L), Raw.getLong(data + i * 16L + 8));
          counts[g] += n != null ? n[i] : 1;
        }
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      fold(args[0], gids, rows, use, null);
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      fold(st[0], gids, rows, null, Vectors.longs(st[1], rows, null));
    }

    private long[] gatherLo(int[] gids, int n) {
      long[] v = new long[n];
      for (int i = 0; i < n; i++) {
        v[i] = sums[gids[i]];
      }
      return v;
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
      FieldVector s = Vectors.fromDecimal(
          state.get(0), gatherLo(gids, n), gatherBig(gids, n), scale, validity(gids, n), n, a);
      return List.of(s, countColumn(gids, n, a));
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      boolean[] valid = validity(gids, n);
      long[] lo = gatherLo(gids, n);
      BigInteger[] b = gatherBig(gids, n);
      if (!avg) {
        return Vectors.fromDecimal(out, lo, b, scale, valid, n, a);
      }
      BigDecimal[] s = new BigDecimal[n];
      for (int i = 0; i < n; i++) {
        s[i] = b != null && b[i] != null ? new BigDecimal(b[i], scale) : BigDecimal.valueOf(lo[i], scale);
      }
      return average(s, valid, gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) counts.length * (big == null ? 16 : 24);
    }
  }

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
          } else if (mode == MIN ? Double.compare(x, vals[g]) < 0
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

  /** Variances and standard deviations with Welford's update and Chan's merge. */
  static final class VarianceAcc implements Accumulator {
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

  /** BOOL_AND (minimum of false < true) and BOOL_OR (maximum); 0 marks an empty group. */
  static final class BoolAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private final boolean and;
    private byte[] st = new byte[16];

    BoolAcc(List<Field> state, Field out, boolean and) {
      this.state = state;
      this.out = out;
      this.and = and;
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > st.length) {
        st = Arrays.copyOf(st, grow(st.length, groups));
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      long[] v = Vectors.longs(args[0], rows, null);
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          int g = gids[i];
          byte x = (byte) (v[i] + 1);
          byte cur = st[g];
          st[g] = cur == 0 ? x : and ? (byte) Math.min(cur, x) : (byte) Math.max(cur, x);
        }
      }
    }

    @Override
    public void merge(FieldVector[] s, int[] gids, int rows) {
      update(s, gids, rows, validMask(s[0], rows));
    }

    private FieldVector emit(Field f, int[] gids, int n, BufferAllocator a) {
      long[] v = new long[n];
      boolean[] valid = new boolean[n];
      for (int i = 0; i < n; i++) {
        byte x = st[gids[i]];
        valid[i] = x != 0;
        v[i] = x == 2 ? 1 : 0;
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
      return st.length;
    }

    @Override
    public void reset() {
      st = new byte[16];
    }
  }

  /**
   * DISTINCT: a hash set of (group, argument values) lets only the first occurrence of each value
   * in a group through to the wrapped accumulator. Its state cannot be split, so SINGLE mode only.
   */
  static final class DistinctAcc implements Accumulator {
    private final Accumulator inner;
    private final GroupTable seen;
    private final BufferAllocator allocator;
    private int[] ids = new int[0];
    private boolean[] first = new boolean[0];

    DistinctAcc(Accumulator inner, List<Field> keyFields, BufferAllocator allocator) {
      this.inner = inner;
      this.seen = new GroupTable(keyFields);
      this.allocator = allocator;
    }

    @Override
    public void ensureCapacity(int groups) {
      inner.ensureCapacity(groups);
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      if (ids.length < rows) {
        ids = new int[rows];
      }
      boolean[] fresh = new boolean[Math.max(rows, 1)];
      try (BigIntVector g = new BigIntVector("group", allocator)) {
        g.allocateNew(Math.max(rows, 1));
        ArrowBuf data = g.getDataBuffer();
        for (int i = 0; i < rows; i++) {
          data.setLong((long) i * 8, gids[i]);
          g.setIndexDefined(i);
        }
        g.setValueCount(rows);
        List<FieldVector> keys = new ArrayList<>(args.length + 1);
        keys.add(g);
        keys.addAll(Arrays.asList(args));
        int before = seen.size();
        seen.findOrInsert(keys, rows, use, ids);
        int added = seen.size() - before;
        if (first.length < added) {
          first = new boolean[added];
        } else {
          Arrays.fill(first, 0, added, false);
        }
        for (int i = 0; i < rows; i++) {
          int d = ids[i] - before;
          if (d >= 0 && !first[d]) {
            first[d] = true;
            fresh[i] = true;
          }
        }
      }
      inner.update(args, gids, rows, fresh);
    }

    @Override
    public void merge(FieldVector[] state, int[] gids, int rows) {
      throw new IllegalStateException("DISTINCT aggregates have no mergeable state");
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      throw new IllegalStateException("DISTINCT aggregates have no mergeable state");
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return inner.emitFinal(gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return inner.estimatedBytes() + seen.estimatedBytes();
    }

    @Override
    public void reset() {
      inner.reset();
      seen.reset();
    }
  }
}
