package dev.quiver.binding.physical.exchange;

import dev.quiver.binding.errors.QuiverException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A queue of batches from several producer threads to one consumer. Producers call {@link #send}
 * and finally {@link #producerDone}; a failure is delivered to the consumer with {@link #fail}.
 * Closing the channel drops queued batches and tells producers to stop.
 *
 * <p>Producers get backpressure: while the consumer keeps receiving, a producer waits when {@link
 * #CAPACITY} batches are queued. A consumer that has not received for {@link #STALL_NANOS} (not
 * started yet, or busy building a hash table on another input) does not hold producers back, since
 * a repartition's outputs may be read one after another and blocking would then deadlock; memory
 * then stays bounded by the query allocator's limit.
 */
final class BatchChannel {
  private static final Object END = new Object();

  static final int CAPACITY = 8;
  static final long STALL_NANOS = 500_000_000L;

  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  private final Object space = new Object();
  private volatile long lastReceive = Long.MIN_VALUE;
  private final AtomicInteger producers;
  private volatile boolean closed;

  BatchChannel(int producerCount) {
    this.producers = new AtomicInteger(producerCount);
    if (producerCount == 0) {
      queue.add(END);
    }
  }

  /** Enqueues a batch (ownership moves to the channel); closes it if the consumer is gone. */
  void send(VectorSchemaRoot batch) {
    awaitSpace();
    if (closed) {
      batch.close();
      return;
    }
    queue.add(batch);
    if (closed) {
      drain();
    }
  }

  private void awaitSpace() {
    synchronized (space) {
      while (!closed && queue.size() >= CAPACITY) {
        long last = lastReceive;
        if (last == Long.MIN_VALUE || System.nanoTime() - last > STALL_NANOS) {
          return;
        }
        try {
          space.wait(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** One producer finished; the last one ends the stream. */
  void producerDone() {
    if (producers.decrementAndGet() == 0) {
      queue.add(END);
    }
  }

  /** Delivers a producer failure to the consumer. */
  void fail(Throwable error) {
    queue.add(new Failure(error));
  }

  /** True once the consumer closed the channel. */
  boolean isClosed() {
    return closed;
  }

  /** Blocks for the next batch; null at end of stream; rethrows producer failures. */
  VectorSchemaRoot receive() {
    if (closed) {
      return null;
    }
    Object item;
    try {
      do {
        item = queue.poll(100, TimeUnit.MILLISECONDS);
      } while (item == null && !closed);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuiverException("Interrupted while waiting for input batches", e);
    }
    lastReceive = System.nanoTime();
    synchronized (space) {
      space.notifyAll();
    }
    if (item == null || item == END) {
      if (item == END) {
        queue.add(END);
      }
      return null;
    }
    if (item instanceof Failure f) {
      queue.add(f);
      if (f.error instanceof RuntimeException re) {
        throw re;
      }
      if (f.error instanceof Error err) {
        throw err;
      }
      throw new QuiverException("Input partition failed: " + f.error.getMessage(), f.error);
    }
    return (VectorSchemaRoot) item;
  }

  /** Stops the channel and frees queued batches. */
  void close() {
    closed = true;
    synchronized (space) {
      space.notifyAll();
    }
    drain();
  }

  private void drain() {
    java.util.List<Object> markers = new java.util.ArrayList<>();
    Object item;
    while ((item = queue.poll()) != null) {
      if (item instanceof VectorSchemaRoot b) {
        b.close();
      } else {
        markers.add(item);
      }
    }
    // Keep terminal markers so a late receive() still ends.
    queue.addAll(markers);
  }

  private record Failure(Throwable error) {}
}
