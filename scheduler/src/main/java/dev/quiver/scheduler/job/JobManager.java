package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.CancelTasksRequest;
import dev.quiver.distributed.proto.CancelTasksResponse;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.ExecutorInfo;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobState;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.LaunchTaskResponse;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.RemoveJobDataRequest;
import dev.quiver.distributed.proto.RemoveJobDataResponse;
import dev.quiver.distributed.proto.ShufflePartitionId;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.wire.ShuffleTickets;
import dev.quiver.scheduler.config.Speculation;
import dev.quiver.scheduler.executors.ExecutorRegistry;
import dev.quiver.scheduler.config.SchedulerConfig;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;
import com.google.protobuf.ByteString;
import dev.quiver.distributed.security.JobCapabilities;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs jobs: launches each stage's tasks once its inputs are complete, places them on executors,
 * follows task reports, retries and re-runs, and streams job status to watchers.
 *
 * <p>All job state is owned by one loop thread; RPC handlers, executor callbacks and the liveness
 * checker hand it events, so no state is shared between threads.
 */
public final class JobManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobManager.class);
  private static final long RPC_DEADLINE_MILLIS = 30_000;
  private static final String NO_EXECUTORS = "no executors are registered with the scheduler";
  private static final int MAX_SUBMISSION_ID = 128;

  /** Finished jobs kept for the jobs API after they are forgotten, newest last. */
  static final int HISTORY = 100;

  private final ExecutorRegistry registry;
  private final SchedulerConfig config;
  private final JobMetrics metrics;
  private final ExecutorClients clients;
  private final ScheduledExecutorService loop;
  private final SecureRandom random = new SecureRandom();

  // Loop-thread state.
  private final Map<String, Job> jobs = new LinkedHashMap<>();
  private final Map<String, Set<TaskRun>> running = new HashMap<>();
  private final java.util.ArrayDeque<JobViews.JobDetail> history = new java.util.ArrayDeque<>();

  /** Each remembered job's capability, read by RPC threads to authorize calls on the job. */
  private final Map<String, ByteString> capabilities = new ConcurrentHashMap<>();

  /** The job accepted for each submission id, while the job is remembered. */
  private final Map<String, String> submissions = new HashMap<>();

  /** Task attempts that failed in a row per executor, for exclusion. */
  private final Map<String, Integer> consecutiveFailures = new HashMap<>();

  /** Executors whose LaunchTask failed with UNAVAILABLE, until they register again or a timeout. */
  private final Map<String, Long> unreachable = new HashMap<>();

  private final Set<Job> changed = new LinkedHashSet<>();
  private long jobSeq;
  private long eventSeq;
  private String lastPicked = "";
  private boolean closed;

  /** A job manager placing tasks on the executors of {@code registry}; call {@link #start}. */
  public JobManager(ExecutorRegistry registry, SchedulerConfig config) {
    this(registry, config, JobMetrics.unexposed());
  }

  /** As {@link #JobManager(ExecutorRegistry, SchedulerConfig)}, counting into {@code metrics}. */
  public JobManager(ExecutorRegistry registry, SchedulerConfig config, JobMetrics metrics) {
    this.registry = registry;
    this.config = config;
    this.metrics = metrics;
    this.clients = new ExecutorClients(RPC_DEADLINE_MILLIS, config.security());
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "quiver-scheduler-jobs");
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts the periodic checks (executor wait, finished job retention). */
  public void start() {
    long period = Math.max(10, Math.min(250, config.noExecutorTimeout().toMillis() / 5));
    loop.scheduleWithFixedDelay(() -> run(this::tick), period, period, TimeUnit.MILLISECONDS);
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
   * Accepts a job, or returns the job already accepted for {@code submissionId} (a client
   * retrying a submission whose answer it lost); empty means no deduplication.
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
    return call(
        () -> {
          String known = submissionId.isEmpty() ? null : submissions.get(submissionId);
          if (known != null && jobs.containsKey(known)) {
            // The submission id is the submitter's secret (a random UUID), so it is not logged.
            Job job = jobs.get(known);
            LOG.info("a submission was repeated: it is {}", job.describe());
            return new Submitted(known, job.capability);
          }
          String id = String.format("job-%d-%016x", ++jobSeq, random.nextLong());
          Job job = new Job(id, jobSeq, spec, submissionId, JobCapabilities.newCapability());
          jobs.put(id, job);
          capabilities.put(id, job.capability);
          if (!submissionId.isEmpty()) {
            submissions.put(submissionId, id);
          }
          changed.add(job);
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
    out.setOnCancelHandler(() -> post(() -> unwatch(jobId, out)));
    post(
        () -> {
          Job job = jobs.get(jobId);
          if (job == null) {
            out.onError(notFound(jobId));
            return;
          }
          if (!send(out, snapshot(job))) {
            return;
          }
          if (job.terminal()) {
            out.onCompleted();
          } else {
            job.watchers.add(out);
          }
        });
  }

  /** The job's status right now. */
  public JobStatusUpdate status(String jobId) {
    return call(() -> snapshot(require(jobId)));
  }

  /** The jobs this scheduler knows and those it finished recently, newest first. */
  public List<JobViews.JobSummary> jobs() {
    return call(
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
    return call(
        () -> {
          Job job = jobs.get(jobId);
          if (job != null) {
            return Optional.of(JobSnapshots.detail(job, System.nanoTime()));
          }
          return history.stream().filter(d -> d.summary().id().equals(jobId)).findFirst();
        });
  }

  /** Tasks of unfinished jobs waiting to run and running, and how many such jobs there are. */
  public JobViews.TaskCounts taskCounts() {
    return call(
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
    return !closed && !loop.isShutdown();
  }

  /**
   * Cancels a job: its running tasks are cancelled and its data removed.
   *
   * @return false when the job had already finished
   */
  public boolean cancel(String jobId) {
    return call(
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
    call(
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
    post(() -> onReport(report));
  }

  /**
   * An executor registered.
   *
   * @param fresh false when the registry knew it as alive: it restarted, and what its previous
   *     process held is gone
   */
  public void executorRegistered(ExecutorInfo info, boolean fresh) {
    post(
        () -> {
          if (!fresh) {
            onExecutorLost(info.getExecutorId(), "it registered again, so it restarted");
          }
          unreachable.remove(info.getExecutorId());
          consecutiveFailures.remove(info.getExecutorId());
          clients.connect(info, this::connectionBroken);
          schedule();
        });
  }

  /** The watched connection to an executor broke and could not be re-established. */
  private void connectionBroken(String executorId, long generation) {
    post(
        () -> {
          if (clients.isCurrent(executorId, generation)) {
            declareLost(executorId, "its connection broke and reconnecting was refused");
            schedule();
          }
        });
  }

  /** Marks an executor lost in the registry (it must register again) and re-runs its work. */
  private void declareLost(String executorId, String why) {
    if (registry.markLost(executorId).isPresent()) {
      onExecutorLost(executorId, why);
    }
  }

  /** The registry declared executors lost: re-run their tasks and the outputs still needed. */
  public void executorsLost(List<ExecutorInfo> lost) {
    if (lost.isEmpty()) {
      return;
    }
    post(
        () -> {
          for (ExecutorInfo info : lost) {
            onExecutorLost(info.getExecutorId(), "it sent no heartbeat in time");
          }
          schedule();
        });
  }

  /** Ends every status stream and stops the loop; executors keep their data. */
  @Override
  public void close() {
    try {
      loop.submit(
              () -> {
                closed = true;
                for (Job job : jobs.values()) {
                  for (ServerCallStreamObserver<JobStatusUpdate> w : job.watchers) {
                    try {
                      w.onError(
                          Status.UNAVAILABLE
                              .withDescription("the scheduler is shutting down")
                              .asRuntimeException());
                    } catch (RuntimeException e) {
                      LOG.debug("status watcher already gone", e);
                    }
                  }
                  job.watchers.clear();
                }
              })
          .get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      LOG.warn("job manager did not stop cleanly", e);
    }
    for (Runnable queued : loop.shutdownNow()) {
      // Callers blocked on an event that will never run get UNAVAILABLE rather than a timeout.
      if (queued instanceof Future<?> f) {
        f.cancel(false);
      }
    }
    try {
      loop.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    clients.close();
  }

  // ------------------------------------------------------------------------------------------
  // The loop
  // ------------------------------------------------------------------------------------------

  private void post(Runnable event) {
    try {
      loop.execute(() -> run(event));
    } catch (RejectedExecutionException e) {
      LOG.debug("scheduler is closed: event dropped");
    }
  }

  private <T> T call(Callable<T> event) {
    Future<T> f;
    try {
      f =
          loop.submit(
              () -> {
                if (closed) {
                  throw Status.UNAVAILABLE
                      .withDescription("the scheduler is shutting down")
                      .asRuntimeException();
                }
                try {
                  return event.call();
                } finally {
                  publish();
                }
              });
    } catch (RejectedExecutionException e) {
      throw Status.UNAVAILABLE
          .withDescription("the scheduler is shutting down")
          .asRuntimeException();
    }
    try {
      return f.get(RPC_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
    } catch (CancellationException e) {
      throw Status.UNAVAILABLE
          .withDescription("the scheduler is shutting down")
          .asRuntimeException();
    } catch (TimeoutException e) {
      throw Status.DEADLINE_EXCEEDED
          .withDescription("the scheduler's job loop did not answer in time")
          .asRuntimeException();
    }
  }

  /** Runs an event on the loop; an exception is logged, never allowed to stop the loop. */
  private void run(Runnable event) {
    if (closed) {
      return;
    }
    try {
      event.run();
    } catch (RuntimeException e) {
      LOG.error("scheduler job loop event failed", e);
    } finally {
      try {
        publish();
      } catch (RuntimeException e) {
        LOG.error("publishing job status failed", e);
      }
    }
  }

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

  /**
   * An attempt failed on {@code executorId} for a reason outside its plan and data: after {@link
   * Exclusion#failures} of those in a row, or at once when its disk failed, the executor gets no
   * tasks for a while.
   */
  private void executorFailed(String executorId, ErrorInfo error) {
    int inARow = consecutiveFailures.merge(executorId, 1, Integer::sum);
    boolean disk = TaskFailures.EXECUTOR_DISK.equals(error.getKind());
    if (disk || inARow >= config.exclusion().failures()) {
      consecutiveFailures.remove(executorId);
      registry.exclude(executorId, config.exclusion().duration());
      LOG.warn(
          "executor '{}' gets no tasks for {}: {}",
          executorId,
          config.exclusion().duration(),
          disk ? "its disk failed: " + error.getMessage() : inARow + " task attempts failed there in a row");
    }
  }

  private void tick() {
    long now = System.nanoTime();
    unreachable.values().removeIf(since -> now - since > config.heartbeatTimeout().toNanos());
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
  private void schedule() {
    List<ExecutorInfo> usable = new ArrayList<>();
    for (ExecutorInfo info : registry.schedulable()) {
      if (!unreachable.containsKey(info.getExecutorId())) {
        usable.add(info);
      }
    }
    Map<String, Integer> free = new HashMap<>();
    for (ExecutorInfo info : usable) {
      int busy = running.getOrDefault(info.getExecutorId(), Set.of()).size();
      free.put(info.getExecutorId(), info.getCores() - busy);
    }
    for (Job job : List.copyOf(jobs.values())) {
      if (job.terminal()) {
        continue;
      }
      List<TaskRun> ready = new ArrayList<>();
      collectReady(job.finalStage, new HashSet<>(), ready);
      if (ready.isEmpty() || !usable.isEmpty()) {
        job.waitingSinceNanos = -1;
      } else if (job.waitingSinceNanos < 0) {
        job.waitingSinceNanos = System.nanoTime();
        LOG.warn("{} is waiting: {}", job.describe(), noUsableExecutors());
      }
      for (TaskRun task : ready) {
        if (!hasFreeSlot(free)) {
          return;
        }
        ExecutorInfo target = place(task, usable, free, null);
        if (target != null) {
          launch(task, target, false);
        }
      }
    }
    if (hasFreeSlot(free)) {
      speculate(usable, free);
    }
  }

  private static boolean hasFreeSlot(Map<String, Integer> free) {
    return free.values().stream().anyMatch(n -> n > 0);
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
   * above a gather), in waves as Spark's take() does: one task first, then, when a wave has
   * ended with too few rows, up to four times as many as ran (fewer when the rows so far say
   * fewer will do). Once the tasks that succeeded wrote enough rows, the others are cancelled or
   * never run: they are skipped, and their consumers read nothing from them.
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
        changed.add(stage.job);
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
    long wave;
    if (ran == 0) {
      wave = 1;
    } else if (rows == 0) {
      wave = 4L * ran;
    } else {
      long estimate = (long) Math.ceil(1.5 * stage.rowLimit * ran / rows) - ran;
      wave = Math.max(1, Math.min(4L * ran, estimate));
    }
    out.addAll(waiting.subList(0, (int) Math.min(waiting.size(), wave)));
  }

  /**
   * The executor with the most free slots; among those, the one already holding the most of the
   * task's input bytes (so less data crosses the network), then round-robin by id. A task that
   * failed on some executors goes to one of the others while any exists, waiting for a slot
   * there (null) rather than going back where it failed. {@code busy} (may be null) is an
   * executor the task already runs on. Null when no executor can take it now.
   */
  private ExecutorInfo place(
      TaskRun task, List<ExecutorInfo> usable, Map<String, Integer> free, String busy) {
    List<ExecutorInfo> allowed =
        usable.stream().filter(e -> !e.getExecutorId().equals(busy)).toList();
    List<ExecutorInfo> fresh =
        allowed.stream().filter(e -> !task.failedOn.contains(e.getExecutorId())).toList();
    List<ExecutorInfo> candidates =
        (fresh.isEmpty() ? allowed : fresh)
            .stream()
            .filter(e -> free.get(e.getExecutorId()) > 0)
            .toList();
    if (candidates.isEmpty()) {
      return null;
    }
    int most = candidates.stream().mapToInt(e -> free.get(e.getExecutorId())).max().orElse(0);
    List<ExecutorInfo> tied =
        candidates.stream().filter(e -> free.get(e.getExecutorId()) == most).toList();
    Map<String, Long> held = inputBytesByExecutor(task);
    long mostHeld =
        tied.stream().mapToLong(e -> held.getOrDefault(e.getExecutorId(), 0L)).max().orElse(0);
    tied =
        tied.stream()
            .filter(e -> held.getOrDefault(e.getExecutorId(), 0L) == mostHeld)
            .toList();
    ExecutorInfo pick =
        tied.stream()
            .filter(e -> e.getExecutorId().compareTo(lastPicked) > 0)
            .findFirst()
            .orElse(tied.get(0));
    lastPicked = pick.getExecutorId();
    free.merge(pick.getExecutorId(), -1, Integer::sum);
    return pick;
  }

  /**
   * Bytes of the task's input held per executor: the outputs of its input stages' tasks (every
   * task of a stage reads from each of them, so the whole output counts).
   */
  private static Map<String, Long> inputBytesByExecutor(TaskRun task) {
    Map<String, Long> held = new HashMap<>();
    for (StageRun input : task.stage.inputs) {
      for (TaskRun producer : input.tasks) {
        if (producer.phase == TaskRun.Phase.SUCCEEDED
            && !producer.skipped
            && producer.executor != null
            && producer.summary != null) {
          held.merge(
              producer.executor.getExecutorId(),
              producer.summary.getMetrics().getOutputBytes(),
              Long::sum);
        }
      }
    }
    return held;
  }

  /**
   * Launches a second attempt, on another executor, of every running task much slower than its
   * stage's finished tasks (Spark's speculation): once a quantile of the stage's tasks succeeded,
   * a task running longer than a multiple of their median (and a minimum) gets a copy; the first
   * attempt to succeed wins and the other is cancelled.
   */
  private void speculate(List<ExecutorInfo> usable, Map<String, Integer> free) {
    Speculation policy = config.speculation();
    if (!policy.enabled()) {
      return;
    }
    long now = System.nanoTime();
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
          if (!hasFreeSlot(free)) {
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
        new TaskRun.Attempt(number, target, ++eventSeq, System.nanoTime(), speculative);
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
    changed.add(job);

    LaunchTaskRequest.Builder request =
        LaunchTaskRequest.newBuilder()
            .setTask(task.id(number))
            .setPlan(task.stage.spec.getPlan())
            .setOutputPartitions(task.stage.spec.getOutputPartitions())
            .putAllSettings(job.spec.getSettingsMap())
            .setJobCapability(job.capability);
    for (StageRun input : task.stage.inputs) {
      request.addAllInputs(outputs(input));
    }
    LOG.debug("{}: launching {} on {}", job.describe(), task.describe(attempt), target.getExecutorId());
    clients
        .stub(target)
        .launchTask(
            request.build(),
            new StreamObserver<>() {
              @Override
              public void onNext(LaunchTaskResponse value) {}

              @Override
              public void onError(Throwable t) {
                Status status = Status.fromThrowable(t);
                post(() -> onLaunchFailed(task, number, target, status));
              }

              @Override
              public void onCompleted() {}
            });
  }

  /** Every output partition of every task of a complete stage, ordered by task then partition. */
  private static List<PartitionLocation> outputs(StageRun stage) {
    List<PartitionLocation> out = new ArrayList<>();
    for (TaskRun t : stage.tasks) {
      for (int p = 0; p < stage.spec.getOutputPartitions(); p++) {
        PartitionLocation.Builder l =
            PartitionLocation.newBuilder()
                .setPartition(ShuffleTickets.id(stage.job.id, stage.id(), t.index, p))
                .setJobCapability(stage.job.capability);
        if (t.skipped) {
          l.setEmpty(true);
        } else {
          l.setExecutorId(t.executor.getExecutorId())
              .setHost(t.executor.getHost())
              .setFlightPort(t.executor.getFlightPort());
        }
        out.add(l.build());
      }
    }
    return out;
  }

  private void onLaunchFailed(TaskRun task, int number, ExecutorInfo target, Status status) {
    Job job = task.stage.job;
    TaskRun.Attempt attempt = task.runningAttempt(number, target.getExecutorId());
    if (job.terminal() || attempt == null) {
      return;
    }
    String what =
        "executor '"
            + target.getExecutorId()
            + "' ("
            + target.getHost()
            + ":"
            + target.getFlightPort()
            + ") did not accept "
            + task.describe(attempt)
            + " of "
            + job.describe()
            + ": "
            + status.getCode()
            + (status.getDescription() == null ? "" : " " + status.getDescription());
    switch (status.getCode()) {
      case UNAVAILABLE -> {
        LOG.warn("{}; treating the executor as lost", what);
        unreachable.put(target.getExecutorId(), System.nanoTime());
        registry.markLost(target.getExecutorId());
        onExecutorLost(target.getExecutorId(), "LaunchTask could not reach it");
      }
      case INVALID_ARGUMENT,
          FAILED_PRECONDITION,
          UNIMPLEMENTED,
          PERMISSION_DENIED,
          UNAUTHENTICATED -> {
        endAttempt(task, attempt, TaskState.TASK_STATE_FAILED, TaskMetrics.getDefaultInstance());
        fail(job, ErrorInfo.newBuilder().setKind("QuiverException").setMessage(what).build());
      }
      default -> {
        endAttempt(task, attempt, TaskState.TASK_STATE_FAILED, TaskMetrics.getDefaultInstance());
        onFailure(
            task,
            attempt,
            ErrorInfo.newBuilder()
                .setKind("QuiverException")
                .setMessage(what)
                .setRetryable(true)
                .build());
      }
    }
    schedule();
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
        clients
            .stub(info)
            .removeJobData(
                RemoveJobDataRequest.newBuilder().setJobId(jobId).build(),
                logOnly(
                    "RemoveJobData for unknown job '" + jobId + "' on executor '"
                        + info.getExecutorId() + "'",
                    RemoveJobDataResponse.class));
      }
    }
  }

  /**
   * Ends one attempt of {@code task}: it no longer holds a slot. When it was the attempt the
   * task's status shows, the status shows how it ended, or the attempt still running.
   */
  private void endAttempt(
      TaskRun task, TaskRun.Attempt attempt, TaskState state, TaskMetrics taskMetrics) {
    task.running.remove(attempt);
    Set<TaskRun> set = running.get(attempt.executorId());
    if (set != null) {
      set.remove(task);
    }
    changed.add(task.stage.job);
    long ran = System.nanoTime() - attempt.launchedNanos();
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
   * Ends every running attempt of {@code task} (the task waits again) and adds it to {@code
   * batch}, by executor, for {@link #sendCancels}.
   */
  private void cancelAttempts(TaskRun task, Map<String, List<TaskId>> batch) {
    for (TaskRun.Attempt a : List.copyOf(task.running)) {
      endAttempt(task, a, TaskState.TASK_STATE_CANCELLED, TaskMetrics.getDefaultInstance());
      batch.computeIfAbsent(a.executorId(), k -> new ArrayList<>()).add(task.id(a.number()));
    }
    if (task.phase == TaskRun.Phase.RUNNING) {
      task.phase = TaskRun.Phase.WAITING;
    }
  }

  private void sendCancels(Job job, Map<String, List<TaskId>> batch, String why) {
    batch.forEach((executorId, ids) -> cancelTasks(job, executorId, ids, why));
  }

  // ------------------------------------------------------------------------------------------
  // Reports, failures and losses
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
        consecutiveFailures.remove(attempt.executorId());
        // The first attempt to succeed wins; a copy still racing it is cancelled.
        cancelAttempts(task, "another attempt of the task succeeded");
        task.phase = TaskRun.Phase.SUCCEEDED;
        task.attempt = attempt.number();
        task.executor = attempt.executor();
        task.successSeq = ++eventSeq;
        task.succeededAfterNanos = System.nanoTime() - attempt.launchedNanos();
        task.launchedAtNanos = attempt.launchedNanos();
        task.ranNanos = task.succeededAfterNanos;
        task.summarize(
            TaskState.TASK_STATE_SUCCEEDED, report.getMetrics(), attempt.speculative());
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
        onFailure(task, attempt, report.getError());
      }
      default -> {
        endAttempt(task, attempt, TaskState.TASK_STATE_CANCELLED, report.getMetrics());
        onFailure(
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

  /**
   * A failed attempt (already ended): re-run lost producer output, retry a transient failure, or
   * fail the job. While another attempt of the task still runs, a transient failure only marks
   * the executor as one to avoid.
   */
  private void onFailure(TaskRun task, TaskRun.Attempt attempt, ErrorInfo error) {
    Job job = task.stage.job;
    String executorId = attempt.executorId();
    String where = task.describe(attempt) + " failed on executor '" + executorId + "'";
    Optional<ShufflePartitionId> missing = TaskFailures.missingPartition(error);
    missing.ifPresent(p -> producerOutputLost(task, attempt, p));
    if (!missing.isPresent() && !TaskFailures.isTransient(error)) {
      LOG.info("{}: {} with {}: failing the job", job.describe(), where, error.getKind());
      fail(job, error.toBuilder().setMessage(where + ": " + error.getMessage()).build());
      return;
    }
    task.failedOn.add(executorId);
    if (!missing.isPresent()) {
      // A fetch failure is the producer's executor's fault, not this one's.
      executorFailed(executorId, error);
    }
    if (!task.running.isEmpty()) {
      LOG.info(
          "{}: {} with {}; another attempt still runs", job.describe(), where, error.getKind());
      cancelReadersOfIncompleteInputs(job);
      return;
    }
    task.failures++;
    if (task.failures >= config.maxTaskAttempts()) {
      LOG.info("{}: {} for the {} time: failing the job", job.describe(), where, task.failures);
      fail(
          job,
          error.toBuilder()
              .setMessage(
                  where
                      + " after "
                      + task.failures
                      + " attempts (the limit); last error: "
                      + error.getMessage())
              .build());
      return;
    }
    LOG.info("{}: {} with {}: retrying", job.describe(), where, error.getKind());
    task.phase = TaskRun.Phase.WAITING;
    cancelReadersOfIncompleteInputs(job);
  }

  /** A consumer could not fetch a producer's partition: the producer task must run again. */
  private void producerOutputLost(
      TaskRun consumer, TaskRun.Attempt attempt, ShufflePartitionId partition) {
    Job job = consumer.stage.job;
    StageRun stage = job.stages.get(partition.getStageId());
    if (!partition.getJobId().equals(job.id)
        || stage == null
        || partition.getTaskId() >= stage.tasks.size()) {
      return;
    }
    TaskRun producer = stage.tasks.get(partition.getTaskId());
    // A producer that succeeded again after the consumer was launched has already been re-run.
    if (producer.phase == TaskRun.Phase.SUCCEEDED
        && !producer.skipped
        && producer.successSeq < attempt.launchSeq()) {
      LOG.info("{}: output of {} is gone; re-running it", job.describe(), producer.describe());
      producer.phase = TaskRun.Phase.WAITING;
      changed.add(job);
    }
  }

  /**
   * Cancels and re-queues the running tasks of every stage of {@code job} whose input is no longer
   * complete (a producer's output was lost and runs again): they may be blocked reading from an
   * executor that is gone or hung, holding task slots the re-runs need, and would fail anyway.
   */
  private void cancelReadersOfIncompleteInputs(Job job) {
    if (job.terminal()) {
      return;
    }
    for (StageRun stage : job.stages.values()) {
      if (stage.inputs.stream().allMatch(StageRun::complete)) {
        continue;
      }
      int cancelled = 0;
      Map<String, List<TaskId>> batch = new LinkedHashMap<>();
      for (TaskRun t : stage.tasks) {
        if (t.phase == TaskRun.Phase.RUNNING) {
          cancelAttempts(t, batch);
          cancelled++;
        }
      }
      sendCancels(job, batch, "its input is being computed again");
      if (cancelled > 0) {
        LOG.info(
            "{}: re-queued {} running tasks of stage {}: part of their input is being computed"
                + " again",
            job.describe(),
            cancelled,
            stage.id());
      }
    }
  }

  /**
   * Re-queues an executor's running attempts, re-runs the succeeded tasks whose output it held,
   * and cancels the tasks that were reading that output.
   */
  private void onExecutorLost(String executorId, String why) {
    metrics.executorLost();
    clients.forget(executorId);
    Set<TaskRun> tasks = running.remove(executorId);
    int requeued = tasks == null ? 0 : tasks.size();
    int rerun = 0;
    if (tasks != null) {
      for (TaskRun t : tasks) {
        TaskRun.Attempt a = t.runningOn(executorId);
        if (a == null) {
          continue;
        }
        t.failedOn.add(executorId);
        endAttempt(t, a, TaskState.TASK_STATE_FAILED, t.summary.getMetrics());
        if (t.running.isEmpty()) {
          t.phase = TaskRun.Phase.WAITING;
        }
      }
    }
    for (Job job : jobs.values()) {
      if (job.terminal()) {
        continue;
      }
      for (StageRun stage : job.stages.values()) {
        for (TaskRun t : stage.tasks) {
          if (t.phase == TaskRun.Phase.SUCCEEDED
              && !t.skipped
              && t.executor.getExecutorId().equals(executorId)) {
            // Only stages still needed run again: scheduling starts from the final stage.
            t.phase = TaskRun.Phase.WAITING;
            changed.add(job);
            rerun++;
          }
        }
      }
    }
    for (Job job : List.copyOf(jobs.values())) {
      cancelReadersOfIncompleteInputs(job);
    }
    if (requeued + rerun == 0) {
      // E.g. a cluster shutting down: nothing running needed this executor.
      LOG.info("executor '{}' is gone ({}); no running job used it", executorId, why);
    } else {
      LOG.warn(
          "executor '{}' is lost ({}): re-queuing {} running and re-running {} finished tasks",
          executorId,
          why,
          requeued,
          rerun);
    }
  }

  private void fail(Job job, ErrorInfo error) {
    finish(job, JobState.JOB_STATE_FAILED, error);
  }

  /** Moves a job to a terminal state and stops whatever of it still runs. */
  private void finish(Job job, JobState state, ErrorInfo error) {
    job.state = state;
    job.error = error;
    job.finishedAtNanos = System.nanoTime();
    job.finishedAtMillis = System.currentTimeMillis();
    metrics.jobFinished(state, job.finishedAtNanos - job.submittedAtNanos);
    job.waitingSinceNanos = -1;
    changed.add(job);
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
    ExecutorInfo info = job.executorsUsed.get(executorId);
    LOG.debug("{}: cancelling {} on '{}': {}", job.describe(), ids, executorId, why);
    clients
        .stub(info)
        .cancelTasks(
            CancelTasksRequest.newBuilder().addAllTasks(ids).build(),
            new StreamObserver<>() {
              @Override
              public void onNext(CancelTasksResponse value) {
                LOG.debug("CancelTasks for {} on '{}': {}", job.describe(), executorId, value);
              }

              @Override
              public void onError(Throwable t) {
                Status status = Status.fromThrowable(t);
                LOG.warn(
                    "CancelTasks for {} on executor '{}' failed: {}",
                    job.describe(),
                    executorId,
                    status);
                if (status.getCode() == Status.Code.UNAVAILABLE) {
                  post(
                      () -> {
                        declareLost(executorId, "CancelTasks could not reach it");
                        schedule();
                      });
                }
              }

              @Override
              public void onCompleted() {}
            });
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
      clients
          .stub(info)
          .removeJobData(
              RemoveJobDataRequest.newBuilder().setJobId(job.id).build(),
              logOnly(
                  "RemoveJobData for " + job.describe() + " on executor '" + executorId + "'",
                  RemoveJobDataResponse.class));
    }
  }

  private static <T> StreamObserver<T> logOnly(String what, Class<T> type) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        LOG.debug("{}: {}", what, value);
      }

      @Override
      public void onError(Throwable t) {
        LOG.warn("{} failed: {}", what, Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {}
    };
  }

  // ------------------------------------------------------------------------------------------
  // Status
  // ------------------------------------------------------------------------------------------

  private static JobStatusUpdate snapshot(Job job) {
    JobStatusUpdate.Builder b = JobStatusUpdate.newBuilder().setJobId(job.id).setState(job.state);
    for (StageRun stage : job.stages.values()) {
      StageStatus.Builder s =
          StageStatus.newBuilder()
              .setStageId(stage.id())
              .setTaskCount(stage.tasks.size())
              .setTasksSucceeded(stage.succeeded());
      for (TaskRun t : stage.tasks) {
        if (t.summary != null) {
          s.addTasks(t.summary);
        }
      }
      b.addStages(s);
    }
    if (job.state == JobState.JOB_STATE_FAILED && job.error != null) {
      b.setError(job.error.getMessage()).setErrorInfo(job.error);
    }
    if (job.state == JobState.JOB_STATE_SUCCEEDED) {
      b.addAllFinalOutputs(outputs(job.finalStage));
    }
    return b.build();
  }

  /** Sends one update to the watchers of every job that changed during the event. */
  private void publish() {
    if (changed.isEmpty()) {
      return;
    }
    List<Job> jobsChanged = List.copyOf(changed);
    changed.clear();
    for (Job job : jobsChanged) {
      if (job.watchers.isEmpty()) {
        continue;
      }
      JobStatusUpdate update = snapshot(job);
      for (ServerCallStreamObserver<JobStatusUpdate> w : List.copyOf(job.watchers)) {
        if (!send(w, update)) {
          job.watchers.remove(w);
        } else if (job.terminal()) {
          w.onCompleted();
        }
      }
      if (job.terminal()) {
        job.watchers.clear();
      }
    }
  }

  private static boolean send(ServerCallStreamObserver<JobStatusUpdate> w, JobStatusUpdate u) {
    if (w.isCancelled()) {
      return false;
    }
    try {
      w.onNext(u);
      return true;
    } catch (RuntimeException e) {
      LOG.debug("status watcher went away", e);
      return false;
    }
  }

  private void unwatch(String jobId, ServerCallStreamObserver<JobStatusUpdate> out) {
    Job job = jobs.get(jobId);
    if (job != null) {
      job.watchers.remove(out);
    }
  }
}
