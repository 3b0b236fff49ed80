package dev.quiver.executor.shuffle;

import java.util.function.LongSupplier;

/**
 * Decides, for {@code quiver.shuffle.compression=auto}, when the executor's shuffle streams
 * compress: once the network, not the executor or its consumer, sets their pace.
 *
 * <p>Only a stream whose consumer says it is starved of data (its recent reads waited on data most
 * of the time: {@code ShuffleTicket.consumer_starved}, from the consumer's {@code ConsumerPace})
 * may compress: a producer also waits when its consumer is busy, and decompressing would then slow
 * the bottleneck down (measured: TPC-H q10 SF 10 on executors of half a CPU took 20-25 s compressed
 * against 16-18 s plain).
 *
 * <p>Such a stream that waited for its consumer's flow-control window for more than half of the
 * time it took to send {@link #JUDGED_BYTES} is bound by the link: from then on it sends
 * compressed, and so do the streams the executor starts in the next {@link #MEMORY_NANOS}, since
 * they leave through the same link. A compressed stream still bound by the link extends that; once
 * none is, streams start plain again and are judged afresh. On a fast link a stream hardly waits,
 * so data is never compressed where compressing would cost more than it saves.
 *
 * <p>Thread-safe: streams run on Flight's threads.
 */
public final class LinkPace {

  /** Bytes over which a stream is judged (smaller streams hardly gain from compression). */
  static final long JUDGED_BYTES = 2L << 20;

  /** How long a stream found link-bound makes new streams start compressed. */
  static final long MEMORY_NANOS = 10_000_000_000L;

  /** Share of a stream's time spent waiting on the consumer from which it is link-bound. */
  static final double BOUND_SHARE = 0.5;

  private final LongSupplier nanoClock;
  private volatile long compressUntilNanos;
  private volatile boolean everBound;

  /** Paces streams by {@code nanoClock} ({@link System#nanoTime} outside tests). */
  public LinkPace(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /** A pace on the system clock. */
  public LinkPace() {
    this(System::nanoTime);
  }

  /** Whether a link-bound stream was seen recently enough that new streams start compressed. */
  boolean recentlyBound() {
    return everBound && nanoClock.getAsLong() - compressUntilNanos < 0;
  }

  /**
   * Starts pacing one stream; one whose consumer is not {@code consumerStarved} never compresses.
   */
  public Stream start(boolean consumerStarved) {
    return new Stream(consumerStarved, consumerStarved && recentlyBound());
  }

  private void bound() {
    compressUntilNanos = nanoClock.getAsLong() + MEMORY_NANOS;
    everBound = true;
  }

  /** One stream: whether its next batch is compressed, from what it sent and waited so far. */
  public final class Stream {
    private final boolean mayCompress;
    private boolean compress;
    private long windowStartNanos = nanoClock.getAsLong();
    private long windowBytes;
    private long windowWaitedNanos;

    private Stream(boolean mayCompress, boolean compress) {
      this.mayCompress = mayCompress;
      this.compress = compress;
    }

    /** Whether the next batch is sent compressed. */
    public boolean compress() {
      return compress;
    }

    /**
     * Records a batch of {@code batchBytes} (uncompressed) sent after waiting {@code waitNanos} for
     * the consumer. The stream is judged over each run of {@link #JUDGED_BYTES}: the first ones may
     * go into buffers without any wait.
     */
    public void sent(long batchBytes, long waitNanos) {
      windowBytes += batchBytes;
      windowWaitedNanos += waitNanos;
      if (!mayCompress || windowBytes < JUDGED_BYTES) {
        return;
      }
      long now = nanoClock.getAsLong();
      long elapsed = Math.max(1, now - windowStartNanos);
      if (windowWaitedNanos > BOUND_SHARE * elapsed) {
        compress = true;
        bound();
      }
      windowStartNanos = now;
      windowBytes = 0;
      windowWaitedNanos = 0;
    }
  }
}
