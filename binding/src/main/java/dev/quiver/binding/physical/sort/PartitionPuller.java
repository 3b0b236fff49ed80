package dev.quiver.binding.physical.sort;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.TaskContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Pulls every partition of a plan concurrently on the task's executor into bounded queues, either
 * one queue per partition (for merges) or one shared queue (fan-in). Pulling all partitions at once
 * matters: inputs such as a repartition block until each of their partitions is consumed.
 */
public final class PartitionPuller implements AutoCloseable {
  private static final int CAPACITY = 2;

  private final List<BlockingQueue<Item>> queues = new ArrayList<>();
  private final TaskContext context;
  private final CountDownLatch finished;
  private final AtomicReference<Throwable> error = new AtomicReference<>();
  private final int[] pendingEnds;
  private volatile boolean closed;

  private record Item(VectorSchemaRoot batch) {}

  private static final Item END = new Item(null);

  /** Starts pulling all partitions of {@code plan}; {@code perPartition} selects one queue each. */
  public PartitionPuller(ExecutionPlan plan, TaskContext context, boolean perPartition) {
    this.context = context;
    int n = plan.partitionCount();
    int queueCount = perPartition ? n : 1;
    for (int q = 0; q < queueCount; q++) {
      queues.add(new LinkedBlockingQueue<>(perPartition ? CAPACITY : CAPACITY * n));
    }
    pendingEnds = new int[queueCount];
    for (int q = 0; q < queueCount; q++) {
      pendingEnds[q] = perPartition ? 1 : n;
    }
    finished = new CountDownLatch(n);
    for (int p = 0; p < n; p++) {
      int partition = p;
      BlockingQueue<Item> queue = queues.get(perPartition ? p : 0);
      try {
        context.executor().execute(() -> produce(plan, partition, queue));
      } catch (RuntimeException e) {
        finished.countDown();
        error.compareAndSet(null, e);
        put(queue, END);
      }
    }
  }

  /** Number of queues: one per partition, or one for fan-in. */
  public int queueCount() {
    return queues.size();
  }

  /** Next batch of queue {@code q} (owned by the caller), or null when its partitions are done. */
  public VectorSchemaRoot next(int q) {
    BlockingQueue<Item> queue = queues.get(q);
    while (true) {
      rethrow();
      if (pendingEnds[q] == 0) {
        return null;
      }
      context.checkCancelled();
      Item item;
      try {
        item = queue.poll(20, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new QuiverException("Interrupted while reading input partitions", e);
      }
      if (item == null) {
        continue;
      }
      if (item == END) {
        pendingEnds[q]--;
        continue;
      }
      return item.batch();
    }
  }

  /** A stream over queue {@code q}; closing it does not close the puller. */
  public BatchStream stream(int q, org.apache.arrow.vector.types.pojo.Schema schema) {
    return new BatchStream() {
      @Override
      public org.apache.arrow.vector.types.pojo.Schema schema() {
        return schema;
      }

      @Override
      public VectorSchemaRoot next() {
        return PartitionPuller.this.next(q);
      }

      @Override
      public void close() {}
    };
  }

  private void rethrow() {
    Throwable t = error.get();
    if (t != null) {
      if (t instanceof RuntimeException re) {
        throw re;
      }
      if (t instanceof Error err) {
        throw err;
      }
      throw new QuiverException("Input partition failed: " + t.getMessage(), t);
    }
  }

  private void produce(ExecutionPlan plan, int partition, BlockingQueue<Item> queue) {
    try (BatchStream stream = plan.execute(partition, context)) {
      while (!closed && error.get() == null) {
        VectorSchemaRoot batch = stream.next();
        if (batch == null) {
          break;
        }
        put(queue, new Item(batch));
      }
    } catch (Throwable t) {
      error.compareAndSet(null, t);
    } finally {
      put(queue, END);
      finished.countDown();
    }
  }

  private void put(BlockingQueue<Item> queue, Item item) {
    try {
      while (!closed) {
        if (queue.offer(item, 20, TimeUnit.MILLISECONDS)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (item.batch() != null) {
      item.batch().close();
    }
  }

  /** Stops the producers, waits for them and frees every batch not yet taken. */
  @Override
  public void close() {
    closed = true;
    boolean interrupted = false;
    while (true) {
      drain();
      try {
        if (finished.await(20, TimeUnit.MILLISECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    drain();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void drain() {
    for (BlockingQueue<Item> q : queues) {
      Item item;
      while ((item = q.poll()) != null) {
        if (item.batch() != null) {
          item.batch().close();
        }
      }
    }
  }
}
