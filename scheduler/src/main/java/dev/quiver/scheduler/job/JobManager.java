package dev.quiver.scheduler.job;

import com.google.protobuf.ByteString;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.HeartbeatRequest;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.scheduler.admission.ResourceGroups;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs jobs: launches each stage's tasks once its inputs are complete, places them on executors,
 * follows task reports, retries and re-runs, and streams job status to watchers. This is the facade
 * the scheduler's gRPC service and HTTP views call.
 *
 * <p>All job state is owned by one loop thread ({@link JobLoop}); RPC handlers, executor callbacks
 * and the liveness checker hand it events, so no state is shared between threads. This class keeps
 * the entry points, executor registration and loss, and the periodic checks; the parts, each used
 * on the loop only:
 *
 * <ul>
 *   <li>{@link JobRegistry}: the jobs remembered, their submission ids and capabilities, history;
 *   <li>{@link SchedulingPass}: launches what {@link ReadyTasks} finds ready where {@link
 *       Placement} puts it, and copies of what {@link Stragglers} finds slow (all three pure);
 *   <li>{@link Attempts}: running attempts, launched and cancelled through {@link ExecutorCalls};
 *   <li>{@link TaskReports}: executors' reports; {@link Recovery}: failures and lost executors;
 *   <li>{@link JobTermination}: the end of a job and the removal of its data;
 *   <li>{@link StatusPublisher}: status streams.
 * </ul>
 */
