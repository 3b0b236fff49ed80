package dev.quiver.binding.physical.aggregate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Accumulators that keep whole values per group (read and written in the expression package's
 * literal convention): ARG_MIN/ARG_MAX (a value and its key; splittable), STRING_AGG (the joined
 * text, splittable without ORDER BY; with ORDER BY every value and its keys). The percentiles keep
 * primitive values: {@link PercentileAcc}.
 */
final class ValueAccumulators {
  private ValueAccumulators() {}

  private static Object get(FieldVector v, int i) {
    return dev.quiver.binding.physical.expr.Vectors.getValue(v, i);
  }

  private static FieldVector build(
      Field field, Object[] values, int[] gids, int n, BufferAllocator a) {
    FieldVector v = field.createVector(a);
    try {
      v.setInitialCapacity(Math.max(n, 1));
      v.allocateNew();
      for (int i = 0; i < n; i++) {
        dev.quiver.binding.physical.expr.Vectors.setValue(v, i, values[gids[i]]);
      }
      v.setValueCount(n);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static int compare(Object a, Object b) {
    return ((Comparable) a).compareTo(b);
  }

  /** ARG_MIN(value, key) / ARG_MAX: the value of the first row with the extreme key. */
  static final class ArgExtremeAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private final boolean max;
    private Object[] values = new Object[16];
    private Object[] keys = new Object[16];

    ArgExtremeAcc(List<Field> state, Field out, boolean max) {
      this.state = state;
      this.out = out;
      this.max = max;
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > keys.length) {
        int c = GroupStates.grow(keys.length, groups);
        values = Arrays.copyOf(values, c);
        keys = Arrays.copyOf(keys, c);
      }
    }

    private void offer(int g, Object key, Object value) {
      if (key == null) {
        return;
      }
      Object current = keys[g];
      if (current == null || (max ? compare(key, current) > 0 : compare(key, current) < 0)) {
        keys[g] = key;
        values[g] = value;
      }
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int rows, boolean[] use) {
      for (int i = 0; i < rows; i++) {
        if (use == null || use[i]) {
          offer(gids[i], get(args[1], i), get(args[0], i));
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int rows) {
      for (int i = 0; i < rows; i++) {
        offer(gids[i], get(st[1], i), get(st[0], i));
      }
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      FieldVector v = build(state.get(0), values, gids, n, a);
      try {
        return List.of(v, build(state.get(1), keys, gids, n, a));
      } catch (RuntimeException e) {
        v.close();
        throw e;
      }
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      return build(out, values, gids, n, a);
    }

    @Override
    public long estimatedBytes() {
      return (long) keys.length * 64;
    }

    @Override
    public void reset() {
      values = new Object[16];
      keys = new Object[16];
    }
  }

  /**
   * STRING_AGG(value, separator): without ORDER BY, the text joined so far and the separator
   * (merging joins two parts with the separator); with ORDER BY, every value with its sort keys,
   * sorted and joined at the end (NULL keys last, as Quiver sorts by default).
   */
  static final class StringAggAcc implements Accumulator {
    private final List<Field> state;
    private final Field out;
    private final List<Boolean> descending;
    private StringBuilder[] joined = new StringBuilder[16];
    private String[] separators = new String[16];
    private List<Object[]>[] rows = newRows(16);
    private long bytes;

    StringAggAcc(List<Field> state, Field out, List<Boolean> descending) {
      this.state = state;
      this.out = out;
      this.descending = descending;
    }

    @SuppressWarnings("unchecked")
    private static List<Object[]>[] newRows(int n) {
      return new List[n];
    }

    @Override
    public void ensureCapacity(int groups) {
      if (groups > separators.length) {
        int c = GroupStates.grow(separators.length, groups);
        joined = Arrays.copyOf(joined, c);
        separators = Arrays.copyOf(separators, c);
        rows = Arrays.copyOf(rows, c);
      }
    }

    private void append(int g, String value, String separator) {
      StringBuilder sb = joined[g];
      if (sb == null) {
        joined[g] = new StringBuilder(value);
        separators[g] = separator;
      } else {
        sb.append(separator).append(value);
      }
      bytes += value.length() * 2L + 16;
    }

    @Override
    public void update(FieldVector[] args, int[] gids, int n, boolean[] use) {
      for (int i = 0; i < n; i++) {
        if (use != null && !use[i]) {
          continue;
        }
        int g = gids[i];
        String value = String.valueOf(get(args[0], i));
        String separator = args.length > 1 ? (String) get(args[1], i) : ",";
        if (descending.isEmpty()) {
          append(g, value, separator);
        } else {
          Object[] row = new Object[descending.size() + 1];
          for (int k = 0; k < descending.size(); k++) {
            row[k] = get(args[args.length - descending.size() + k], i);
          }
          row[descending.size()] = value;
          if (rows[g] == null) {
            rows[g] = new ArrayList<>();
            separators[g] = separator;
          }
          rows[g].add(row);
          bytes += value.length() * 2L + 32L * row.length;
        }
      }
    }

    @Override
    public void merge(FieldVector[] st, int[] gids, int n) {
      for (int i = 0; i < n; i++) {
        Object part = get(st[0], i);
        if (part != null) {
          append(gids[i], (String) part, (String) get(st[1], i));
        }
      }
    }

    @Override
    public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
      if (!descending.isEmpty()) {
        throw new IllegalStateException("An ordered string_agg has no mergeable state");
      }
      Object[] text = new Object[joined.length];
      for (int g = 0; g < joined.length; g++) {
        text[g] = joined[g] == null ? null : joined[g].toString();
      }
      FieldVector v = build(state.get(0), text, gids, n, a);
      try {
        return List.of(v, build(state.get(1), separators, gids, n, a));
      } catch (RuntimeException e) {
        v.close();
        throw e;
      }
    }

    @Override
    public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
      Object[] text = new Object[separators.length];
      for (int i = 0; i < n; i++) {
        int g = gids[i];
        if (descending.isEmpty()) {
          text[g] = joined[g] == null ? null : joined[g].toString();
        } else if (rows[g] != null) {
          List<Object[]> list = rows[g];
          list.sort(order());
          StringBuilder sb = new StringBuilder();
          for (int r = 0; r < list.size(); r++) {
            if (r > 0) {
              sb.append(separators[g]);
            }
            sb.append(list.get(r)[descending.size()]);
          }
          text[g] = sb.toString();
        }
      }
      return build(out, text, gids, n, a);
    }

    private Comparator<Object[]> order() {
      return (x, y) -> {
        for (int k = 0; k < descending.size(); k++) {
          Object a = x[k];
          Object b = y[k];
          if (a == null || b == null) {
            if (a != b) {
              return a == null ? 1 : -1;
            }
            continue;
          }
          int c = compare(a, b);
          if (c != 0) {
            return descending.get(k) ? -c : c;
          }
        }
        return 0;
      };
    }

    @Override
    public long estimatedBytes() {
      return (long) separators.length * 24 + bytes;
    }

    @Override
    public void reset() {
      joined = new StringBuilder[16];
      separators = new String[16];
      rows = newRows(16);
      bytes = 0;
    }
  }
}
