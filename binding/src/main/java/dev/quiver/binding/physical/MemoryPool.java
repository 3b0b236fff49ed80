package dev.quiver.binding.physical;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Budget that spillable operators (sort, aggregation, join build) reserve from before they buffer
 * data. A failed {@link MemoryReservation#tryGrow} is the signal to spill; the hard limit on the
 * query's Arrow allocator stays as the backstop for everything else.
 */
public final class MemoryPool {
  private final long limit;
  private final AtomicLong reserved = new AtomicLong();

  /** Creates a pool of {@code limitBytes} ({@code Long.MAX_VALUE} for unbounded). */
  public MemoryPool(long limitBytes) {
    this.limit = limitBytes;
  }

  /** The pool's size in bytes. */
  public long limit() {
    return limit;
  }

  /** Bytes currently reserved by all consumers. */
  public long reserved() {
    return reserved.get();
  }

  /** Opens a reservation for one consumer (e.g. {@code "SortExec[partition 2]"}). */
  public MemoryReservation newReservation(String consumer) {
    return new MemoryReservation(this, consumer);
  }

  boolean tryReserve(long bytes) {
    while (true) {
      long cur = reserved.get();
      if (cur + bytes > limit || cur + bytes < 0) {
        return false;
      }
      if (reserved.compareAndSet(cur, cur + bytes)) {
        return true;
      }
    }
  }

  void release(long bytes) {
    reserved.addAndGet(-bytes);
  }

  ResourcesExhaustedException exhausted(String consumer, long bytes) {
    return new ResourcesExhaustedException(
        "Resources exhausted: " + consumer + " asked for " + bytes + " bytes but the query memory pool has "
            + Math.max(0, limit - reserved.get()) + " of " + limit
            + " bytes free; raise quiver.execution.memory_limit or lower the query's input size");
  }
}
