package dev.quiver.binding.physical.join;

import dev.quiver.binding.physical.TaskContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A build side shared by all output partitions of one execution (one {@link TaskContext}):
 * built once by whichever partition asks first, with a merged bitmap of matched build rows so
 * that the partition finishing last can emit the unmatched ones. Freed when no stream uses it
 * and, if unmatched rows are tracked, every partition has been closed.
 */
final class SharedBuild<T extends AutoCloseable> {
  private final int partitions;
  private final boolean tracksMatches;
  private final Object buildLock = new Object();
  private volatile T value;
  private volatile RuntimeException error;
  private int active;
  private int closedStreams;
  private int finished;
  private long[] matched;
  private boolean disposed;

  private SharedBuild(int partitions, boolean tracksMatches) {
    this.partitions = partitions;
    this.tracksMatches = tracksMatches;
  }

  /** Per-execution registry held by the operator. */
  static final class Registry<T extends AutoCloseable> {
    private final Map<TaskContext, SharedBuild<T>> shared = new ConcurrentHashMap<>();

    /** Joins (or starts) the shared build of {@code context}. */
    SharedBuild<T> acquire(TaskContext context, int partitions, boolean tracksMatches) {
      return shared.compute(context, (k, v) -> {
        SharedBuild<T> s = v == null || v.disposed ? new SharedBuild<>(partitions, tracksMatches) : v;
        synchronized (s) {
          s.active++;
        }
        return s;
      });
    }

    /** Leaves the shared build; the last user frees it. */
    void release(TaskContext context, SharedBuild<T> build) {
      shared.computeIfPresent(context, (k, v) -> {
        if (v != build) {
          return v;
        }
        return build.release() ? null : v;
      });
    }
  }

  /** Returns the built value, building it with {@code builder} if this is the first caller. */
  T get(Supplier<T> builder) {
    // A lock of its own: building may take long and must not block acquire/release.
    synchronized (buildLock) {
      if (error != null) {
        throw error;
      }
      if (value == null) {
        try {
          T built = builder.get();
          synchronized (this) {
            if (disposed) {
              closeQuietly(built);
              throw new IllegalStateException("join build side used after it was freed");
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

  private synchronized boolean release() {
    active--;
    closedStreams++;
    if (active == 0 && (!tracksMatches || closedStreams >= partitions)) {
      disposed = true;
      T v = value;
      value = null;
      if (v != null) {
        closeQuietly(v);
      }
      return true;
    }
    return false;
  }
}
