package dev.quiver.binding.physical;

/** One consumer's share of a {@link MemoryPool}; closing it gives the bytes back. */
public final class MemoryReservation implements AutoCloseable {
  private final MemoryPool pool;
  private final String consumer;
  private long size;

  MemoryReservation(MemoryPool pool, String consumer) {
    this.pool = pool;
    this.consumer = consumer;
  }

  /**
   * Reserves {@code bytes} more if the pool has room short of its headroom; false means the caller
   * should spill.
   */
  public synchronized boolean tryGrow(long bytes) {
    return reserve(bytes, true);
  }

  /**
   * Reserves {@code bytes} more if the pool has room, its headroom included: for a caller that has
   * spilled all it can and would otherwise fail.
   */
  public synchronized boolean tryGrowWithHeadroom(long bytes) {
    return reserve(bytes, false);
  }

  private boolean reserve(long bytes, boolean canSpill) {
    if (bytes <= 0) {
      return true;
    }
    if (pool.tryReserve(bytes, canSpill)) {
      size += bytes;
      return true;
    }
    return false;
  }

  /**
   * Reserves {@code bytes} more, the pool's headroom included, or throws {@link
   * dev.quiver.binding.errors.ResourcesExhaustedException}: for a caller that cannot spill.
   */
  public synchronized void grow(long bytes) {
    if (!reserve(bytes, false)) {
      throw pool.exhausted(consumer, bytes);
    }
  }

  /** Gives back up to {@code bytes}. */
  public synchronized void shrink(long bytes) {
    long b = Math.min(bytes, size);
    size -= b;
    pool.release(b);
  }

  /** Sets the reservation to exactly {@code bytes}, growing (or throwing) or shrinking. */
  public synchronized void resize(long bytes) {
    if (bytes > size) {
      grow(bytes - size);
    } else {
      shrink(size - bytes);
    }
  }

  /** Bytes currently held. */
  public synchronized long size() {
    return size;
  }

  /** Name of the consumer, for error messages. */
  public String consumer() {
    return consumer;
  }

  @Override
  public synchronized void close() {
    shrink(size);
  }
}
