package dev.quiver.binding.physical.sort;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.SortField;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Streaming k-way merge of sorted streams into one sorted stream of batches of up to {@code
 * batchSize} rows, stopping after {@code fetch} rows when fetch >= 0. Ties keep the order of the
 * sources. Owns (and closes) its sources.
 */
public final class SortedMerge implements BatchStream {
  private final Schema schema;
  private final List<SortField> order;
  private final List<BatchStream> sources;
  private final BufferAllocator allocator;
  private final int batchSize;
  private long remaining;
  private Cursor[] cursors;
  private int[] heap;
  private int heapSize;
  private final List<VectorSchemaRoot> pending = new ArrayList<>();
  private final List<VectorSchemaRoot> retired = new ArrayList<>();
  private boolean closed;

  private static final class Cursor {
    final BatchStream source;
    VectorSchemaRoot batch;
    SortKeys keys;
    int pos;
    int slot = -1;

    Cursor(BatchStream source) {
      this.source = source;
    }
  }

  /** Creates the merge over {@code sources}, each sorted by {@code order}. */
  public SortedMerge(
      Schema schema,
      List<SortField> order,
      List<BatchStream> sources,
      BufferAllocator allocator,
      int batchSize,
      long fetch) {
    this.schema = schema;
    this.order = List.copyOf(order);
    this.sources = new ArrayList<>(sources);
    this.allocator = allocator;
    this.batchSize = Math.max(1, batchSize);
    this.remaining = fetch < 0 ? Long.MAX_VALUE : fetch;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public VectorSchemaRoot next() {
    if (closed) {
      return null;
    }
    if (cursors == null) {
      init();
    }
    if (remaining == 0 || heapSize == 0) {
      return null;
    }
    int target = (int) Math.min(batchSize, remaining);
    int[] src = new int[target];
    int[] rows = new int[target];
    int count = 0;
    while (count < target && heapSize > 0) {
      Cursor c = cursors[heap[0]];
      if (c.slot < 0) {
        c.slot = pending.size();
        pending.add(c.batch);
      }
      src[count] = c.slot;
      rows[count] = c.pos;
      count++;
      c.pos++;
      if (c.pos >= c.batch.getRowCount()) {
        retired.add(c.batch);
        c.batch = null;
        c.slot = -1;
        if (!advance(c)) {
          heap[0] = heap[--heapSize];
        }
      }
      siftDown(0);
    }
    VectorSchemaRoot out;
    try {
      out = Interleave.interleave(schema, pending, src, rows, count, allocator);
    } finally {
      retired.forEach(VectorSchemaRoot::close);
      retired.clear();
      pending.clear();
      for (Cursor c : cursors) {
        c.slot = -1;
      }
    }
    remaining -= count;
    return out;
  }

  private void init() {
    cursors = new Cursor[sources.size()];
    heap = new int[cursors.length];
    for (int i = 0; i < cursors.length; i++) {
      cursors[i] = new Cursor(sources.get(i));
      if (remaining > 0 && advance(cursors[i])) {
        heap[heapSize++] = i;
      }
    }
    for (int i = heapSize / 2 - 1; i >= 0; i--) {
      siftDown(i);
    }
  }

  /** Loads the cursor's next non-empty batch; false when its source is exhausted. */
  private boolean advance(Cursor c) {
    while (true) {
      VectorSchemaRoot b = c.source.next();
      if (b == null) {
        return false;
      }
      if (b.getRowCount() == 0) {
        b.close();
        continue;
      }
      c.batch = b;
      c.pos = 0;
      c.keys = SortKeys.extract(b, order, allocator);
      return true;
    }
  }

  private boolean less(int i, int j) {
    Cursor a = cursors[i];
    Cursor b = cursors[j];
    int c = a.keys.compare(a.pos, b.keys, b.pos);
    return c < 0 || (c == 0 && i < j);
  }

  private void siftDown(int i) {
    int n = heapSize;
    int x = heap[i];
    while (true) {
      int l = 2 * i + 1;
      if (l >= n) {
        break;
      }
      int r = l + 1;
      int m = r < n && less(heap[r], heap[l]) ? r : l;
      if (!less(heap[m], x)) {
        break;
      }
      heap[i] = heap[m];
      i = m;
    }
    heap[i] = x;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<AutoCloseable> all = new ArrayList<>(retired);
    if (cursors != null) {
      for (Cursor c : cursors) {
        // A cursor slot is empty when the merge failed while filling it.
        if (c != null) {
          all.add(c.batch);
        }
      }
    }
    all.addAll(sources);
    retired.clear();
    dev.quiver.binding.physical.kernel.Batches.closeAll(all);
  }
}
