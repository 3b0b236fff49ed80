package dev.quiver.binding.physical;

import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What an executing operator may use: the query's allocator, its memory pool, the session config, a
 * thread pool for background producers, and the cancellation flag. The creator of the context owns
 * the allocator and executor; operators only borrow them.
 */
public final class TaskContext implements AutoCloseable {
  private final String queryId;
  private final BufferAllocator allocator;
  private final MemoryPool memoryPool;
  private final SessionConfig config;
  private final ExecutorService executor;
  private final AtomicReference<String> cancelReason = new AtomicReference<>();
  private final Deque<AutoCloseable> cleanups = new ArrayDeque<>();
  private final List<Runnable> cancelListeners = new ArrayList<>();
  private final Map<ExecutionPlan, BitSet> executedPartitions = new IdentityHashMap<>();
  private volatile SplitSources splitSources = SplitSources.PLANNED;

  /** Creates a context; the caller keeps ownership of {@code allocator} and {@code executor}. */
  public TaskContext(
      String queryId,
      BufferAllocator allocator,
      MemoryPool memoryPool,
      SessionConfig config,
      ExecutorService executor) {
    this.queryId = queryId;
    this.allocator = allocator;
    this.memoryPool = memoryPool;
    this.config = config;
    this.executor = executor;
  }

  /** Identifier of the query, used in allocator, thread and spill file names. */
  public String queryId() {
    return queryId;
  }

  /** The query's allocator; operators allocate children of it or allocate from it directly. */
  public BufferAllocator allocator() {
    return allocator;
  }

  /** Budget for spillable operators. */
  public MemoryPool memoryPool() {
    return memoryPool;
  }

  /** The session's settings. */
  public SessionConfig config() {
    return config;
  }

  /** Rows per batch. */
  public int batchSize() {
    return config.batchSize();
  }

  /** Directory for spill files. */
  public Path spillDirectory() {
    return config.spillDirectory();
  }

  /** Where scan partitions get their splits; the planned assignment unless replaced. */
  public SplitSources splitSources() {
    return splitSources;
  }

  /** Makes scans take their splits from {@code sources}; call before executing the plan. */
  public void useSplitSources(SplitSources sources) {
    this.splitSources = java.util.Objects.requireNonNull(sources, "sources");
  }

  /**
   * Pool for background producers (repartition, coalesce). It is unbounded: producers block on
   * bounded queues, and a bounded pool could deadlock when every thread waits on a consumer.
   */
  public ExecutorService executor() {
    return executor;
  }

  /**
   * Marks the query cancelled; running operators stop at their next batch, and the {@link
   * #onCancel} listeners run (on this thread) so that reads blocked on another process end too.
   */
  public void cancel(String reason) {
    if (!cancelReason.compareAndSet(null, reason)) {
      return;
    }
    List<Runnable> listeners;
    synchronized (cancelListeners) {
      listeners = List.copyOf(cancelListeners);
      cancelListeners.clear();
    }
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        // A listener only aborts work that is being cancelled anyway.
      }
    }
  }

  /**
   * Runs {@code listener} once when the query is cancelled or ends (at once if it already has),
   * e.g. to abort a read that blocks on another process and would not see the flag. Closing the
   * returned handle removes the listener (call it once the read is over).
   */
  public AutoCloseable onCancel(Runnable listener) {
    synchronized (cancelListeners) {
      if (cancelReason.get() == null) {
        cancelListeners.add(listener);
        return () -> {
          synchronized (cancelListeners) {
            cancelListeners.remove(listener);
          }
        };
      }
    }
    listener.run();
    return () -> {};
  }

  /** True once {@link #cancel} was called. */
  public boolean isCancelled() {
    return cancelReason.get() != null;
  }

  /** Throws {@link QueryCancelledException} if the query was cancelled. */
  public void checkCancelled() {
    String reason = cancelReason.get();
    if (reason != null) {
      throw new QueryCancelledException("Query " + queryId + " was cancelled: " + reason);
    }
  }

  /**
   * Records that {@code partition} of {@code plan} starts in this execution; false if it already
   * started. Operators keep per-execution state (an exchange's channels, a shared join build), so
   * running a partition twice in one execution would read drained state: a wrong answer, not an
   * error, unless it is caught here.
   */
  boolean claimPartition(ExecutionPlan plan, int partition) {
    synchronized (executedPartitions) {
      BitSet started = executedPartitions.computeIfAbsent(plan, p -> new BitSet());
      if (started.get(partition)) {
        return false;
      }
      started.set(partition);
      return true;
    }
  }

  /**
   * Registers work to release when the query ends (e.g. an exchange whose outputs were not all
   * read); run in reverse order by {@link #close}.
   */
  public void registerCleanup(AutoCloseable cleanup) {
    synchronized (cleanups) {
      cleanups.push(cleanup);
    }
  }

  /**
   * Ends the query: marks it cancelled (so background producers stop) and runs the registered
   * cleanups. Call before checking and closing the query allocator.
   */
  @Override
  public void close() {
    cancel("query finished");
    RuntimeException first = null;
    while (true) {
      AutoCloseable c;
      synchronized (cleanups) {
        c = cleanups.poll();
      }
      if (c == null) {
        break;
      }
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e instanceof RuntimeException re ? re : new RuntimeException(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
