package dev.quiver.scheduler.history;

import dev.quiver.scheduler.config.History;
import dev.quiver.scheduler.job.JobArchive;
import dev.quiver.scheduler.job.RecentJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the archive of finished jobs the settings ask for; never stops the scheduler. */
public final class JobHistory {
  private static final Logger LOG = LoggerFactory.getLogger(JobHistory.class);

  private JobHistory() {}

  /**
   * The history database in {@code settings}' state folder; without a folder, or when the database
   * cannot be opened (corrupt, locked by another scheduler, folder not writable), the last {@link
   * History#IN_MEMORY_JOBS} jobs in memory, after a warning saying why.
   */
  public static JobArchive open(History settings) {
    if (settings.stateDir() == null) {
      return new RecentJobs(Math.min(settings.maxJobs(), History.IN_MEMORY_JOBS));
    }
    try {
      HistoryDatabase db = HistoryDatabase.open(settings, System::currentTimeMillis);
      LOG.info(
          "job history in {} (at most {} jobs, {} days)",
          db.file(),
          settings.maxJobs(),
          settings.maxAge().toDays());
      return db;
    } catch (HistoryUnavailableException e) {
      LOG.warn(
          "running without a job history across restarts: {}; finished jobs are kept in memory"
              + " only (the last {})",
          e.getMessage(),
          History.IN_MEMORY_JOBS);
      return new RecentJobs(Math.min(settings.maxJobs(), History.IN_MEMORY_JOBS));
    }
  }
}
