package dev.quiver.binding.physical.join;

import dev.quiver.binding.physical.TaskContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A build side shared by all output partitions of one execution (one {@link TaskContext}): built
 * once by whichever partition asks first, with a merged bitmap of matched build rows so that the
 * partition finishing last can emit the unmatched ones.
 *
 * <p>It is built at most once per execution: building means executing the build input, and an input
 * partition may be executed only once per execution (exchanges keep per-execution state, so a
 * second run of the same subtree would read their already drained outputs). It is freed when every
 * output partition's stream has closed, or when the execution ends, whichever comes first; a
 * partition that finishes early therefore never frees it under a partition still to start.
 */
final class SharedBuild<T extends AutoCloseable> {
  private final int partitions;
  private final Object buildLock = new Object();
  private volatile T value;
  private volatile RuntimeException error;
  private int closedStreams;
  private int finished;
  private long[] matched;
  private boolean disposed;

  private SharedBuild(int partitions) {
    this.partitions = partitions;
  }

  /** Per-execution registry held by the operator. */
  static final class Registry<T extends AutoCloseable> {
    private final Map<TaskContext, SharedBuild<T>> shared = new ConcurrentHashMap<>();

    /** The shared build of {@code context}, created (not yet built) by the first caller. */
    SharedBuild<T> acquire(TaskContext context, int partitions) {
      return shared.computeIfAbsent(
          context,
          c -> {
            SharedBuild<T> s = new SharedBuild<>(partitions);
            c.registerCleanup(
                () -> {
                  shared.remove(c, s);
                  s.dispose();
                });
            return s;
          });
    }

    /** Records that an output partition's stream closed; the last one frees the build. */
    void release(TaskContext context, SharedBuild<T> build) {
      if (build.streamClosed()) {
        shared.remove(context, build);
      }
    }
  }

  /** Returns the built value, building it with {@code builder} if this is the first caller. */
  T get(Supplier<T> builder) {
    // A lock of its own: building may take long and must not block release or disposal.
    synchronized (buildLock) {
      if (error != null) {
        throw error;
      }
      if (value == null) {
        synchronized (this) {
          if (disposed) {
            throw new IllegalStateException("join build side used after its execution ended");
          }
        }
        try {
          T built = builder.get();
          synchronized (this) {
            if (disposed) {
              closeQuietly(built);
              throw new IllegalStateException("join build side used after its execution ended");
            }
            value = built;
          }
        } catch (RuntimeException e) {
          error = e;
          throw e;
        }
      }
      return value;
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      throw new IllegalStateException("Failed to free a join build side", e);
    }
  }

  /** Records a finished partition's matches; true for the partition that finished last. */
  synchronized boolean finish(long[] localMatched) {
    if (localMatched != null) {
      if (matched == null) {
        matched = localMatched.clone();
      } else {
        for (int i = 0; i < matched.length; i++) {
          matched[i] |= localMatched[i];
        }
      }
    }
    finished++;
    return finished == partitions;
  }

  /** Build rows matched by any partition (valid once {@link #finish} returned true). */
  synchronized long[] matched() {
    return matched;
  }

  /** True when this was the last output partition to close: the build is freed. */
  private synchronized boolean streamClosed() {
    if (++closedStreams < partitions) {
      return false;
    }
    dispose();
    return true;
  }

  private synchronized void dispose() {
    if (disposed) {
      return;
    }
    disposed = true;
    T v = value;
    value = null;
    if (v != null) {
      closeQuietly(v);
    }
  }
}
