package dev.quiver.scheduler.job;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.security.JobCapabilities;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs the scheduler remembers: the unfinished and recently finished ones with their submission
 * ids and capabilities; finished ones also go to the {@link JobArchive} for the jobs API.
 *
 * <p>Job loop only, except {@link #checkSubmissionId} and {@link #checkCapability}, which RPC
 * threads call (the capabilities are kept in a concurrent map for them).
 */
final class JobRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(JobRegistry.class);
  private static final int MAX_SUBMISSION_ID = 128;

  /** Finished jobs the jobs list shows after the remembered ones, unless asked for more. */
  public static final int HISTORY_PAGE = 100;

  private final SchedulerClock clock;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Job> jobs = new LinkedHashMap<>();
  private final JobArchive history;

  /** Each remembered job's capability, read by RPC threads to authorize calls on the job. */
  private final Map<String, ByteString> capabilities = new ConcurrentHashMap<>();

  /** The job accepted for each submission id, while the job is remembered. */
  private final Map<String, String> submissions = new HashMap<>();

  private long jobSeq;

  /** Jobs timed on {@code clock}, the last {@link #HISTORY_PAGE} finished ones kept in memory. */
  JobRegistry(SchedulerClock clock) {
    this(clock, new RecentJobs(HISTORY_PAGE));
  }

  /** Jobs timed on {@code clock}, finished ones kept in {@code history}. */
  JobRegistry(SchedulerClock clock, JobArchive history) {
    this.clock = clock;
    this.history = history;
  }

  /**
   * Refuses a submission id longer than is kept (any thread).
   *
   * @throws StatusRuntimeException INVALID_ARGUMENT, giving the length and the limit
   */
  static void checkSubmissionId(String submissionId) {
    if (submissionId.length() > MAX_SUBMISSION_ID) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              "submission_id has "
                  + submissionId.length()
                  + " characters; at most "
                  + MAX_SUBMISSION_ID
                  + " are kept (a UUID has 36)")
          .asRuntimeException();
    }
  }

  /**
   * The job already accepted for {@code submissionId} and still remembered, or null (always for an
   * empty id: no deduplication).
   */
  Job repeated(String submissionId) {
    String known = submissionId.isEmpty() ? null : submissions.get(submissionId);
    return known == null ? null : jobs.get(known);
  }

  /**
   * Remembers a new job for {@code spec}, with a fresh id (letters, digits and dashes: safe in file
   * names) and a fresh capability.
   */
  Job add(JobSpec spec, String submissionId) {
    String id = String.format("job-%d-%016x", ++jobSeq, random.nextLong());
    Job job = new Job(id, jobSeq, spec, submissionId, JobCapabilities.newCapability(), clock);
    jobs.put(id, job);
    capabilities.put(id, job.capability);
    if (!submissionId.isEmpty()) {
      submissions.put(submissionId, id);
    }
    return job;
  }

  /**
   * Refuses a call on job {@code jobId} that does not carry the job's capability (any thread). A
   * job this scheduler does not remember passes (the call then answers NOT_FOUND).
   *
   * @param what the call, e.g. "JobStatus"
   * @throws StatusRuntimeException PERMISSION_DENIED, naming the job but never a capability
   */
  void checkCapability(String jobId, ByteString presented, String what) {
    ByteString expected = capabilities.get(jobId);
    if (expected != null && !JobCapabilities.matches(expected, presented)) {
      LOG.warn("refused {} of job {}: the call did not carry the job's capability", what, jobId);
      throw Status.PERMISSION_DENIED
          .withDescription(
              "permission denied: "
                  + what
                  + " of job "
                  + jobId
                  + " needs the job's capability, which only its submitter got from SubmitJob;"
                  + " a client can watch, cancel and release only its own jobs")
          .asRuntimeException();
    }
  }

  /** The remembered job {@code jobId}, or null. */
  Job get(String jobId) {
    return jobs.get(jobId);
  }

  /**
   * The remembered job {@code jobId}.
   *
   * @throws StatusRuntimeException NOT_FOUND when it is not remembered
   */
  Job require(String jobId) {
    Job job = jobs.get(jobId);
    if (job == null) {
      throw notFound(jobId);
    }
    return job;
  }

  static StatusRuntimeException notFound(String jobId) {
    return Status.NOT_FOUND
        .withDescription(
            "job '"
                + jobId
                + "' is not known to this scheduler: it was never submitted here, or it"
                + " finished and was forgotten after the retention time")
        .asRuntimeException();
  }

  /** The unfinished and recently finished jobs, in submission order (a live view). */
  Collection<Job> live() {
    return jobs.values();
  }

  /** A job just ended: the history keeps it from now on, so a restart does not lose it. */
  void ended(Job job, long nowNanos) {
    history.record(JobSnapshots.detail(job, nowNanos));
  }

  /**
   * Forgets a finished job: its id, capability and submission id are no longer known, and the
   * history keeps its detail as of {@code nowNanos} (its tasks' last reports included).
   */
  void forget(Job job, long nowNanos) {
    jobs.remove(job.id);
    capabilities.remove(job.id);
    history.record(JobSnapshots.detail(job, nowNanos));
    submissions.remove(job.submissionId);
  }

  /** The remembered jobs, then the newest {@link #HISTORY_PAGE} of the history. */
  List<JobViews.JobSummary> summaries() {
    return summaries(0, HISTORY_PAGE);
  }

  /**
   * The remembered jobs newest first (when {@code offset} is 0), then the history's jobs newest
   * first, skipping {@code offset} and at most {@code limit} of them.
   */
  List<JobViews.JobSummary> summaries(int offset, int limit) {
    List<JobViews.JobSummary> out = new ArrayList<>();
    if (offset == 0) {
      List<Job> live = new ArrayList<>(jobs.values());
      for (int i = live.size() - 1; i >= 0; i--) {
        out.add(JobSnapshots.summary(live.get(i)));
      }
    }
    out.addAll(history.recent(offset, limit, jobs.keySet()));
    return out;
  }

  /** A job with its stages and tasks as of {@code nowNanos}, if remembered or in the history. */
  Optional<JobViews.JobDetail> detail(String jobId, long nowNanos) {
    Job job = jobs.get(jobId);
    if (job != null) {
      return Optional.of(JobSnapshots.detail(job, nowNanos));
    }
    return history.find(jobId);
  }

  /** Closes the history (the scheduler stops). */
  void closeHistory() {
    history.close();
  }

  /**
   * Tasks of unfinished jobs waiting to run and running, how many such jobs there are, and how many
   * of the waiting tasks could run now given a slot.
   */
  JobViews.TaskCounts taskCounts() {
    int queued = 0;
    int running = 0;
    int active = 0;
    int ready = 0;
    for (Job job : jobs.values()) {
      if (job.terminal()) {
        continue;
      }
      active++;
      if (job.admitted) {
        ready += ReadyTasks.of(job).tasks().size();
      }
      for (StageRun stage : job.stages.values()) {
        for (TaskRun t : stage.tasks) {
          if (t.phase == TaskRun.Phase.WAITING) {
            queued++;
          } else if (t.phase == TaskRun.Phase.RUNNING) {
            running++;
          }
        }
      }
    }
    return new JobViews.TaskCounts(queued, running, active, ready);
  }
}
