package dev.quiver.binding.physical.join;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.BatchCoalescer;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Output stream of a join operator that produces its batches by repeated {@link #step()}s. */
abstract class JoinOutputStream implements BatchStream {
  protected final BufferAllocator allocator;
  protected final int batchSize;
  private final TaskContext context;
  private final ArrayDeque<VectorSchemaRoot> ready = new ArrayDeque<>();
  private final BatchCoalescer coalescer;

  /** Set by {@link #step()} once no further batch will be added. */
  protected boolean finished;

  private boolean closed;

  JoinOutputStream(TaskContext context) {
    this.context = context;
    this.allocator = context.allocator();
    this.batchSize = Math.max(1, context.batchSize());
    this.coalescer = new BatchCoalescer(batchSize, allocator);
  }

  /** Advances the join by one unit of work, possibly adding output with {@link #addReady}. */
  protected abstract void step();

  /** Names the memory consumer in resource-exhaustion messages. */
  protected abstract String memoryConsumer();

  /** Adds this stream's own resources to {@code toClose} and forgets them. */
  protected abstract void releaseResources(List<AutoCloseable> toClose);

  @Override
  public final VectorSchemaRoot next() {
    if (closed) {
      return null;
    }
    try {
      while (true) {
        if (!ready.isEmpty()) {
          return ready.poll();
        }
        if (finished) {
          return coalescer.flush();
        }
        // A join whose steps add nothing (a condition no pair meets) would otherwise run to its
        // end after the query was cancelled.
        context.checkCancelled();
        step();
      }
    } catch (OutOfMemoryException e) {
      throw new ResourcesExhaustedException(
          "Resources exhausted: "
              + memoryConsumer()
              + " could not allocate Arrow memory ("
              + e.getMessage()
              + "); raise quiver.execution.memory_limit",
          e);
    }
  }

  /** Queues {@code out} for output (small batches merged), or closes it when it has no rows. */
  protected final void addReady(VectorSchemaRoot out) {
    ready.addAll(coalescer.add(out));
  }

  /** Queues rows {@code idx} of {@code batch}, at most {@code batchSize} rows per batch. */
  protected final void emitRows(VectorSchemaRoot batch, int[] idx) {
    for (int off = 0; off < idx.length; off += batchSize) {
      int n = Math.min(batchSize, idx.length - off);
      addReady(Take.take(batch, Arrays.copyOfRange(idx, off, off + n), n, allocator));
    }
  }

  /**
   * Queues rows of one side with the other side null: rows {@code leftRows} of {@code left} when
   * not null, otherwise rows {@code rightRows} of {@code right}.
   */
  protected final void emitPadded(
      VectorSchemaRoot left, int[] leftRows, VectorSchemaRoot right, int[] rightRows) {
    int[] rows = leftRows != null ? leftRows : rightRows;
    int[] nulls = new int[Math.min(batchSize, rows.length)];
    Arrays.fill(nulls, -1);
    for (int off = 0; off < rows.length; off += batchSize) {
      int n = Math.min(batchSize, rows.length - off);
      int[] part = Arrays.copyOfRange(rows, off, off + n);
      addReady(
          leftRows != null
              ? JoinSupport.gatherPairs(schema(), left, part, right, nulls, n, allocator)
              : JoinSupport.gatherPairs(schema(), left, nulls, right, part, n, allocator));
    }
  }

  @Override
  public final void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<AutoCloseable> all = new ArrayList<>(ready);
    ready.clear();
    all.add(coalescer);
    releaseResources(all);
    Batches.closeAll(all);
  }
}
