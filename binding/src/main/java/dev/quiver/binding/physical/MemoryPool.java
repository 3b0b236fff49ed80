package dev.quiver.binding.physical;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Budget that spillable operators (sort, aggregation, join build) reserve from before they buffer
 * data. A failed {@link MemoryReservation#tryGrow} is the signal to spill; the hard limit on the
 * query's Arrow allocator stays as the backstop for everything else.
 *
 * <p>Spillable growth ({@code tryGrow}) stops {@link #headroom()} bytes short of the limit; only
 * growth that cannot spill ({@code grow}) may use those last bytes. Without the headroom, spilling
 * joins or sorts in every partition fill the pool to the last byte and an operator that has nothing
 * to spill yet (an aggregation's first groups above a spilling join) fails with ResourcesExhausted,
 * depending on which partition's thread reserved first.
 */
public final class MemoryPool {
  /** Share of the pool kept for reservations that cannot spill. */
  private static final int HEADROOM_DIVISOR = 8;

  private final long limit;
  private final long headroom;
  private final AtomicLong reserved = new AtomicLong();

  /** Creates a pool of {@code limitBytes} ({@code Long.MAX_VALUE} for unbounded). */
  public MemoryPool(long limitBytes) {
    this.limit = limitBytes;
    this.headroom = limitBytes == Long.MAX_VALUE ? 0 : limitBytes / HEADROOM_DIVISOR;
  }

  /** Bytes at the top of the pool that only reservations which cannot spill may take. */
  public long headroom() {
    return headroom;
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

  /**
   * Reserves {@code bytes} if they fit: below {@code limit - headroom} for a caller that can spill
   * instead, below {@code limit} for one that cannot.
   */
  boolean tryReserve(long bytes, boolean canSpill) {
    long ceiling = canSpill ? limit - headroom : limit;
    while (true) {
      long cur = reserved.get();
      if (cur + bytes > ceiling || cur + bytes < 0) {
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
        "Resources exhausted: "
            + consumer
            + " asked for "
            + bytes
            + " bytes but the query memory pool has "
            + Math.max(0, limit - reserved.get())
            + " of "
            + limit
            + " bytes free; raise quiver.execution.memory_limit or lower the query's input size");
  }
}
