package dev.quiver.distributed.client;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.shuffle.FlightShuffleClient;
import dev.quiver.distributed.shuffle.PerRootShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleClient;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a client process holds to run queries on one cluster: the scheduler connection and the
 * Flight client that reads results. Shared by every session that uses the cluster.
 */
public final class ClusterRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterRuntime.class);
  private static final long SLOTS_CACHE_MILLIS = 1000;

  private final ClusterConfig config;
  private final SchedulerClient scheduler;
  private final PerRootShuffleClient shuffle;
  private final List<JobListener> listeners = new CopyOnWriteArrayList<>();
  private long slotsCheckedAt;
  private int slots;
  private int executors;

  /** Connects to the cluster of {@code config} (lazily: no I/O until the first query). */
  public ClusterRuntime(ClusterConfig config) {
    this.config = config;
    this.scheduler = new SchedulerClient(config);
    this.shuffle =
        new PerRootShuffleClient(root -> FlightShuffleClient.create(root, config.security()));
  }

  /** The cluster's address. */
  public ClusterConfig config() {
    return config;
  }

  /** The scheduler connection. */
  public SchedulerClient scheduler() {
    return scheduler;
  }

  /** Reads stage outputs from executors. */
  public ShuffleClient shuffle() {
    return shuffle;
  }

  /**
   * Task slots of the executors alive now (cached for a second); fails clearly when the cluster has
   * no executor.
   */
  public synchronized int totalSlots() {
    long now = System.currentTimeMillis();
    if (slots > 0 && now - slotsCheckedAt < SLOTS_CACHE_MILLIS) {
      return slots;
    }
    List<ExecutorStatus> executors;
    try {
      executors = scheduler.executors();
    } catch (SchedulerClient.UnreachableException e) {
      if (slots > 0) {
        // Restarting, or briefly unreachable: plan with the last count; the job's submission
        // waits for the scheduler to come back.
        LOG.warn("{}; planning for the {} task slots seen last", e.getMessage(), slots);
        return slots;
      }
      throw e;
    }
    int total = 0;
    int alive = 0;
    for (ExecutorStatus e : executors) {
      if (e.getState() == ExecutorState.EXECUTOR_STATE_ALIVE) {
        total += Math.max(1, e.getInfo().getCores());
        alive++;
      }
    }
    if (total == 0) {
      throw new QuiverException(
          "No executors are registered with the scheduler at "
              + config.target()
              + "; start one with java -jar executor/target/quiver-executor.jar --scheduler "
              + config.target());
    }
    slots = total;
    this.executors = alive;
    slotsCheckedAt = now;
    return total;
  }

  /**
   * Executors alive as of the last {@link #totalSlots} (at least one once it answered): each builds
   * its own copy of a broadcast join's table.
   */
  public synchronized int aliveExecutors() {
    return Math.max(1, executors);
  }

  /** Adds a listener told about every job's progress and success. */
  public void addJobListener(JobListener listener) {
    listeners.add(listener);
  }

  void jobSubmitted(StageGraph graph, JobHandle job) {
    for (JobListener l : listeners) {
      l.jobSubmitted(graph, job);
    }
  }

  void jobUpdated(StageGraph graph, JobStatusUpdate status) {
    for (JobListener l : listeners) {
      l.jobUpdated(graph, status);
    }
  }

  void jobSucceeded(StageGraph graph, JobStatusUpdate status) {
    for (JobListener l : listeners) {
      l.jobSucceeded(graph, status);
    }
  }

  @Override
  public void close() {
    try {
      shuffle.close();
    } finally {
      scheduler.close();
    }
  }
}
