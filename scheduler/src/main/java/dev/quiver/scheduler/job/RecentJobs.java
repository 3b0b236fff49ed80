package dev.quiver.scheduler.job;

import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The last finished jobs, with all their details, in memory only: gone at a restart. */
public final class RecentJobs implements JobArchive {
  private final int max;

  /** By id, oldest first. */
  private final LinkedHashMap<String, JobDetail> jobs = new LinkedHashMap<>();

  /** Keeps at most {@code max} jobs; the oldest go first. */
  public RecentJobs(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("keeps at least 1 job, got " + max);
    }
    this.max = max;
  }

  @Override
  public void record(JobDetail job) {
    JobSummary s = job.summary().inHistory();
    // Recorded again when forgotten: it keeps its place, as it keeps its end time.
    jobs.put(s.id(), new JobDetail(s, job.stages(), job.finalStageId(), job.dot()));
    Iterator<Map.Entry<String, JobDetail>> oldest = jobs.entrySet().iterator();
    while (jobs.size() > max) {
      oldest.next();
      oldest.remove();
    }
  }

  @Override
  public List<JobSummary> recent(int offset, int limit, Set<String> except) {
    List<JobDetail> all = new ArrayList<>(jobs.values());
    List<JobSummary> out = new ArrayList<>();
    int skipped = 0;
    for (int i = all.size() - 1; i >= 0 && out.size() < limit; i--) {
      JobSummary s = all.get(i).summary();
      if (except.contains(s.id())) {
        continue;
      }
      if (skipped++ >= offset) {
        out.add(s);
      }
    }
    return out;
  }

  @Override
  public Optional<JobDetail> find(String id) {
    return Optional.ofNullable(jobs.get(id));
  }

  @Override
  public void close() {
    jobs.clear();
  }
}
