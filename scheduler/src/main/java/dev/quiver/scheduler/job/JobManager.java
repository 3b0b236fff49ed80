package dev.quiver.scheduler.job;

import com.google.protobuf.ByteString;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.security.JobCapabilities;
import dev.quiver.distributed.transport.GrpcTransport;
import dev.quiver.scheduler.config.SchedulerConfig;
import dev.quiver.scheduler.config.Speculation;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.time.SchedulerClock;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs jobs: launches each stage's tasks once its inputs are complete, places them on executors,
 * follows task reports, retries and re-runs, and streams job status to watchers.
 *
 * <p>All job state is owned by one loop thread ({@link JobLoop}); RPC handlers, executor callbacks
 * and the liveness checker hand it events, so no state is shared between threads. This class keeps
 * the entry points, the jobs and their running attempts; {@link Placement} decides where tasks go,
 * {@link ExecutorCalls} makes the calls to executors, {@link Recovery} handles failures and lost
 * executors, and {@link StatusPublisher} streams status.
 */
public final class JobManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobManager.class);
  private static final long RPC_DEADLINE_MILLIS = 30_000;
  private static final String NO_EXECUTORS = "no executors are registered with the scheduler";
  private static final int MAX_SUBMISSION_ID = 128;

  /** Finished jobs kept for the jobs API after they are forgotten, newest last. */
  static final int HISTORY = 100;

  private final ExecutorRegistry registry;
  private final SchedulerClock clock;
  private final SchedulerConfig config;
  private final JobMetrics metrics;
  private final ExecutorCalls calls;
  private final StatusPublisher status = new StatusPublisher();
  private final JobLoop loop;
  private final Recovery recovery;
  private final SecureRandom random = new SecureRandom();

  // Loop-thread state.
  private final Map<String, Job> jobs = new LinkedHashMap<>();
  private final Map<String, Set<TaskRun>> running = new HashMap<>();
  private final java.util.ArrayDeque<JobViews.JobDetail> history = new java.util.ArrayDeque<>();

  /** Each remembered job's capability, read by RPC threads to authorize calls on the job. */
  private final Map<String, ByteString> capabilities = new ConcurrentHashMap<>();

  /** The job accepted for each submission id, while the job is remembered. */
  private final Map<String, String> submissions = new HashMap<>();

  private long jobSeq;
  private long eventSeq;
  private String lastPicked = "";

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
   * As {@link #JobManager(ExecutorRegistry, SchedulerConfig, JobMetrics)}, calling executors over
   * {@code transport}.
   */
  public JobManager(
      ExecutorRegistry registry,
      SchedulerConfig config,
      JobMetrics metrics,
      GrpcTransport transport) {
    this.registry = registry;
    this.clock = registry.clock();
    this.config = config;
    this.metrics = metrics;
    this.calls = new ExecutorCalls(RPC_DEADLINE_MILLIS, config, transport);
    this.loop = new JobLoop(RPC_DEADLINE_MILLIS, status::publish);
    this.recovery = new Recovery(this, registry, config, metrics, calls, status);
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
    return submitJob(spec, submissionId).jobId();
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
   * #checkCapability}).
   */
  public Submitted submitJob(JobSpec spec, String submissionId) {
    JobSpecValidator.validate(spec);
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
    return loop.call(
        () -> {
          String known = submissionId.isEmpty() ? null : submissions.get(submissionId);
          if (known != null && jobs.containsKey(known)) {
            // The submission id is the submitter's secret (a random UUID), so it is not logged.
            Job job = jobs.get(known);
            LOG.info("a submission was repeated: it is {}", job.describe());
            return new Submitted(known, job.capability);
          }
          String id = String.format("job-%d-%016x", ++jobSeq, random.nextLong());
          Job job = new Job(id, jobSeq, spec, submissionId, JobCapabilities.newCapability(), clock);
          jobs.put(id, job);
          capabilities.put(id, job.capability);
          if (!submissionId.isEmpty()) {
            submissions.put(submissionId, id);
          }
          status.changed(job);
          metrics.jobSubmitted();
          LOG.info(
              "{} submitted: {} stages, final stage {}",
              job.describe(),
              spec.getStagesCount(),
              spec.getFinalStageId());
          schedule();
          return new Submitted(id, job.capability);
        });
  }

  /**
   * Refuses a call on job {@code jobId} that does not carry the job's capability: a client can
   * watch, cancel and release only the jobs it submitted, even when clients share a token. A job
   * this scheduler does not know passes (the call then answers NOT_FOUND as before).
   *
   * @param what the call, e.g. "JobStatus"
   * @throws StatusRuntimeException PERMISSION_DENIED, naming the job but never a capability
   */
  public void checkCapability(String jobId, ByteString presented, String what) {
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

  /** Streams a job's status: the current state now, then every change until it finishes. */
  public void watch(String jobId, ServerCallStreamObserver<JobStatusUpdate> out) {
    out.setOnCancelHandler(() -> loop.post(() -> unwatch(jobId, out)));
    loop.post(
        () -> {
          Job job = jobs.get(jobId);
          if (job == null) {
            out.onError(notFound(jobId));
            return;
          }
          status.watch(job, out);
        });
  }

  /** The job's status right now. */
  public JobStatusUpdate status(String jobId) {
    return loop.call(() -> StatusPublisher.snapshot(require(jobId)));
  }

  /** The jobs this scheduler knows and those it finished recently, newest first. */
  public List<JobViews.JobSummary> jobs() {
    return loop.call(
        () -> {
          List<JobViews.JobSummary> out = new ArrayList<>();
          List<Job> live = new ArrayList<>(jobs.values());
          for (int i = live.size() - 1; i >= 0; i--) {
            out.add(JobSnapshots.summary(live.get(i)));
          }
          java.util.Iterator<JobViews.JobDetail> old = history.descendingIterator();
          while (old.hasNext()) {
            out.add(old.next().summary());
          }
          return out;
        });
  }

  /** A job with its stages and tasks, if this scheduler knows it or finished it recently. */
  public Optional<JobViews.JobDetail> job(String jobId) {
    return loop.call(
        () -> {
          Job job = jobs.get(jobId);
          if (job != null) {
            return Optional.of(JobSnapshots.detail(job, clock.nanoTime()));
          }
          return history.stream().filter(d -> d.summary().id().equals(jobId)).findFirst();
        });
  }

  /** Tasks of unfinished jobs waiting to run and running, and how many such jobs there are. */
  public JobViews.TaskCounts taskCounts() {
    return loop.call(
        () -> {
          int queued = 0;
          int runningTasks = 0;
          int active = 0;
          for (Job job : jobs.values()) {
            if (job.terminal()) {
              continue;
            }
            active++;
            for (StageRun stage : job.stages.values()) {
              for (TaskRun t : stage.tasks) {
                if (t.phase == TaskRun.Phase.WAITING) {
                  queued++;
                } else if (t.phase == TaskRun.Phase.RUNNING) {
                  runningTasks++;
                }
              }
            }
          }
          return new JobViews.TaskCounts(queued, runningTasks, active);
        });
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
          Job job = require(jobId);
          if (job.terminal()) {
            return false;
          }
          LOG.info("{} cancelled by the client", job.describe());
          finish(job, JobState.JOB_STATE_CANCELLED, null);
          return true;
        });
  }

  /** The client is done with the job: executors delete its data (a running job is cancelled). */
  public void release(String jobId) {
    loop.call(
        () -> {
          Job job = require(jobId);
          if (!job.terminal()) {
            LOG.info("{} released while running: cancelling it", job.describe());
            finish(job, JobState.JOB_STATE_CANCELLED, null);
          }
          removeData(job);
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
    loop.post(() -> onReport(report));
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
    loop.close(() -> StatusPublisher.shutDown(jobs.values()));
    calls.close();
  }

  // ------------------------------------------------------------------------------------------
  // Loop helpers and periodic checks
  // ------------------------------------------------------------------------------------------

  private Job require(String jobId) {
    Job job = jobs.get(jobId);
    if (job == null) {
      throw notFound(jobId);
    }
    return job;
  }

  private static StatusRuntimeException notFound(String jobId) {
    return Status.NOT_FOUND
        .withDescription(
            "job '"
                + jobId
                + "' is not known to this scheduler: it was never submitted here, or it"
                + " finished and was forgotten after the retention time")
        .asRuntimeException();
  }

  /** Why no task can be placed: no executor at all, or why each alive one takes none. */
  private String noUsableExecutors() {
    String why = registry.whyNoneSchedulable();
    return why.isEmpty() ? NO_EXECUTORS : "no executor can take tasks: " + why;
  }

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
    schedule();
    for (Job job : List.copyOf(jobs.values())) {
      if (!job.terminal()
          && job.waitingSinceNanos >= 0
          && now - job.waitingSinceNanos >= config.noExecutorTimeout().toNanos()) {
        fail(
            job,
            ErrorInfo.newBuilder()
                .setKind("QuiverException")
                .setMessage(
                    noUsableExecutors()
                        + ": "
                        + job.describe()
                        + " waited "
                        + Duration.ofNanos(now - job.waitingSinceNanos).toMillis()
                        + " ms for one; start executors with --scheduler pointing here")
                .build());
      } else if (job.terminal()
          && now - job.finishedAtNanos >= config.finishedJobRetention().toNanos()) {
        removeData(job);
        jobs.remove(job.id);
        capabilities.remove(job.id);
        history.addLast(JobSnapshots.detail(job, now));
        while (history.size() > HISTORY) {
          history.removeFirst();
        }
        submissions.remove(job.submissionId);
        LOG.debug("{} forgotten", job.describe());
      }
    }
  }

  // ------------------------------------------------------------------------------------------
  // Placement and launch
  // ------------------------------------------------------------------------------------------

  /**
   * Launches ready tasks, jobs in submission order, while executors have free slots; slots left
   * over go to speculative copies of stragglers.
   */
  void schedule() {
    List<ExecutorInfo> usable = Placement.usable(registry.schedulable(), recovery.unreachable());
    Map<String, Integer> free = Placement.freeSlots(usable, running);
    for (Job job : List.copyOf(jobs.values())) {
      if (job.terminal()) {
        continue;
      }
      List<TaskRun> ready = new ArrayList<>();
      collectReady(job.finalStage, new HashSet<>(), ready);
      if (ready.isEmpty() || !usable.isEmpty()) {
        job.waitingSinceNanos = -1;
      } else if (job.waitingSinceNanos < 0) {
        job.waitingSinceNanos = clock.nanoTime();
        LOG.warn("{} is waiting: {}", job.describe(), noUsableExecutors());
      }
      for (TaskRun task : ready) {
        if (!Placement.hasFreeSlot(free)) {
          return;
        }
        ExecutorInfo target = place(task, usable, free, null);
        if (target != null) {
          launch(task, target, false);
        }
      }
    }
    if (Placement.hasFreeSlot(free)) {
      speculate(usable, free);
    }
  }

  /** Waiting tasks of stages whose inputs are complete, producers before consumers. */
  private void collectReady(StageRun stage, Set<StageRun> visited, List<TaskRun> out) {
    if (!visited.add(stage) || stage.complete()) {
      return;
    }
    boolean inputsDone = true;
    for (StageRun input : stage.inputs) {
      collectReady(input, visited, out);
      inputsDone &= input.complete();
    }
    if (!inputsDone) {
      return;
    }
    if (stage.rowLimit >= 0) {
      readyWithinRowLimit(stage, out);
      return;
    }
    for (TaskRun t : stage.tasks) {
      if (t.phase == TaskRun.Phase.WAITING) {
        out.add(t);
      }
    }
  }

  /**
   * The tasks to run now of a stage whose consumers need at most {@code rowLimit} rows (a LIMIT
   * above a gather), in waves as Spark's take() does: one task first, then, when a wave has ended
   * with too few rows, up to four times as many as ran (fewer when the rows so far say fewer will
   * do). Once the tasks that succeeded wrote enough rows, the others are cancelled or never run:
   * they are skipped, and their consumers read nothing from them.
   */
  private void readyWithinRowLimit(StageRun stage, List<TaskRun> out) {
    long rows = stage.rowsWritten();
    List<TaskRun> waiting = new ArrayList<>();
    int running = 0;
    int ran = 0;
    int skipped = 0;
    for (TaskRun t : stage.tasks) {
      switch (t.phase) {
        case WAITING -> waiting.add(t);
        case RUNNING -> running++;
        case SUCCEEDED -> {
          if (t.skipped) {
            skipped++;
          } else {
            ran++;
          }
        }
      }
    }
    if (rows >= stage.rowLimit) {
      Map<String, List<TaskId>> batch = new LinkedHashMap<>();
      int skipping = 0;
      for (TaskRun t : stage.tasks) {
        if (t.phase != TaskRun.Phase.SUCCEEDED) {
          cancelAttempts(t, batch);
          t.skip();
          skipping++;
        }
      }
      sendCancels(stage.job, batch, "its stage's row limit is met");
      if (skipping > 0) {
        status.changed(stage.job);
        LOG.info(
            "{}: stage {} has the {} rows its consumer needs from {} of its {} tasks; skipping"
                + " the other {}",
            stage.job.describe(),
            stage.id(),
            stage.rowLimit,
            ran,
            stage.tasks.size(),
            skipping);
      }
      return;
    }
    if (running > 0) {
      return; // the current wave decides how many run next
    }
    if (waiting.isEmpty()) {
      // Re-runs wrote fewer rows than before: the skipped tasks must run after all.
      for (TaskRun t : stage.tasks) {
        if (t.skipped) {
          t.skipped = false;
          t.phase = TaskRun.Phase.WAITING;
          out.add(t);
        }
      }
      return;
    }
    long wave = Placement.nextWave(stage.rowLimit, ran, rows);
    out.addAll(waiting.subList(0, (int) Math.min(waiting.size(), wave)));
  }

  /**
   * The executor {@link Placement#choose} picks for {@code task}, whose slot it takes; {@code busy}
   * (may be null) is an executor the task already runs on. Null when none can take it now.
   */
  private ExecutorInfo place(
      TaskRun task, List<ExecutorInfo> usable, Map<String, Integer> free, String busy) {
    ExecutorInfo pick =
        Placement.choose(
            usable, free, task.failedOn, Placement.inputBytesByExecutor(task), busy, lastPicked);
    if (pick != null) {
      lastPicked = pick.getExecutorId();
      free.merge(pick.getExecutorId(), -1, Integer::sum);
    }
    return pick;
  }

  /**
   * Launches a second attempt, on another executor, of every running task much slower than its
   * stage's finished tasks (Spark's speculation): once a quantile of the stage's tasks succeeded, a
   * task running longer than a multiple of their median (and a minimum) gets a copy; the first
   * attempt to succeed wins and the other is cancelled.
   */
  private void speculate(List<ExecutorInfo> usable, Map<String, Integer> free) {
    Speculation policy = config.speculation();
    if (!policy.enabled()) {
      return;
    }
    long now = clock.nanoTime();
    for (Job job : List.copyOf(jobs.values())) {
      if (job.terminal()) {
        continue;
      }
      for (StageRun stage : job.stages.values()) {
        long threshold = stage.speculationThresholdNanos(policy);
        if (threshold < 0) {
          continue;
        }
        for (TaskRun task : stage.tasks) {
          if (task.phase != TaskRun.Phase.RUNNING || task.running.size() != 1) {
            continue;
          }
          TaskRun.Attempt slow = task.running.get(0);
          if (now - slow.launchedNanos() <= threshold) {
            continue;
          }
          if (!Placement.hasFreeSlot(free)) {
            return;
          }
          ExecutorInfo target = place(task, usable, free, slow.executorId());
          if (target != null) {
            LOG.info(
                "{}: {} has run {} ms on executor '{}', over {} ms ({} x the median of its"
                    + " stage's finished tasks): launching a speculative copy on '{}'",
                job.describe(),
                task.describe(slow),
                TimeUnit.NANOSECONDS.toMillis(now - slow.launchedNanos()),
                slow.executorId(),
                TimeUnit.NANOSECONDS.toMillis(threshold),
                policy.multiplier(),
                target.getExecutorId());
            launch(task, target, true);
          }
        }
      }
    }
  }

  private void launch(TaskRun task, ExecutorInfo target, boolean speculative) {
    Job job = task.stage.job;
    int number = task.launches++;
    TaskRun.Attempt attempt =
        new TaskRun.Attempt(number, target, ++eventSeq, clock.nanoTime(), speculative);
    task.running.add(attempt);
    task.phase = TaskRun.Phase.RUNNING;
    if (number > 0 && !speculative) {
      metrics.taskRetried();
    }
    if (!speculative) {
      task.attempt = number;
      task.executor = target;
      task.launchedAtNanos = attempt.launchedNanos();
      task.ranNanos = -1;
      task.summarize(TaskState.TASK_STATE_RUNNING, TaskMetrics.getDefaultInstance());
    }
    running.computeIfAbsent(target.getExecutorId(), k -> new LinkedHashSet<>()).add(task);
    job.executorsUsed.put(target.getExecutorId(), target);
    if (job.state == JobState.JOB_STATE_QUEUED) {
      job.state = JobState.JOB_STATE_RUNNING;
    }
    status.changed(job);

    LaunchTaskRequest request = ExecutorCalls.launchRequest(task, number);
    LOG.debug(
        "{}: launching {} on {}", job.describe(), task.describe(attempt), target.getExecutorId());
    calls.launchTask(
        target,
        request,
        refusal -> loop.post(() -> recovery.launchFailed(task, number, target, refusal)));
  }

  /**
   * A task of a job this scheduler does not know (never submitted here, e.g. launched by a rogue
   * client, or already forgotten) wrote output nobody will read or remove: drop it.
   */
  private void dropUnknownJobData(TaskStatusReport report) {
    String jobId = report.getTask().getJobId();
    for (ExecutorInfo info : registry.alive()) {
      if (info.getExecutorId().equals(report.getExecutorId())) {
        LOG.warn(
            "executor '{}' ran a task of job '{}', which this scheduler does not know:"
                + " removing its output",
            info.getExecutorId(),
            jobId);
        calls.removeJobData(
            info,
            jobId,
            "RemoveJobData for unknown job '"
                + jobId
                + "' on executor '"
                + info.getExecutorId()
                + "'");
      }
    }
  }

  /**
   * Ends one attempt of {@code task}: it no longer holds a slot. When it was the attempt the task's
   * status shows, the status shows how it ended, or the attempt still running.
   */
  void endAttempt(TaskRun task, TaskRun.Attempt attempt, TaskState state, TaskMetrics taskMetrics) {
    task.running.remove(attempt);
    Set<TaskRun> set = running.get(attempt.executorId());
    if (set != null) {
      set.remove(task);
    }
    status.changed(task.stage.job);
    long ran = clock.nanoTime() - attempt.launchedNanos();
    metrics.taskEnded(state, ran);
    if (attempt.number() != task.attempt) {
      return;
    }
    if (task.running.isEmpty()) {
      task.ranNanos = ran;
      task.summarize(state, taskMetrics);
    } else {
      TaskRun.Attempt other = task.running.get(0);
      task.attempt = other.number();
      task.executor = other.executor();
      task.launchedAtNanos = other.launchedNanos();
      task.ranNanos = -1;
      task.summarize(TaskState.TASK_STATE_RUNNING, TaskMetrics.getDefaultInstance());
    }
  }

  /** Cancels every running attempt of {@code task} on its executor; the task waits again. */
  private void cancelAttempts(TaskRun task, String why) {
    Map<String, List<TaskId>> batch = new LinkedHashMap<>();
    cancelAttempts(task, batch);
    sendCancels(task.stage.job, batch, why);
  }

  /**
   * Ends every running attempt of {@code task} (the task waits again) and adds it to {@code batch},
   * by executor, for {@link #sendCancels}.
   */
  void cancelAttempts(TaskRun task, Map<String, List<TaskId>> batch) {
    for (TaskRun.Attempt a : List.copyOf(task.running)) {
      endAttempt(task, a, TaskState.TASK_STATE_CANCELLED, TaskMetrics.getDefaultInstance());
      batch.computeIfAbsent(a.executorId(), k -> new ArrayList<>()).add(task.id(a.number()));
    }
    if (task.phase == TaskRun.Phase.RUNNING) {
      task.phase = TaskRun.Phase.WAITING;
    }
  }

  void sendCancels(Job job, Map<String, List<TaskId>> batch, String why) {
    batch.forEach((executorId, ids) -> cancelTasks(job, executorId, ids, why));
  }

  // ------------------------------------------------------------------------------------------
  // Reports and the end of jobs (failures and losses: Recovery)
  // ------------------------------------------------------------------------------------------

  private void onReport(TaskStatusReport report) {
    TaskId id = report.getTask();
    Job job = jobs.get(id.getJobId());
    if (job == null && report.getState() == TaskState.TASK_STATE_SUCCEEDED) {
      dropUnknownJobData(report);
      return;
    }
    StageRun stage = job == null ? null : job.stages.get(id.getStageId());
    TaskRun task =
        job == null || job.terminal() || stage == null || id.getTaskId() >= stage.tasks.size()
            ? null
            : stage.tasks.get(id.getTaskId());
    TaskRun.Attempt attempt =
        task == null ? null : task.runningAttempt(id.getAttempt(), report.getExecutorId());
    if (attempt == null) {
      LOG.debug(
          "ignoring report {} from executor '{}' for job {} stage {} task {} attempt {}:"
              + " stale or unknown",
          report.getState(),
          report.getExecutorId(),
          id.getJobId(),
          id.getStageId(),
          id.getTaskId(),
          id.getAttempt());
      return;
    }
    switch (report.getState()) {
      case TASK_STATE_SUCCEEDED -> {
        endAttempt(task, attempt, TaskState.TASK_STATE_SUCCEEDED, report.getMetrics());
        recovery.succeeded(attempt.executorId());
        // The first attempt to succeed wins; a copy still racing it is cancelled.
        cancelAttempts(task, "another attempt of the task succeeded");
        task.phase = TaskRun.Phase.SUCCEEDED;
        task.attempt = attempt.number();
        task.executor = attempt.executor();
        task.successSeq = ++eventSeq;
        task.succeededAfterNanos = clock.nanoTime() - attempt.launchedNanos();
        task.launchedAtNanos = attempt.launchedNanos();
        task.ranNanos = task.succeededAfterNanos;
        task.summarize(TaskState.TASK_STATE_SUCCEEDED, report.getMetrics(), attempt.speculative());
        if (attempt.speculative()) {
          LOG.info(
              "{}: speculative {} on executor '{}' finished first",
              job.describe(),
              task.describe(attempt),
              attempt.executorId());
        }
        if (job.finalStage.complete()) {
          finish(job, JobState.JOB_STATE_SUCCEEDED, null);
        }
      }
      case TASK_STATE_FAILED -> {
        endAttempt(task, attempt, TaskState.TASK_STATE_FAILED, report.getMetrics());
        recovery.failed(task, attempt, report.getError());
      }
      default -> {
        endAttempt(task, attempt, TaskState.TASK_STATE_CANCELLED, report.getMetrics());
        recovery.failed(
            task,
            attempt,
            ErrorInfo.newBuilder()
                .setKind("QueryCancelledException")
                .setMessage("executor '" + report.getExecutorId() + "' cancelled the task")
                .setRetryable(true)
                .build());
      }
    }
    schedule();
  }

  /** The unfinished and recently finished jobs, in submission order. */
  Collection<Job> liveJobs() {
    return jobs.values();
  }

  /** Forgets the attempts running on {@code executorId}, returning their tasks (or null). */
  Set<TaskRun> removeRunning(String executorId) {
    return running.remove(executorId);
  }

  void fail(Job job, ErrorInfo error) {
    finish(job, JobState.JOB_STATE_FAILED, error);
  }

  /** Moves a job to a terminal state and stops whatever of it still runs. */
  private void finish(Job job, JobState state, ErrorInfo error) {
    job.state = state;
    job.error = error;
    job.finishedAtNanos = clock.nanoTime();
    job.finishedAtMillis = clock.unixMillis();
    metrics.jobFinished(state, job.finishedAtNanos - job.submittedAtNanos);
    job.waitingSinceNanos = -1;
    status.changed(job);
    Map<String, List<TaskId>> batch = new LinkedHashMap<>();
    for (StageRun stage : job.stages.values()) {
      for (TaskRun t : stage.tasks) {
        if (t.phase == TaskRun.Phase.RUNNING) {
          cancelAttempts(t, batch);
        }
      }
    }
    sendCancels(job, batch, "its job ended");
    if (state == JobState.JOB_STATE_SUCCEEDED) {
      LOG.info("{} succeeded", job.describe());
    } else {
      LOG.info(
          "{} {}{}",
          job.describe(),
          state == JobState.JOB_STATE_FAILED ? "failed" : "cancelled",
          error == null ? "" : ": " + error.getKind() + ": " + error.getMessage());
      // Nobody will read a failed or cancelled job's shuffle output.
      removeData(job);
    }
  }

  private void cancelTasks(Job job, String executorId, List<TaskId> ids, String why) {
    calls.cancelTasks(
        job,
        executorId,
        ids,
        why,
        generation ->
            loop.post(
                () -> {
                  // Only if the call went to the process registered now, not to one it replaced.
                  if (calls.isCurrent(executorId, generation)) {
                    declareLost(executorId, "CancelTasks could not reach it");
                    schedule();
                  }
                }));
  }

  /** Tells every alive executor that ran the job's tasks to delete its data, once. */
  private void removeData(Job job) {
    if (job.dataRemoved) {
      return;
    }
    job.dataRemoved = true;
    Map<String, ExecutorInfo> alive = new HashMap<>();
    for (ExecutorInfo info : registry.alive()) {
      alive.put(info.getExecutorId(), info);
    }
    for (String executorId : job.executorsUsed.keySet()) {
      ExecutorInfo info = alive.get(executorId);
      if (info == null) {
        continue; // lost: its data went with it
      }
      calls.removeJobData(
          info,
          job.id,
          "RemoveJobData for " + job.describe() + " on executor '" + executorId + "'");
    }
  }

  private void unwatch(String jobId, ServerCallStreamObserver<JobStatusUpdate> out) {
    Job job = jobs.get(jobId);
    if (job != null) {
      job.watchers.remove(out);
    }
  }
}
