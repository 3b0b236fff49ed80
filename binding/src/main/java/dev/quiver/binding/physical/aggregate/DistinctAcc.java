package dev.quiver.binding.physical.aggregate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * DISTINCT: a hash set of (group, argument values) lets only the first occurrence of each value in
 * a group through to the wrapped accumulator. Its state cannot be split, so SINGLE mode only.
 */
final class DistinctAcc implements Accumulator {
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
