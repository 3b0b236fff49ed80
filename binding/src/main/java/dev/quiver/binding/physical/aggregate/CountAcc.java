package dev.quiver.binding.physical.aggregate;

import static dev.quiver.binding.physical.aggregate.GroupStates.gather;
import static dev.quiver.binding.physical.aggregate.GroupStates.grow;

import dev.quiver.binding.physical.expr.Vectors;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/** COUNT(x) / COUNT(*). */
final class CountAcc implements Accumulator {
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

  @Override
  public List<FieldVector> emitState(int[] gids, int n, BufferAllocator a) {
    return List.of(Vectors.fromLongs(state.get(0), gather(counts, gids, n), null, n, a));
  }

  @Override
  public FieldVector emitFinal(int[] gids, int n, BufferAllocator a) {
    return Vectors.fromLongs(out, gather(counts, gids, n), null, n, a);
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
