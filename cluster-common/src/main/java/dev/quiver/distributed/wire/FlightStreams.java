package dev.quiver.distributed.wire;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.arrow.flight.BackpressureStrategy;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;

/** Helpers for Flight servers that stream batches ({@code DoGet}). */
public final class FlightStreams {
  /** Pauses between readiness checks grow from 20 µs to 1 ms while a consumer lags. */
  private static final long MIN_PAUSE_NANOS = 20_000;

  private static final long MAX_PAUSE_NANOS = 1_000_000;

  private FlightStreams() {}

  /**
   * Waits until the transport takes more data, the consumer cancels, or {@code timeoutMillis} pass.
   * Polls {@code isReady()} rather than waiting for gRPC's onReady callback: that callback runs on
   * this call's serializing executor, which is busy running this very {@code getStream}, so it
   * would only arrive after the wait timed out.
   */
  public static BackpressureStrategy.WaitResult awaitReady(
      ServerStreamListener listener, long timeoutMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    long pause = MIN_PAUSE_NANOS;
    while (true) {
      if (listener.isCancelled()) {
        return BackpressureStrategy.WaitResult.CANCELLED;
      }
      if (listener.isReady()) {
        return BackpressureStrategy.WaitResult.READY;
      }
      if (System.nanoTime() > deadline) {
        return BackpressureStrategy.WaitResult.TIMEOUT;
      }
      LockSupport.parkNanos(pause);
      pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
    }
  }
}
