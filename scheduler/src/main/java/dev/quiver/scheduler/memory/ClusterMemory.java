package dev.quiver.scheduler.memory;

import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.JobMemory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What the executors' last heartbeats say of each job's memory: the bytes its tasks hold on each
 * executor (Arrow memory, what the executor's allocators count), summed per job, and which
 * executors are out of memory (a task waits for memory there). Not thread-safe: the job loop owns
 * it.
 */
public final class ClusterMemory {

  /** One executor's last report. */
  private record Report(boolean blocked, Map<String, Long> jobs) {}

  private final Map<String, Report> executors = new HashMap<>();
  private final Map<String, Long> peaks = new HashMap<>();

  /** Records an executor's heartbeat, replacing its previous report. */
  public void report(HeartbeatRequest beat) {
    Map<String, Long> jobs = new HashMap<>();
    for (JobMemory m : beat.getJobMemoryList()) {
      jobs.merge(m.getJobId(), m.getBytes(), Long::sum);
    }
    executors.put(beat.getExecutorId(), new Report(beat.getMemoryBlocked(), jobs));
    for (Map.Entry<String, Long> e : totals().entrySet()) {
      peaks.merge(e.getKey(), e.getValue(), Math::max);
    }
  }

  /** Keeps the reports of {@code alive} executors only: a lost one's memory is no longer held. */
  public void retainExecutors(Set<String> alive) {
    executors.keySet().retainAll(alive);
  }

  /** Keeps the peaks of {@code jobs} only (the others ended). */
  public void retainJobs(Set<String> jobs) {
    peaks.keySet().retainAll(jobs);
  }

  /** Bytes each job holds on all executors together (jobs holding none are left out). */
  public Map<String, Long> totals() {
    Map<String, Long> totals = new HashMap<>();
    for (Report r : executors.values()) {
      r.jobs().forEach((job, bytes) -> totals.merge(job, bytes, Long::sum));
    }
    return totals;
  }

  /** Bytes each job holds on the executors that are out of memory now. */
  public Map<String, Long> onBlockedExecutors() {
    Map<String, Long> held = new HashMap<>();
    for (Report r : executors.values()) {
      if (r.blocked()) {
        r.jobs().forEach((job, bytes) -> held.merge(job, bytes, Long::sum));
      }
    }
    return held;
  }

  /** The executors whose memory is full now (a task waits for memory there). */
  public Set<String> blockedExecutors() {
    Set<String> out = new HashSet<>();
    executors.forEach(
        (id, r) -> {
          if (r.blocked()) {
            out.add(id);
          }
        });
    return out;
  }

  /** Most the job held on all executors together in any one report round seen, or 0. */
  public long peak(String jobId) {
    return peaks.getOrDefault(jobId, 0L);
  }
}
