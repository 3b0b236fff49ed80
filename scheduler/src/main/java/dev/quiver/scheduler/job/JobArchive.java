package dev.quiver.scheduler.job;

import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where finished jobs are kept for the jobs API and web UI once they end: {@link RecentJobs} in
 * memory, or the history database of the scheduler's state folder (which survives restarts). Job
 * loop only; an archive that cannot store reports it in the log and never throws.
 */
public interface JobArchive extends AutoCloseable {

  /**
   * Keeps a finished job, replacing what was kept under its id (it is recorded again when
   * forgotten).
   */
  void record(JobDetail job);

  /**
   * Finished jobs newest first (by end time), skipping {@code offset} and at most {@code limit},
   * leaving out those whose ids are in {@code except} (jobs the scheduler still remembers).
   */
  List<JobSummary> recent(int offset, int limit, Set<String> except);

  /** A kept job. */
  Optional<JobDetail> find(String id);

  /** Releases what it holds; it keeps nothing afterwards. */
  @Override
  void close();
}
