package dev.quiver.scheduler.executors;

import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.ExecutorState;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.scheduler.time.SchedulerClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The executors the scheduler knows, with their liveness. Thread-safe. In the scheduler, who is
 * registered and who is lost ({@link #register}, {@link #expire}, {@link #markLost}) changes only
 * on the job manager's loop, together with what the change means for the jobs; heartbeats come from
 * any thread.
 */
public final class ExecutorRegistry {

  /** One executor's latest report; replaced (never mutated) on every update. */
  private record Entry(
      ExecutorInfo info,
      ExecutorState state,
      long lastSeenNanos,
      long lastSeenUnixMillis,
      int runningTasks,
      long shuffleBytes,
      long allocatedBytes,
      int activeTasks,
      String notReadyReason,
      long excludedUntilUnixMillis,
      Totals totals) {

    ExecutorStatus toStatus() {
      return ExecutorStatus.newBuilder()
          .setInfo(info)
          .setState(state)
          .setLastSeenUnixMillis(lastSeenUnixMillis)
          .setRunningTasks(runningTasks)
          .setShuffleBytes(shuffleBytes)
          .setAllocatedBytes(allocatedBytes)
          .setActiveTasks(activeTasks)
          .setNotReady(notReadyReason != null)
          .setNotReadyReason(notReadyReason == null ? "" : notReadyReason)
          .setExcludedUntilUnixMillis(excludedUntilUnixMillis)
          .setTasksFinished(totals.tasksFinished())
          .setGcMillis(totals.gcMillis())
          .setDiskBytes(totals.diskBytes())
          .build();
    }

    Entry withExclusion(long untilUnixMillis) {
      return new Entry(
          info,
          state,
          lastSeenNanos,
          lastSeenUnixMillis,
          runningTasks,
          shuffleBytes,
          allocatedBytes,
          activeTasks,
          notReadyReason,
          untilUnixMillis,
          totals);
    }
  }

  /** What an executor's last heartbeat said of its life so far (the web UI shows it). */
  private record Totals(long tasksFinished, long gcMillis, long diskBytes) {
    static final Totals NONE = new Totals(0, 0, 0);
  }

  private final Map<String, Entry> executors = new LinkedHashMap<>();

  /**
   * Executors draining: an operator asked ({@link #drain}) or the executor said so in a heartbeat
   * (it got SIGTERM). No new task goes there; a new registration (a restarted process) ends it.
   */
  private final Set<String> draining = new HashSet<>();

  private final long timeoutNanos;
  private final SchedulerClock clock;

  /** A registry that marks executors lost after {@code heartbeatTimeout} of silence. */
  public ExecutorRegistry(Duration heartbeatTimeout) {
    this(heartbeatTimeout, SchedulerClock.SYSTEM);
  }

  /**
   * A registry reading time from {@code clock}, which the scheduler's job manager then uses too
   * (tests drive heartbeat timeouts and job timers with it).
   */
  public ExecutorRegistry(Duration heartbeatTimeout, SchedulerClock clock) {
    this.timeoutNanos = heartbeatTimeout.toNanos();
    this.clock = clock;
  }

  /** The clock this registry reads, and the scheduler's job manager with it. */
  public SchedulerClock clock() {
    return clock;
  }

  /**
   * Adds an executor, or replaces one with the same id (a restart or a return after loss).
   *
   * @return true when the id was not known as alive before
   */
  public synchronized boolean register(ExecutorInfo info) {
    Entry old = executors.get(info.getExecutorId());
    draining.remove(info.getExecutorId());
    executors.put(
        info.getExecutorId(),
        new Entry(
            info,
            ExecutorState.EXECUTOR_STATE_ALIVE,
            clock.nanoTime(),
            clock.unixMillis(),
            0,
            0,
            0,
            0,
            null,
            0,
            Totals.NONE));
    return old == null || old.state() != ExecutorState.EXECUTOR_STATE_ALIVE;
  }

  /**
   * Records a heartbeat.
   *
   * @return false when the executor is unknown or lost, so it must register again
   */
  public boolean heartbeat(String executorId, int runningTasks, long shuffleBytes) {
    return heartbeat(
        HeartbeatRequest.newBuilder()
            .setExecutorId(executorId)
            .setRunningTasks(runningTasks)
            .setShuffleBytes(shuffleBytes)
            .build());
  }

  /**
   * Records a heartbeat with everything it reports.
   *
   * @return false when the executor is unknown or lost, so it must register again
   */
  public synchronized boolean heartbeat(HeartbeatRequest beat) {
    String executorId = beat.getExecutorId();
    Entry old = executors.get(executorId);
    if (old == null || old.state() != ExecutorState.EXECUTOR_STATE_ALIVE) {
      return false;
    }
    if (beat.getDraining()) {
      draining.add(executorId);
    }
    executors.put(
        executorId,
        new Entry(
            old.info(),
            old.state(),
            clock.nanoTime(),
            clock.unixMillis(),
            beat.getRunningTasks(),
            beat.getShuffleBytes(),
            beat.getAllocatedBytes(),
            beat.getActiveTasks(),
            beat.getNotReady()
                ? (beat.getNotReadyReason().isEmpty() ? "not ready" : beat.getNotReadyReason())
                : null,
            old.excludedUntilUnixMillis(),
            new Totals(beat.getTasksFinished(), beat.getGcMillis(), beat.getDiskBytes())));
    return true;
  }

  /**
   * Marks one executor lost at once (its connection broke), whatever its last heartbeat.
   *
   * @return its info when it was alive until now, else empty
   */
  public synchronized Optional<ExecutorInfo> markLost(String executorId) {
    Entry entry = executors.get(executorId);
    if (entry == null || entry.state() != ExecutorState.EXECUTOR_STATE_ALIVE) {
      return Optional.empty();
    }
    executors.put(executorId, lostEntry(entry));
    return Optional.of(entry.info());
  }

  private static Entry lostEntry(Entry entry) {
    return new Entry(
        entry.info(),
        ExecutorState.EXECUTOR_STATE_LOST,
        entry.lastSeenNanos(),
        entry.lastSeenUnixMillis(),
        0,
        0,
        0,
        0,
        null,
        0,
        entry.totals());
  }

  /**
   * Places no task on an alive executor until its next heartbeat says it is ready: a task just
   * failed there for lack of disk, and its heartbeat says when it has room again.
   */
  public synchronized void markNotReady(String executorId, String reason) {
    Entry e = executors.get(executorId);
    if (e != null && e.state() == ExecutorState.EXECUTOR_STATE_ALIVE) {
      executors.put(
          executorId,
          new Entry(
              e.info(),
              e.state(),
              e.lastSeenNanos(),
              e.lastSeenUnixMillis(),
              e.runningTasks(),
              e.shuffleBytes(),
              e.allocatedBytes(),
              e.activeTasks(),
              reason,
              e.excludedUntilUnixMillis(),
              e.totals()));
    }
  }

  /**
   * Drains an alive executor: no new task is placed there from now on; its running tasks finish and
   * its shuffle outputs stay readable (it is not marked lost). Its next heartbeat answer tells it
   * so, and it exits once its outputs are no longer needed.
   *
   * @return false when the executor is unknown or lost
   */
  public synchronized boolean drain(String executorId) {
    Entry entry = executors.get(executorId);
    if (entry == null || entry.state() != ExecutorState.EXECUTOR_STATE_ALIVE) {
      return false;
    }
    draining.add(executorId);
    return true;
  }

  /** True when {@code executorId} is draining (see {@link #drain}). */
  public synchronized boolean draining(String executorId) {
    return draining.contains(executorId);
  }

  /**
   * Places no task on an alive executor for {@code duration} (tasks kept failing there); a new
   * registration (a restarted process) ends it.
   */
  public synchronized void exclude(String executorId, Duration duration) {
    Entry entry = executors.get(executorId);
    if (entry != null && entry.state() == ExecutorState.EXECUTOR_STATE_ALIVE) {
      executors.put(executorId, entry.withExclusion(clock.unixMillis() + duration.toMillis()));
    }
  }

  /**
   * The alive executors that can take tasks now, ordered by id: ready as of their last heartbeat,
   * not draining and not excluded. When every ready executor is excluded, exclusion yields: a job
   * is better served by an executor that failed before than by none.
   */
  public synchronized List<ExecutorInfo> schedulable() {
    long now = clock.unixMillis();
    List<ExecutorStatus> ready =
        list(false).stream().filter(s -> !s.getNotReady() && !s.getDraining()).toList();
    List<ExecutorStatus> included =
        ready.stream().filter(s -> s.getExcludedUntilUnixMillis() <= now).toList();
    return (included.isEmpty() ? ready : included).stream().map(ExecutorStatus::getInfo).toList();
  }

  /**
   * Why no alive executor can take tasks now (each one's reason), for a job that waits; empty when
   * some can, or none is alive.
   */
  public synchronized String whyNoneSchedulable() {
    List<String> reasons = new ArrayList<>();
    for (ExecutorStatus s : list(false)) {
      if (s.getDraining()) {
        reasons.add("'" + s.getInfo().getExecutorId() + "' is draining");
        continue;
      }
      if (!s.getNotReady()) {
        return "";
      }
      reasons.add(
          "'" + s.getInfo().getExecutorId() + "' is not ready (" + s.getNotReadyReason() + ")");
    }
    return String.join(", ", reasons);
  }

  /**
   * Marks lost every alive executor silent for longer than the heartbeat timeout.
   *
   * @return the executors marked lost by this call
   */
  public synchronized List<ExecutorInfo> expire() {
    long now = clock.nanoTime();
    List<ExecutorInfo> lost = new ArrayList<>();
    for (Map.Entry<String, Entry> e : executors.entrySet()) {
      Entry entry = e.getValue();
      if (entry.state() == ExecutorState.EXECUTOR_STATE_ALIVE
          && now - entry.lastSeenNanos() > timeoutNanos) {
        e.setValue(lostEntry(entry));
        lost.add(entry.info());
      }
    }
    return lost;
  }

  /** The executors, alive ones (and lost ones if asked), ordered by id. */
  public synchronized List<ExecutorStatus> list(boolean includeLost) {
    List<ExecutorStatus> out = new ArrayList<>();
    for (Entry entry : executors.values()) {
      if (includeLost || entry.state() == ExecutorState.EXECUTOR_STATE_ALIVE) {
        ExecutorStatus status = entry.toStatus();
        out.add(
            draining.contains(entry.info().getExecutorId())
                ? status.toBuilder().setDraining(true).build()
                : status);
      }
    }
    out.sort(Comparator.comparing(s -> s.getInfo().getExecutorId()));
    return out;
  }

  /** The alive executors, ordered by id. */
  public List<ExecutorInfo> alive() {
    return list(false).stream().map(ExecutorStatus::getInfo).toList();
  }
}
