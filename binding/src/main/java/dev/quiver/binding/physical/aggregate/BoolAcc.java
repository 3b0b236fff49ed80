package dev.quiver.binding.physical.aggregate;

import static dev.quiver.binding.physical.aggregate.GroupStates.grow;
import static dev.quiver.binding.physical.aggregate.GroupStates.validMask;

import dev.quiver.binding.physical.expr.Vectors;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/** BOOL_AND (minimum of false < true) and BOOL_OR (maximum); 0 marks an empty group. */
final class BoolAcc implements Accumulator {
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
