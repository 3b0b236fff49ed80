package dev.quiver.executor.memory;

import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.limits.QueryMemoryExceededException;
import dev.quiver.distributed.proto.JobMemory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.AllocationOutcome;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's memory per query. Every job running tasks here gets an allocator under the
 * executor's, limited to the smaller of the executor's memory and the job's {@code
 * quiver.query.max_memory_per_executor}; its tasks' allocators hang below it. So Arrow itself sums
 * a job's memory here (reported per job in each heartbeat) and refuses an allocation over the job's
 * limit, which fails the task with {@link QueryMemoryExceededException}.
 *
 * <p>When the executor's own memory is full instead, the allocating task waits (up to {@code
 * maxWaitMillis}, or until it is cancelled) for memory to come free, and the executor says so in a
 * heartbeat sent at once: the scheduler then stops the query holding the most memory, whose tasks
 * give it back. Failing the allocating task at once, as before, failed whichever query asked next,
 * however little it held. Thread-safe.
 */
public final class QueryMemory {
  private static final Logger LOG = LoggerFactory.getLogger(QueryMemory.class);

  /** How often a waiting allocation looks for free memory again. */
  private static final long POLL_MILLIS = 10;

  private final String executorId;
  private final BufferAllocator executor;
  private final long maxWaitMillis;
  private final Runnable blocked;
  private final Map<String, Job> jobs = new HashMap<>();
  private final AtomicInteger waiting = new AtomicInteger();

  /**
   * Creates the accounting.
   *
   * @param executor the executor's allocator (limited to its memory)
   * @param maxWaitMillis longest an allocation waits for memory before its task fails
   * @param blocked called (on the allocating thread) when an allocation starts waiting: the
   *     executor heartbeats at once, so the scheduler learns that it is out of memory
   */
  public QueryMemory(
      String executorId, BufferAllocator executor, long maxWaitMillis, Runnable blocked) {
    this.executorId = executorId;
    this.executor = executor;
    this.maxWaitMillis = maxWaitMillis;
    this.blocked = blocked;
  }

  /** One job's allocator here and the tasks using it. */
  private static final class Job {
    final String id;
    final BufferAllocator allocator;
    final long limit;
    int tasks;
    volatile boolean limitHit;

    Job(String id, BufferAllocator allocator, long limit) {
      this.id = id;
      this.allocator = allocator;
      this.limit = limit;
    }
  }

  /** A task's allocator under its job's; {@link #close} after the task closed its allocator. */
  public final class TaskMemory implements AutoCloseable {
    private final Job job;
    private final BufferAllocator allocator;

    private TaskMemory(Job job, BufferAllocator allocator) {
      this.job = job;
      this.allocator = allocator;
    }

    /** Most Arrow memory the task's job has held on this executor at once so far. */
    public long jobPeakBytes() {
      return job.allocator.getPeakMemoryAllocation();
    }

    /** The task's allocator (the caller closes it, then this). */
    public BufferAllocator allocator() {
      return allocator;
    }

    /**
     * The typed error for a task that failed for lack of memory while its job was at its limit
     * here, or null when it was not.
     */
    public QueryMemoryExceededException limitExceeded() {
      if (!job.limitHit) {
        return null;
      }
      return new QueryMemoryExceededException(
          "Query "
              + job.id
              + " exceeded its memory limit per executor of "
              + job.limit
              + " bytes on executor "
              + executorId
              + " (it held "
              + job.allocator.getPeakMemoryAllocation()
              + " bytes there at its peak); raise "
              + QueryLimits.MAX_MEMORY_PER_EXECUTOR_KEY
              + " (capped by the scheduler's --query-max-memory-per-executor) or make the query"
              + " hold less (more partitions, a filter)");
    }

    @Override
    public void close() {
      synchronized (QueryMemory.this) {
        if (--job.tasks > 0) {
          return;
        }
        jobs.remove(job.id);
      }
      try {
        job.allocator.close();
      } catch (IllegalStateException e) {
        // A task leaked; the task already reported it.
        LOG.warn("memory of job {} was not all given back: {}", job.id, e.getMessage());
      }
    }
  }

  /**
   * Opens the allocator of a task of {@code jobId}.
   *
   * @param perExecutorLimit the job's {@code quiver.query.max_memory_per_executor}, 0 for none
   * @param cancelled whether the task was cancelled: a waiting allocation then gives up
   */
  public TaskMemory open(
      String jobId, String taskName, long perExecutorLimit, BooleanSupplier cancelled) {
    Job job;
    synchronized (this) {
      job = jobs.get(jobId);
      if (job == null) {
        long memory = executor.getLimit();
        long limit = perExecutorLimit == 0 ? memory : Math.min(memory, perExecutorLimit);
        job = new Job(jobId, executor.newChildAllocator("job " + jobId, 0, limit), limit);
        jobs.put(jobId, job);
      }
      job.tasks++;
    }
    try {
      Waiting listener = new Waiting(job, cancelled);
      BufferAllocator allocator =
          job.allocator.newChildAllocator(taskName, listener, 0, executor.getLimit());
      listener.task = allocator;
      return new TaskMemory(job, allocator);
    } catch (RuntimeException e) {
      new TaskMemory(job, null).close();
      throw e;
    }
  }

  /** What each job's tasks hold here now, for the heartbeat. */
  public List<JobMemory> report() {
    List<Job> now;
    synchronized (this) {
      now = List.copyOf(jobs.values());
    }
    List<JobMemory> out = new ArrayList<>(now.size());
    for (Job job : now) {
      long bytes = job.allocator.getAllocatedMemory();
      if (bytes > 0) {
        out.add(
            JobMemory.newBuilder()
                .setJobId(job.id)
                .setBytes(bytes)
                .setPeakBytes(job.allocator.getPeakMemoryAllocation())
                .build());
      }
    }
    return out;
  }

  /** Whether a task is waiting for memory now: the executor's memory is full. */
  public boolean blocked() {
    return waiting.get() > 0;
  }

  /** Decides what a task's failed allocation does: fail (its job's limit) or wait for memory. */
  private final class Waiting implements AllocationListener {
    private final Job job;
    private final BooleanSupplier cancelled;
    volatile BufferAllocator task;

    Waiting(Job job, BooleanSupplier cancelled) {
      this.job = job;
      this.cancelled = cancelled;
    }

    @Override
    public boolean onFailedAllocation(long size, AllocationOutcome outcome) {
      if (job.limit < executor.getLimit()
          && job.allocator.getLimit() - job.allocator.getAllocatedMemory() < size) {
        job.limitHit = true;
        return false;
      }
      BufferAllocator allocator = task;
      if (allocator == null || cancelled.getAsBoolean()) {
        return false;
      }
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
      if (waiting.getAndIncrement() == 0) {
        LOG.info(
            "executor {} is out of memory: {} waits for {} bytes",
            executorId,
            allocator.getName(),
            size);
        blocked.run();
      }
      try {
        while (allocator.getHeadroom() < size) {
          if (cancelled.getAsBoolean() || System.nanoTime() > deadline) {
            return false;
          }
          Thread.sleep(POLL_MILLIS);
        }
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      } finally {
        waiting.decrementAndGet();
      }
    }
  }
}
