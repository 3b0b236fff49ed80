package dev.quiver.binding.physical.aggregate;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.expr.Vectors;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * MEDIAN(x), PERCENTILE_CONT(f) and PERCENTILE_DISC(f) WITHIN GROUP (ORDER BY x [DESC]) over
 * arguments (f, x), or (x) for MEDIAN: every non-NULL x of a group, ordered at the end. CONT
 * interpolates between the values at position f * (n - 1); DISC gives the first value whose
 * cumulative share reaches f (PostgreSQL's definition). Holistic: SINGLE mode only.
 *
 * <p>Values are appended as (group, value) pairs to two primitive arrays, numbers, dates and
 * timestamps as a {@code long} whose signed order is the values' order (a double's bits are flipped
 * so that they sort as {@link Double#compare} does; a decimal of at most 18 digits is its unscaled
 * long). At the end one counting pass lays the values out group after group and each group's run is
 * sorted as primitives: no object per row, one sort per group. Other types (text, booleans,
 * intervals) keep their objects and sort them by their natural order.
 */
final class PercentileAcc implements Accumulator {
  /** How x's values are held. */
  private enum Kind {
    LONG,
    DOUBLE,
    DECIMAL,
    DATE,
    TIMESTAMP,
    OBJECT
  }

  private final Field out;
  private final AggregateFunction fn;
  private final boolean descending;
  private Kind kind;
  private int decimalScale;
  private double[] fractions = new double[16];
  private int size;
  private int[] groupOf = new int[0];
  private long[] keys = new long[0];
  private Object[] objects = new Object[0];

  /** Set by {@link #layOut}: group g's sorted values are at {@code [start[g], start[g + 1])}. */
  private int[] start;

  private long[] sortedKeys;
  private Object[] sortedObjects;

  PercentileAcc(Field out, AggregateFunction fn, boolean descending) {
    this.out = out;
    this.fn = fn;
    this.descending = descending;
  }

  @Override
  public void ensureCapacity(int groups) {
    if (groups > fractions.length) {
      fractions = Arrays.copyOf(fractions, GroupStates.grow(fractions.length, groups));
    }
  }

  @Override
  public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
    FieldVector x = args[args.length - 1];
    if (kind == null) {
      kind = kindOf(x);
    }
    start = null;
    reserve(rows);
    for (int i = 0; i < rows; i++) {
      if (use != null && !use[i]) {
        continue;
      }
      int g = gids[i];
      fractions[g] = args.length > 1 ? fraction(args[0], i) : 0.5;
      groupOf[size] = g;
      if (kind == Kind.OBJECT) {
        objects[size] = Vectors.getValue(x, i);
      } else {
        keys[size] = key(x, i);
      }
      size++;
    }
  }

  private Kind kindOf(FieldVector x) {
    if (x instanceof BigIntVector
        || x instanceof IntVector
        || x instanceof SmallIntVector
        || x instanceof TinyIntVector) {
      return Kind.LONG;
    }
    if (x instanceof Float8Vector || x instanceof Float4Vector) {
      return Kind.DOUBLE;
    }
    if (x instanceof DecimalVector d && d.getPrecision() <= 18) {
      decimalScale = d.getScale();
      return Kind.DECIMAL;
    }
    if (x instanceof DateDayVector) {
      return Kind.DATE;
    }
    if (x instanceof TimeStampVector) {
      return Kind.TIMESTAMP;
    }
    return Kind.OBJECT;
  }

  /** Row i of x as a long whose signed order is the values' order (see the class comment). */
  private long key(FieldVector x, int i) {
    return switch (kind) {
      case LONG -> integer(x, i);
      case DOUBLE -> {
        double d = x instanceof Float8Vector v ? v.get(i) : ((Float4Vector) x).get(i);
        long bits = Double.doubleToLongBits(d);
        yield bits ^ ((bits >> 63) & Long.MAX_VALUE);
      }
      // A decimal of at most 18 digits fits the low 8 bytes of its 16-byte two's complement.
      case DECIMAL -> ((DecimalVector) x).getDataBuffer().getLong((long) i * 16);
      case DATE -> ((DateDayVector) x).get(i);
      case TIMESTAMP -> (Long) Vectors.getValue(x, i);
      case OBJECT -> throw new IllegalStateException("objects have no key");
    };
  }

  private static long integer(FieldVector x, int i) {
    if (x instanceof BigIntVector v) {
      return v.get(i);
    }
    if (x instanceof IntVector v) {
      return v.get(i);
    }
    if (x instanceof SmallIntVector v) {
      return v.get(i);
    }
    return ((TinyIntVector) x).get(i);
  }

  /** The value {@link #key} encoded, in the expression package's literal convention. */
  private Object value(long key) {
    return switch (kind) {
      case LONG, TIMESTAMP -> key;
      case DOUBLE -> Double.longBitsToDouble(key ^ ((key >> 63) & Long.MAX_VALUE));
      case DECIMAL -> BigDecimal.valueOf(key, decimalScale);
      case DATE -> LocalDate.ofEpochDay(key);
      case OBJECT -> throw new IllegalStateException("objects have no key");
    };
  }

  private double fraction(FieldVector v, int i) {
    double f;
    if (v instanceof Float8Vector d) {
      f = d.get(i);
    } else if (v instanceof DecimalVector d && d.getPrecision() <= 18) {
      ArrowBuf data = d.getDataBuffer();
      f = data.getLong((long) i * 16) / Math.pow(10, d.getScale());
    } else {
      Object value = Vectors.getValue(v, i);
      if (!(value instanceof Number n)) {
        throw new QueryTypeException(name() + ": the fraction must be a number, got " + value);
      }
      f = n.doubleValue();
    }
    if (!(f >= 0 && f <= 1)) {
      throw new QueryTypeException(name() + ": the fraction must be between 0 and 1, got " + f);
    }
    return f;
  }

  private String name() {
    return fn.name().toLowerCase(Locale.ROOT);
  }

  private void reserve(int more) {
    if (size + more <= groupOf.length) {
      return;
    }
    int c = Math.max(size + more, Math.max(1024, groupOf.length * 2));
    groupOf = Arrays.copyOf(groupOf, c);
    if (kind == Kind.OBJECT) {
      objects = Arrays.copyOf(objects, c);
    } else {
      keys = Arrays.copyOf(keys, c);
    }
  }

  @Override
  public void merge(FieldVector[] state, int[] gids, int rows) {
    throw new IllegalStateException(fn + " has no mergeable state");
  }

  @Override
  public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
    throw new IllegalStateException(fn + " has no mergeable state");
  }

  /** Counting sort by group, then each group's run sorted: {@link #start} and the sorted arrays. */
  private void layOut() {
    int groups = fractions.length;
    start = new int[groups + 1];
    for (int i = 0; i < size; i++) {
      start[groupOf[i] + 1]++;
    }
    for (int g = 0; g < groups; g++) {
      start[g + 1] += start[g];
    }
    int[] next = Arrays.copyOf(start, groups);
    if (kind == Kind.OBJECT) {
      sortedObjects = new Object[size];
      for (int i = 0; i < size; i++) {
        sortedObjects[next[groupOf[i]]++] = objects[i];
      }
      for (int g = 0; g < groups; g++) {
        Arrays.sort(sortedObjects, start[g], start[g + 1], ValueAccumulators::compare);
      }
    } else {
      sortedKeys = new long[size];
      for (int i = 0; i < size; i++) {
        sortedKeys[next[groupOf[i]]++] = keys[i];
      }
      for (int g = 0; g < groups; g++) {
        Arrays.sort(sortedKeys, start[g], start[g + 1]);
      }
    }
  }

  @Override
  public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
    if (start == null) {
      layOut();
    }
    Object[] result = new Object[n];
    for (int i = 0; i < n; i++) {
      int g = gids[i];
      int count = start[g + 1] - start[g];
      if (count > 0) {
        result[i] =
            fn == AggregateFunction.PERCENTILE_DISC
                ? discrete(g, count, fractions[g])
                : continuous(g, count, fractions[g]);
      }
    }
    FieldVector v = out.createVector(a);
    try {
      v.setInitialCapacity(Math.max(n, 1));
      v.allocateNew();
      for (int i = 0; i < n; i++) {
        Vectors.setValue(v, i, result[i]);
      }
      v.setValueCount(n);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  /** The value at position {@code at} of group g's values in the call's order. */
  private Object at(int g, int count, int at) {
    int index = start[g] + (descending ? count - 1 - at : at);
    return kind == Kind.OBJECT ? sortedObjects[index] : value(sortedKeys[index]);
  }

  private Object discrete(int g, int count, double f) {
    int at = (int) Math.ceil(f * count) - 1;
    return at(g, count, Math.max(0, Math.min(count - 1, at)));
  }

  private Object continuous(int g, int count, double f) {
    double pos = f * (count - 1);
    int lo = (int) Math.floor(pos);
    int hi = (int) Math.ceil(pos);
    Object a = at(g, count, lo);
    Object b = at(g, count, hi);
    if (!(a instanceof Number) || !(b instanceof Number)) {
      throw new QueryTypeException(name() + " needs a numeric argument, got " + a);
    }
    if (out.getType() instanceof ArrowType.Decimal d) {
      // DuckDB interpolates decimals at their own scale, rounding half to even.
      BigDecimal x = toBig(a);
      BigDecimal y = toBig(b);
      return x.add(y.subtract(x).multiply(BigDecimal.valueOf(pos - lo), MathContext.DECIMAL128))
          .setScale(d.getScale(), RoundingMode.HALF_EVEN);
    }
    double x = ((Number) a).doubleValue();
    double y = ((Number) b).doubleValue();
    return lo == hi ? x : x + (pos - lo) * (y - x);
  }

  private static BigDecimal toBig(Object v) {
    return v instanceof BigDecimal d ? d : new BigDecimal(v.toString());
  }

  @Override
  public long estimatedBytes() {
    long perValue = kind == Kind.OBJECT ? 4 + 8 + 48 : 4 + 8;
    return (long) fractions.length * 8 + (long) groupOf.length * perValue;
  }

  @Override
  public void reset() {
    fractions = new double[16];
    size = 0;
    groupOf = new int[0];
    keys = new long[0];
    objects = new Object[0];
    start = null;
    sortedKeys = null;
    sortedObjects = null;
  }
}
