package dev.quiver.scheduler.memory;

import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which job to stop for memory, one at a time:
 *
 * <ol>
 *   <li>a job holding more than its {@code quiver.query.max_memory} across the cluster;
 *   <li>else, while an executor's memory is full (a task waits for memory there), the job holding
 *       the most on all executors among those holding memory on a full one (stopping a job that
 *       holds nothing there frees nothing there), as Trino's low-memory killer does.
 * </ol>
 *
 * <p>After a low-memory kill it waits until the stopped job's memory is reported given back and a
 * cool-down has passed: the executors report what is held once a heartbeat, so a second decision
 * before then would see the first victim's memory still held and stop a second job for one
 * shortage. Not thread-safe: the job loop owns it.
 */
public final class LowMemoryKiller {

  /** Why a job is stopped. */
  public enum Reason {
    /** It held more than its {@code quiver.query.max_memory}. */
    QUERY_LIMIT,
    /** An executor ran out of memory and it held the most. */
    CLUSTER_OUT_OF_MEMORY
  }

  /**
   * A decision: stop {@code jobId}, which holds {@code bytes} on the cluster, for {@code reason}.
   */
  public record Kill(String jobId, long bytes, Reason reason) {}

  private final long coolDownNanos;
  private String lastVictim;
  private long lastKillNanos;

  /** A killer waiting {@code coolDownNanos} after each low-memory kill before the next. */
  public LowMemoryKiller(long coolDownNanos) {
    this.coolDownNanos = coolDownNanos;
  }

  /**
   * The job to stop now, if any.
   *
   * @param memory what the executors report
   * @param running the jobs that may be stopped (running, not yet ended)
   * @param maxMemory each job's {@code quiver.query.max_memory}, 0 or absent for none
   * @param nowNanos the scheduler clock's time
   */
  public Optional<Kill> decide(
      ClusterMemory memory, Set<String> running, Map<String, Long> maxMemory, long nowNanos) {
    Map<String, Long> totals = memory.totals();
    Optional<Kill> overLimit =
        totals.entrySet().stream()
            .filter(e -> running.contains(e.getKey()))
            .filter(
                e -> {
                  long limit = maxMemory.getOrDefault(e.getKey(), 0L);
                  return limit > 0 && e.getValue() > limit;
                })
            .max(byBytesThenId())
            .map(e -> new Kill(e.getKey(), e.getValue(), Reason.QUERY_LIMIT));
    if (overLimit.isPresent()) {
      return overLimit;
    }
    Map<String, Long> onBlocked = memory.onBlockedExecutors();
    if (onBlocked.isEmpty()) {
      return Optional.empty();
    }
    if (lastVictim != null
        && (totals.containsKey(lastVictim) || nowNanos - lastKillNanos < coolDownNanos)) {
      return Optional.empty(); // the last victim's memory is not given back yet
    }
    Optional<Kill> victim =
        totals.entrySet().stream()
            .filter(e -> running.contains(e.getKey()) && onBlocked.containsKey(e.getKey()))
            .max(byBytesThenId())
            .map(e -> new Kill(e.getKey(), e.getValue(), Reason.CLUSTER_OUT_OF_MEMORY));
    victim.ifPresent(
        k -> {
          lastVictim = k.jobId();
          lastKillNanos = nowNanos;
        });
    return victim;
  }

  /** Most bytes first; among equals the greater id, so the choice never depends on map order. */
  private static Comparator<Map.Entry<String, Long>> byBytesThenId() {
    return Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey());
  }
}
