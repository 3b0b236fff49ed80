package dev.quiver.scheduler.job;

import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.limits.QueryMemoryExceededException;
import dev.quiver.distributed.limits.QueryTimeoutException;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.JobMemory;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.memory.ClusterMemory;
import dev.quiver.scheduler.memory.LowMemoryKiller;
import dev.quiver.scheduler.memory.MemoryShares;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops jobs past their limits ({@link QueryLimits}): their run or queued time, their memory across
 * the cluster, and, when an executor's memory is full, the job holding the most ({@link
 * LowMemoryKiller}). The limit per executor is the executors' own. Job loop only.
 */
final class LimitChecks {

  private static final Logger LOG = LoggerFactory.getLogger(LimitChecks.class);

  private final ExecutorRegistry registry;
  private final JobRegistry jobs;
  private final JobTermination termination;
  private final ClusterMemory memory = new ClusterMemory();
  private final LowMemoryKiller killer;
  private Set<String> groupsOverShare = Set.of();

  LimitChecks(
      ExecutorRegistry registry,
      JobRegistry jobs,
      JobTermination termination,
      Duration heartbeatInterval) {
    this.registry = registry;
    this.jobs = jobs;
    this.termination = termination;
    // Two heartbeats: the victim's executors report its memory given back within one.
    this.killer =
        new LowMemoryKiller(
            Math.max(Duration.ofSeconds(1).toNanos(), heartbeatInterval.multipliedBy(2).toNanos()));
  }

  /** An executor's heartbeat: what each job holds there now, and each job's peaks so far. */
  void heartbeat(HeartbeatRequest beat) {
    memory.report(beat);
    Map<String, Long> here = new HashMap<>();
    for (JobMemory m : beat.getJobMemoryList()) {
      here.merge(m.getJobId(), m.getBytes(), Long::sum);
    }
    here.forEach(
        (id, bytes) -> {
          Job job = jobs.get(id);
          if (job != null) {
            job.notePeakMemory(beat.getExecutorId(), bytes, memory.peak(id));
          }
        });
  }

  /**
   * The resource groups whose running jobs hold their memory share or more ({@link MemoryShares}):
   * the scheduling pass launches none of their tasks.
   */
  Set<String> groupsOverShare() {
    return groupsOverShare;
  }

  /**
   * Stops the jobs past a limit now and finds the groups over their memory share.
   *
   * @return whether a job was stopped or a group's memory share was passed or freed: the scheduling
   *     pass should run
   */
  boolean check(long nowNanos) {
    boolean stopped = false;
    Set<String> running = new HashSet<>();
    Map<String, Long> maxMemory = new HashMap<>();
    Set<String> known = new HashSet<>();
    for (Job job : List.copyOf(jobs.live())) {
      known.add(job.id);
      if (job.terminal()) {
        continue;
      }
      String timedOut = timeLimitPassed(job, nowNanos);
      if (timedOut != null) {
        LOG.info("{} stopped: {}", job.describe(), timedOut);
        termination.fail(job, error(new QueryTimeoutException(timedOut)));
        stopped = true;
        continue;
      }
      running.add(job.id);
      maxMemory.put(job.id, job.limits.maxMemory());
    }
    Set<String> alive = new HashSet<>();
    long clusterBytes = 0;
    for (ExecutorStatus e : registry.list(false)) {
      alive.add(e.getInfo().getExecutorId());
      clusterBytes += e.getInfo().getMemoryBytes();
    }
    memory.retainExecutors(alive);
    memory.retainJobs(known);
    Set<String> blocked = new TreeSet<>(memory.blockedExecutors());
    Map<String, Long> totals = memory.totals();
    Map<String, Long> byGroup = new HashMap<>();
    Map<String, Double> shares = new HashMap<>();
    for (String id : running) {
      Job job = jobs.get(id);
      shares.put(job.group.name(), job.group.memoryShare());
      byGroup.merge(job.group.name(), totals.getOrDefault(id, 0L), Long::sum);
    }
    Set<String> over = MemoryShares.over(byGroup, shares, clusterBytes);
    if (!over.equals(groupsOverShare)) {
      if (!over.isEmpty()) {
        LOG.info("resource groups at their memory share get no new tasks for now: {}", over);
      }
      groupsOverShare = over;
      stopped = true;
    }
    Optional<LowMemoryKiller.Kill> kill = killer.decide(memory, running, maxMemory, nowNanos);
    if (kill.isPresent()) {
      Job job = jobs.get(kill.get().jobId());
      String message = memoryMessage(job, kill.get(), blocked, clusterBytes);
      LOG.warn("{} stopped: {}", job.describe(), message);
      termination.fail(job, error(new QueryMemoryExceededException(message)));
      stopped = true;
    }
    return stopped;
  }

  /** Why {@code job} passed its run or queued time now, or null. */
  private static String timeLimitPassed(Job job, long nowNanos) {
    QueryLimits limits = job.limits;
    Duration waited = Duration.ofNanos(nowNanos - job.submittedAtNanos);
    if (!job.admitted
        && !limits.maxQueuedTime().isZero()
        && waited.compareTo(limits.maxQueuedTime()) > 0) {
      return "Query "
          + job.id
          + " waited "
          + waited.toMillis()
          + " ms in resource group '"
          + job.group.name()
          + "''s queue, over its limit of "
          + limits.maxQueuedTime().toMillis()
          + " ms; raise "
          + QueryLimits.MAX_QUEUED_TIME_KEY
          + " (capped by the scheduler's --query-max-queued-time) or run it when the group is"
          + " less busy";
    }
    if (!limits.maxRunTime().isZero() && waited.compareTo(limits.maxRunTime()) > 0) {
      return "Query "
          + job.id
          + " ran "
          + waited.toMillis()
          + " ms, over its limit of "
          + limits.maxRunTime().toMillis()
          + " ms; raise "
          + QueryLimits.MAX_RUN_TIME_KEY
          + " (capped by the scheduler's --query-max-run-time) or make the query cheaper";
    }
    return null;
  }

  private String memoryMessage(
      Job job, LowMemoryKiller.Kill kill, Set<String> blocked, long clusterBytes) {
    long peak = Math.max(kill.bytes(), memory.peak(job.id));
    if (kill.reason() == LowMemoryKiller.Reason.QUERY_LIMIT) {
      return "Query "
          + job.id
          + " held "
          + kill.bytes()
          + " bytes of memory across the cluster (peak "
          + peak
          + "), over its limit of "
          + job.limits.maxMemory()
          + " bytes; raise "
          + QueryLimits.MAX_MEMORY_KEY
          + " (capped by the scheduler's --query-max-memory) or make the query hold less";
    }
    return "The cluster ran out of memory (executors "
        + String.join(", ", blocked)
        + " full; "
        + clusterBytes
        + " bytes of executor memory in all) and query "
        + job.id
        + " held the most: "
        + kill.bytes()
        + " bytes (peak "
        + peak
        + "), so it was stopped to let the other queries finish; run it again when the cluster"
        + " is less busy, give the executors more --memory, or bound it with "
        + QueryLimits.MAX_MEMORY_KEY;
  }

  private static ErrorInfo error(RuntimeException e) {
    return ErrorInfo.newBuilder()
        .setKind(e.getClass().getSimpleName())
        .setMessage(e.getMessage())
        .build();
  }
}