public final class JobManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobManager.class);
  private static final long RPC_DEADLINE_MILLIS = 30_000;

  private final ExecutorRegistry registry;
  private final SchedulerClock clock;
  private final SchedulerConfig config;
  private final JobMetrics metrics;
  private final ExecutorCalls calls;
  private final StatusPublisher status = new StatusPublisher();
  private final JobLoop loop;
  private final JobRegistry jobs;
  private final Recovery recovery;
  private final SchedulingPass pass;
  private final JobTermination termination;
  private final TaskReports reports;
  private final Admissions admissions;
  private final LimitChecks limits;

  /**
   * A job manager placing tasks on the executors of {@code registry}, timing jobs on the registry's
   * clock; call {@link #start}.
   */
  public JobManager(ExecutorRegistry registry, SchedulerConfig config) {
    this(registry, config, JobMetrics.unexposed());
  }

  /** As {@link #JobManager(ExecutorRegistry, SchedulerConfig)}, counting into {@code metrics}. */
  public JobManager(ExecutorRegistry registry, SchedulerConfig config, JobMetrics metrics) {
    this(registry, config, metrics, GrpcTransport.NETTY);
  }

  /**
   * As {@link #JobManager(ExecutorRegistry, SchedulerConfig, JobMetrics, GrpcTransport,
   * JobArchive)} keeping the last {@link JobRegistry#HISTORY_PAGE} finished jobs in memory.
   */
  public JobManager(
      ExecutorRegistry registry,
      SchedulerConfig config,
      JobMetrics metrics,
      GrpcTransport transport) {
    this(registry, config, metrics, transport, new RecentJobs(JobRegistry.HISTORY_PAGE));
  }

  /**
   * As {@link #JobManager(ExecutorRegistry, SchedulerConfig, JobMetrics)}, calling executors over
   * {@code transport} and keeping finished jobs in {@code history}, which it closes on {@link
   * #close}.
   */
  public JobManager(
      ExecutorRegistry registry,
      SchedulerConfig config,
      JobMetrics metrics,
      GrpcTransport transport,
      JobArchive history) {
    this.registry = registry;
    this.clock = registry.clock();
    this.config = config;
    this.metrics = metrics;
    this.calls = new ExecutorCalls(RPC_DEADLINE_MILLIS, config, transport);
    this.loop = new JobLoop(RPC_DEADLINE_MILLIS, status::publish);
    this.jobs = new JobRegistry(clock, history);
    this.admissions = new Admissions(config.resourceGroups(), jobs, status);
    Attempts attempts = new Attempts(clock, metrics, status, calls, new LoopOutcomes());
    this.termination =
        new JobTermination(registry, metrics, status, calls, attempts, admissions, jobs);
    this.recovery =
        new Recovery(
            jobs, attempts, termination, this::schedule, registry, config, metrics, calls, status);
    this.limits = new LimitChecks(registry, jobs, termination, config.heartbeatInterval());
    this.pass =
        new SchedulingPass(
            registry,
            config,
            jobs,
            attempts,
            recovery.unreachable(),
            status,
            limits::groupsOverShare);
    this.reports = new TaskReports(registry, calls, jobs, attempts, recovery, termination, pass);
  }

  /**
   * Starts the periodic checks (executor wait, finished job retention, unreachable executors),
   * which read the registry's clock ({@link ExecutorRegistry#clock}).
   */
  public void start() {
    long period = Math.max(10, Math.min(250, config.noExecutorTimeout().toMillis() / 5));
    loop.every(period, this::tick);
  }

  // ------------------------------------------------------------------------------------------
  // Entry points (any thread)
  // ------------------------------------------------------------------------------------------

  /**
   * Accepts a job.
   *
   * @return the job id (letters, digits and dashes: safe in file names)
   * @throws StatusRuntimeException INVALID_ARGUMENT when the stage graph is malformed
   */
  public String submit(JobSpec spec) {
    return submit(spec, "");
  }

  /**
   * Accepts a job, or returns the job already accepted for {@code submissionId} (a client retrying
   * a submission whose answer it lost); empty means no deduplication.
   *
   * @return the job id (letters, digits and dashes: safe in file names)
   * @throws StatusRuntimeException INVALID_ARGUMENT when the stage graph is malformed
   */
  public String submit(JobSpec spec, String submissionId) {
    return submitJob(spec, submissionId, spec.getUser()).jobId();
  }

  /** A job accepted: its id and its capability (a secret only the submitter learns). */
  public record Submitted(String jobId, ByteString capability) {
    @Override
    public String toString() {
      return "Submitted[" + jobId + ", capability=<redacted>]";
    }
  }

  /**
   * As {@link #submit(JobSpec, String)}, also returning the job's capability, which watching,
   * cancelling and releasing the job and reading its shuffle output need (see {@link
   * #checkCapability}). The job runs as {@code user} ("" for none) in the resource group its
   * session or the group selectors choose; it waits there while the group runs its most jobs.
   *
   * @throws StatusRuntimeException INVALID_ARGUMENT as {@link #submit}, or when the session names
   *     an unknown resource group; RESOURCE_EXHAUSTED when the group's queue is full
   */
  public Submitted submitJob(JobSpec submitted, String submissionId, String user) {
    JobSpecValidator.validate(submitted);
    JobRegistry.checkSubmissionId(submissionId);
    QueryLimits queryLimits;
    try {
      queryLimits = QueryLimits.of(submitted.getSettingsMap()).cappedBy(config.queryLimits());
    } catch (QuiverException e) {
      throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
    }
    // Executors enforce the limit per executor from the settings they get: the capped one.
    JobSpec spec =
        submitted.toBuilder()
            .clearSettings()
            .putAllSettings(queryLimits.applyTo(submitted.getSettingsMap()))
            .build();
    return loop.call(
        () -> {
          Job known = jobs.repeated(submissionId);
          if (known != null) {
            // The submission id is the submitter's secret (a random UUID), so it is not logged.
            LOG.info("a submission was repeated: it is {}", known.describe());
            return new Submitted(known.id, known.capability);
          }
          ResourceGroups.Group group = admissions.choose(spec, user);
          Job job = jobs.add(spec, submissionId);
          job.user = user;
          job.group = group;
          job.limits = queryLimits;
          admissions.enter(job);
          status.changed(job);
          metrics.jobSubmitted();
          LOG.debug(
              "{} submitted: {} stages, final stage {}",
              job.describe(),
              spec.getStagesCount(),
              spec.getFinalStageId());
          schedule();
          return new Submitted(job.id, job.capability);
        });
  }

  /**
   * Refuses a call on job {@code jobId} that does not carry the job's capability: a client can
   * watch, cancel and release only the jobs it submitted, even when clients share a token. A job
   * this scheduler does not know passes (the call then answers NOT_FOUND as before). Any thread.
   *
   * @param what the call, e.g. "JobStatus"
   * @throws StatusRuntimeException PERMISSION_DENIED, naming the job but never a capability
   */
  public void checkCapability(String jobId, ByteString presented, String what) {
    jobs.checkCapability(jobId, presented, what);
  }

  /** Streams a job's status: the current state now, then every change until it finishes. */
  public void watch(String jobId, ServerCallStreamObserver<JobStatusUpdate> out) {
    out.setOnCancelHandler(() -> loop.post(() -> unwatch(jobId, out)));
    loop.post(
        () -> {
          Job job = jobs.get(jobId);
          if (job == null) {
            out.onError(JobRegistry.notFound(jobId));
            return;
          }
          status.watch(job, out);
        });
  }

  /** The job's status right now. */
  public JobStatusUpdate status(String jobId) {
    return loop.call(() -> StatusPublisher.snapshot(jobs.require(jobId)));
  }

  /**
   * The jobs this scheduler remembers, then the newest {@link JobRegistry#HISTORY_PAGE} of its
   * history, each part newest first.
   */
  public List<JobViews.JobSummary> jobs() {
    return loop.call(jobs::summaries);
  }

  /**
   * A page of the jobs list: the remembered jobs when {@code offset} is 0, then the history's jobs
   * newest first, skipping {@code offset} and at most {@code limit} of them.
   */
  public List<JobViews.JobSummary> jobs(int offset, int limit) {
    return loop.call(() -> jobs.summaries(offset, limit));
  }

  /** A job with its stages and tasks, if this scheduler knows it or finished it recently. */
  public Optional<JobViews.JobDetail> job(String jobId) {
    return loop.call(() -> jobs.detail(jobId, clock.nanoTime()));
  }

  /** Tasks of unfinished jobs waiting to run and running, and how many such jobs there are. */
  public JobViews.TaskCounts taskCounts() {
    return loop.call(jobs::taskCounts);
  }

  /** Whether the job loop takes work (it stops when the scheduler shuts down). */
  public boolean accepting() {
    return loop.accepting();
  }

  /**
   * Cancels a job: its running tasks are cancelled and its data removed.
   *
   * @return false when the job had already finished
   */
  public boolean cancel(String jobId) {
    return loop.call(
        () -> {
          Job job = jobs.require(jobId);
          if (job.terminal()) {
            return false;
          }
          LOG.info("{} cancelled by the client", job.describe());
          termination.finish(job, JobState.JOB_STATE_CANCELLED, null);
          schedule();
          return true;
        });
  }

  /** The client is done with the job: executors delete its data (a running job is cancelled). */
  public void release(String jobId) {
    loop.call(
        () -> {
          Job job = jobs.require(jobId);
          if (!job.terminal()) {
            LOG.info("{} released while running: cancelling it", job.describe());
            termination.finish(job, JobState.JOB_STATE_CANCELLED, null);
            schedule();
          }
          termination.removeData(job);
          return null;
        });
  }

  /**
   * Records the end of a task attempt; reports of unknown jobs and stale attempts are ignored.
   *
   * @throws StatusRuntimeException INVALID_ARGUMENT when the report is malformed
   */
  public void report(TaskStatusReport report) {
    if (report.getTask().getJobId().isEmpty() || report.getExecutorId().isEmpty()) {
      throw Status.INVALID_ARGUMENT
          .withDescription("a task status report needs the task's job id and the executor id")
          .asRuntimeException();
    }
    TaskState state = report.getState();
    if (state != TaskState.TASK_STATE_SUCCEEDED
        && state != TaskState.TASK_STATE_FAILED
        && state != TaskState.TASK_STATE_CANCELLED) {
      throw Status.INVALID_ARGUMENT
          .withDescription(
              "task status report for job "
                  + report.getTask().getJobId()
                  + " has state "
                  + state
                  + "; report only SUCCEEDED, FAILED or CANCELLED")
          .asRuntimeException();
    }
    loop.post(() -> reports.handle(report));
  }

  /**
   * The next scan splits of a running task attempt (work stealing, {@link SplitQueue}), answered
   * from the job loop without blocking the caller: an executor in this process calls in on its
   * task's thread. Fails with the status {@link SplitHandouts#answer} gives.
   */
  public CompletableFuture<NextSplitsResponse> nextSplits(NextSplitsRequest request) {
    CompletableFuture<NextSplitsResponse> answer = new CompletableFuture<>();
    if (!loop.accepting()) {
      answer.completeExceptionally(
          Status.UNAVAILABLE
              .withDescription("the scheduler is shutting down")
              .asRuntimeException());
      return answer;
    }
    loop.post(
        () -> {
          try {
            answer.complete(SplitHandouts.answer(jobs, request));
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
          }
        });
    return answer;
  }

  /** An executor's heartbeat, for what it says of each job's memory ({@link LimitChecks}). */
  public void heartbeat(HeartbeatRequest beat) {
    if (loop.accepting()) {
      loop.post(
          () -> {
            limits.heartbeat(beat);
            if (limits.check(clock.nanoTime())) {
              schedule();
            }
          });
    }
  }

  /**
   * Registers an executor in the registry and with the jobs, as one event of the job loop. Every
   * change of who is registered (this, {@link #expireSilentExecutors}, a broken connection, an
   * unreachable executor) is made on the loop together with what it means for the jobs, so an event
   * about an executor's former process is handled wholly before or wholly after its new
   * registration: it can never mark the new process lost.
   *
   * @return true when the id was not known as alive; false when it was: the executor restarted, and
   *     what its previous process held is gone
   * @throws StatusRuntimeException UNAVAILABLE when the scheduler is shutting down
   */
  public boolean register(ExecutorInfo info) {
    return loop.call(
        () -> {
          String id = info.getExecutorId();
          boolean fresh = registry.register(info);
          if (!fresh) {
            recovery.executorLost(id, "it registered again, so it restarted");
          }
          recovery.registered(id);
          // The new process gets a watched channel of its own, whatever the old one's address: a
          // broken-connection event of the old channel is then no longer current.
          calls.forget(id);
          calls.connect(info, this::connectionBroken);
          schedule();
          return fresh;
        });
  }

  /**
   * The watched connection to an executor broke and could not be re-established ({@code
   * generation}: the channel's, see {@link #channelGeneration}).
   */
  void connectionBroken(String executorId, long generation) {
    loop.post(
        () -> {
          if (calls.isCurrent(executorId, generation)) {
            declareLost(executorId, "its connection broke and reconnecting was refused");
            schedule();
          }
        });
  }

  /** The generation of the channel the executor is reached on now, or -1 without one (tests). */
  long channelGeneration(String executorId) {
    return loop.call(() -> calls.generation(executorId));
  }

  /**
   * The application is closing the cluster (an embedded one): executors that leave from now on were
   * asked to, so their going is no news ({@link Recovery#expectDepartures}).
   */
  public void expectDepartures() {
    recovery.expectDepartures();
  }

  /** Marks an executor lost in the registry (it must register again) and re-runs its work. */
  private void declareLost(String executorId, String why) {
    if (registry.markLost(executorId).isPresent()) {
      recovery.executorLost(executorId, why);
    }
  }

  /**
   * Marks lost the executors silent for longer than the heartbeat timeout, and re-runs their tasks
   * and the outputs still needed, on the loop (see {@link #register}).
   *
   * @return the executors marked lost by this call
   * @throws StatusRuntimeException UNAVAILABLE when the scheduler is shutting down
   */
  public List<ExecutorInfo> expireSilentExecutors() {
    return loop.call(
        () -> {
          List<ExecutorInfo> lost = registry.expire();
          for (ExecutorInfo info : lost) {
            recovery.executorLost(info.getExecutorId(), "it sent no heartbeat in time");
          }
          if (!lost.isEmpty()) {
            schedule();
          }
          return lost;
        });
  }

  /** Ends every status stream and stops the loop; executors keep their data. */
  @Override
  public void close() {
    loop.close(
        () -> {
          StatusPublisher.shutDown(jobs.live());
          jobs.closeHistory();
        });
    calls.close();
  }

  // ------------------------------------------------------------------------------------------
  // Periodic checks and the scheduling pass (job loop)
  // ------------------------------------------------------------------------------------------

  /** Runs the periodic checks now, on the loop (tests call it after advancing the clock). */
  void checkTimers() {
    loop.call(
        () -> {
          tick();
          return null;
        });
  }

  private void tick() {
    long now = clock.nanoTime();
    recovery.expireUnreachable(now);
    limits.check(now);
    schedule();
    for (Job job : List.copyOf(jobs.live())) {
      if (!job.terminal()
          && job.waitingSinceNanos >= 0
          && now - job.waitingSinceNanos >= config.noExecutorTimeout().toNanos()) {
        termination.fail(
            job,
            ErrorInfo.newBuilder()
                .setKind("QuiverException")
                .setMessage(
                    pass.noUsableExecutors()
                        + ": "
                        + job.describe()
                        + " waited "
                        + Duration.ofNanos(now - job.waitingSinceNanos).toMillis()
                        + " ms for one; start executors with --scheduler pointing here")
                .build());
      } else if (job.terminal()
          && now - job.finishedAtNanos >= config.finishedJobRetention().toNanos()) {
        termination.removeData(job);
        jobs.forget(job, now);
        LOG.debug("{} forgotten", job.describe());
      }
    }
  }

  /** Launches what is ready where slots are free (see {@link SchedulingPass}). */
  private void schedule() {
    pass.run();
  }

  /** Executors' answers to launches and cancels, acted on as events of the loop. */
  private final class LoopOutcomes implements Attempts.Outcomes {
    @Override
    public void launchRefused(TaskRun task, int number, ExecutorInfo target, Status refusal) {
      loop.post(() -> recovery.launchFailed(task, number, target, refusal));
    }

    @Override
    public void cancelUnreachable(String executorId, long generation) {
      loop.post(
          () -> {
            // Only if the call went to the process registered now, not to one it replaced.
            if (calls.isCurrent(executorId, generation)) {
              declareLost(executorId, "CancelTasks could not reach it");
              schedule();
            }
          });
    }
  }

  private void unwatch(String jobId, ServerCallStreamObserver<JobStatusUpdate> out) {
    Job job = jobs.get(jobId);
    if (job != null) {
      job.watchers.remove(out);
    }
  }
}
