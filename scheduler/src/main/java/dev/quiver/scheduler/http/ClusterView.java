package dev.quiver.scheduler.http;

import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.job.JobManager;
import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import java.util.List;
import java.util.Optional;

/** What the API and the UI read from the scheduler: its jobs and its executors. */
public final class ClusterView {
  private final JobManager jobs;
  private final ExecutorRegistry registry;
  private final String schedulerAddress;

  /** A view of {@code jobs} and {@code registry}, of the scheduler at {@code schedulerAddress}. */
  public ClusterView(JobManager jobs, ExecutorRegistry registry, String schedulerAddress) {
    this.jobs = jobs;
    this.registry = registry;
    this.schedulerAddress = schedulerAddress;
  }

  /**
   * One executor as the API shows it.
   *
   * @param host the address peers dial
   * @param port its Flight (and control) port
   * @param httpPort its HTTP port (health, metrics), 0 when it serves none
   * @param state ALIVE or LOST
   * @param draining true when it takes no new tasks and exits once its outputs are unneeded
   * @param allocatedBytes Arrow memory in use, as of its last heartbeat
   * @param lastHeartbeatMillis wall-clock time of its last heartbeat, Unix epoch milliseconds
   * @param tasksFinished task attempts it has ended since it started, as of its last heartbeat
   * @param gcMillis time its JVM has spent in garbage collection, as of its last heartbeat
   * @param diskBytes bytes its work directory holds (shuffle output, spills), as of its last
   *     heartbeat
   */
  public record ExecutorView(
      String id,
      String host,
      int port,
      int httpPort,
      int cores,
      long memoryBytes,
      String state,
      int runningTasks,
      int activeTasks,
      long allocatedBytes,
      long shuffleBytes,
      long lastHeartbeatMillis,
      String version,
      long tasksFinished,
      long gcMillis,
      long diskBytes,
      boolean draining) {}

  /** Recent jobs, newest first. */
  public List<JobSummary> jobs() {
    return jobs.jobs();
  }

  /**
   * A page of jobs: the running and recently finished ones when {@code offset} is 0, then at most
   * {@code limit} of the history's, skipping {@code offset} of them, each part newest first.
   */
  public List<JobSummary> jobs(int offset, int limit) {
    return jobs.jobs(offset, limit);
  }

  /** One job with its stages and tasks. */
  public Optional<JobDetail> job(String id) {
    return jobs.job(id);
  }

  /**
   * Cancels a running job.
   *
   * @return empty when the job is unknown, else whether it was running
   */
  public Optional<Boolean> cancel(String id) {
    if (jobs.job(id).isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(jobs.cancel(id));
    } catch (io.grpc.StatusRuntimeException e) {
      if (e.getStatus().getCode() == io.grpc.Status.Code.NOT_FOUND) {
        return Optional.of(false); // finished and forgotten meanwhile: only in the history now
      }
      throw e;
    }
  }

  /** Every executor the scheduler knows, lost ones included, ordered by id. */
  public List<ExecutorView> executors() {
    return registry.list(true).stream().map(ClusterView::executor).toList();
  }

  /**
   * Drains an executor: no new task is placed there; it finishes its running tasks and keeps
   * serving its shuffle outputs until their jobs end.
   *
   * @return false when the executor is unknown or lost
   */
  public boolean drain(String executorId) {
    return registry.drain(executorId);
  }

  /** The scheduler's advertised {@code host:port}. */
  public String schedulerAddress() {
    return schedulerAddress;
  }

  private static ExecutorView executor(ExecutorStatus s) {
    return new ExecutorView(
        s.getInfo().getExecutorId(),
        s.getInfo().getHost(),
        s.getInfo().getFlightPort(),
        s.getInfo().getHttpPort(),
        s.getInfo().getCores(),
        s.getInfo().getMemoryBytes(),
        s.getState().name().replace("EXECUTOR_STATE_", ""),
        s.getRunningTasks(),
        s.getActiveTasks(),
        s.getAllocatedBytes(),
        s.getShuffleBytes(),
        s.getLastSeenUnixMillis(),
        s.getInfo().getVersion(),
        s.getTasksFinished(),
        s.getGcMillis(),
        s.getDiskBytes(),
        s.getDraining());
  }
}
