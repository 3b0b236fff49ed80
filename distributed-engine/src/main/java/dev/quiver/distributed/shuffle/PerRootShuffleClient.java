package dev.quiver.distributed.shuffle;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.TaskContext;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A shuffle client for callers whose tasks allocate under different root allocators: Arrow only
 * moves buffers between allocators of one root, so it keeps one Flight client per root.
 */
public final class PerRootShuffleClient implements ShuffleClient, AutoCloseable {
  private final Function<BufferAllocator, FlightShuffleClient> factory;
  private final Map<BufferAllocator, FlightShuffleClient> byRoot = new IdentityHashMap<>();
  private boolean closed;

  /** Creates clients with {@code factory}, given the root they allocate under. */
  public PerRootShuffleClient(Function<BufferAllocator, FlightShuffleClient> factory) {
    this.factory = factory;
  }

  @Override
  public BatchStream open(ShuffleLocation location, Schema schema, TaskContext context) {
    return clientFor(context.allocator().getRoot()).open(location, schema, context);
  }

  private synchronized FlightShuffleClient clientFor(BufferAllocator root) {
    if (closed) {
      throw new IllegalStateException("the shuffle client is closed");
    }
    return byRoot.computeIfAbsent(root, factory);
  }

  @Override
  public synchronized void close() {
    closed = true;
    RuntimeException first = null;
    for (FlightShuffleClient c : byRoot.values()) {
      try {
        c.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    byRoot.clear();
    if (first != null) {
      throw first;
    }
  }
}
