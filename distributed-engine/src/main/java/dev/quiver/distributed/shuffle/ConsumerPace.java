package dev.quiver.distributed.shuffle;

import java.util.function.LongSupplier;

/**
 * Whether a process's shuffle reads are starved of data: a stream that spent more than half of the
 * time it took to receive {@link #JUDGED_BYTES} waiting inside {@code next()} (not processing what
 * it got) was held back by its producer or the link between them. A consumer starved recently
 * (within {@link #MEMORY_NANOS}) says so in its next tickets, and only then may a producer with
 * compression {@code auto} compress (when it also waits on the link): a consumer that is itself the
 * bottleneck never gets the extra work of decompressing. Thread-safe.
 */
public final class ConsumerPace {

  /** Bytes over which a stream is judged. */
  static final long JUDGED_BYTES = 2L << 20;

  /** How long a starved stream makes the process's new streams ask for compression. */
  static final long MEMORY_NANOS = 10_000_000_000L;

  /** Share of a stream's time spent waiting for data from which it is starved. */
  static final double STARVED_SHARE = 0.5;

  private final LongSupplier nanoClock;
  private volatile long starvedUntilNanos;
  private volatile boolean starved;

  /** Paces by {@code nanoClock} ({@link System#nanoTime} outside tests). */
  public ConsumerPace(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /** A pace on the system clock. */
  public ConsumerPace() {
    this(System::nanoTime);
  }

  /** Whether a stream was starved recently and no stream was judged fed since. */
  public boolean starved() {
    return starved && nanoClock.getAsLong() - starvedUntilNanos < 0;
  }

  /** Starts pacing one stream. */
  public Stream start() {
    return new Stream();
  }

  /** One stream: the batches it received and how long it waited for each. */
  public final class Stream {
    private long windowStartNanos = nanoClock.getAsLong();
    private long windowBytes;
    private long windowWaitedNanos;

    private Stream() {}

    /** Records a batch of {@code bytes} that came after waiting {@code waitNanos} for it. */
    public void received(long bytes, long waitNanos) {
      windowBytes += bytes;
      windowWaitedNanos += waitNanos;
      if (windowBytes < JUDGED_BYTES) {
        return;
      }
      long now = nanoClock.getAsLong();
      long elapsed = Math.max(1, now - windowStartNanos);
      if (windowWaitedNanos > STARVED_SHARE * elapsed) {
        starvedUntilNanos = now + MEMORY_NANOS;
        starved = true;
      } else {
        starved = false;
      }
      windowStartNanos = now;
      windowBytes = 0;
      windowWaitedNanos = 0;
    }
  }
}
