package dev.quiver.executor.task;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryBudget;
import dev.quiver.binding.physical.MemoryPool;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.join.BloomFilter;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.udf.ScalarUdf;
import dev.quiver.distributed.codec.DecodeContext;
import dev.quiver.distributed.codec.DecodedStage;
import dev.quiver.distributed.codec.PlanCodecException;
import dev.quiver.distributed.codec.StageDecoder;
import dev.quiver.distributed.codec.StagePlan;
import dev.quiver.distributed.limits.QueryLimits;
import dev.quiver.distributed.limits.QueryMemoryExceededException;
import dev.quiver.distributed.proto.ErrorInfo;
import dev.quiver.distributed.proto.InputSlice;
import dev.quiver.distributed.proto.KeyFilterBits;
import dev.quiver.distributed.proto.LaunchTaskRequest;
import dev.quiver.distributed.proto.NextSplitsRequest;
import dev.quiver.distributed.proto.NextSplitsResponse;
import dev.quiver.distributed.proto.OperatorStats;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.TaskId;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.distributed.proto.TaskStatusReport;
import dev.quiver.distributed.shuffle.ShuffleClient;
import dev.quiver.distributed.shuffle.ShuffleCompression;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import dev.quiver.executor.memory.QueryMemory;
import dev.quiver.executor.shuffle.DiskLimitExceededException;
import dev.quiver.executor.shuffle.ShuffleStore;
import dev.quiver.executor.shuffle.ShuffleWriterExec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an executor's tasks: queues launched tasks on a pool of {@code cores} threads, executes each
 * one's stage plan partition into the shuffle store, reports how it ended, and cancels tasks on
 * request. Thread-safe.
 */
public final class TaskManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManager.class);

  /**
   * What a task needs from the executor it runs on.
   *
   * @param allocator the executor's allocator
   * @param memory the task allocators, under an allocator per job (see {@link QueryMemory})
   * @param spillBudgetBytes most a task's spilling operators reserve before they spill
   * @param store where tasks write their output partitions
   * @param shuffleClient fetches the task inputs (shared by all tasks)
   * @param decoder turns launched plan bytes into stage plans
   * @param udfs UDFs of the loaded extensions, by name
   * @param spillRoot directory under which each task gets its spill directory
   * @param reports receives each task attempt's final status
   * @param diskProblem what is wrong with the executor's work directory, or empty: a task that
   *     fails while it is broken failed because of this executor, and is retried elsewhere
   * @param splits asks the scheduler for a task's next scan splits (NextSplits)
   */
  public record Resources(
      String executorId,
      BufferAllocator allocator,
      QueryMemory memory,
      long spillBudgetBytes,
      ShuffleStore store,
      ShuffleClient shuffleClient,
      StageDecoder decoder,
      Function<String, Optional<ScalarUdf>> udfs,
      Path spillRoot,
      Consumer<TaskStatusReport> reports,
      Supplier<Optional<String>> diskProblem,
      Function<NextSplitsRequest, CompletableFuture<NextSplitsResponse>> splits) {}

  /** Identifies a task independently of its attempt: a retry replaces the earlier attempt. */
  private record TaskKey(String jobId, int stageId, int taskId) {}

  private final Resources resources;
  private final ThreadPoolExecutor slots;
  private final ExecutorService operatorThreads;
  private final Map<TaskKey, Task> active = new HashMap<>();

  /** Most removed jobs remembered: their late launches are refused (see {@link #removeJob}). */
  static final int REMOVED_JOBS_KEPT = 10_000;

  /** Jobs whose data was removed, oldest first. */
  private final java.util.LinkedHashSet<String> removedJobs = new java.util.LinkedHashSet<>();

  private final AtomicInteger running = new AtomicInteger();
  private boolean closed;

  /**
   * Creates the manager.
   *
   * @param cores how many tasks run at once; further launched tasks wait in a queue
   */
  public TaskManager(Resources resources, int cores) throws IOException {
    this.resources = resources;
    Files.createDirectories(resources.spillRoot());
    this.slots =
        new ThreadPoolExecutor(
            cores,
            cores,
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            daemonThreads("quiver-task-" + resources.executorId() + "-"));
    // Operators' background producers block on bounded queues, so their pool must not be bounded.
    this.operatorThreads =
        Executors.newCachedThreadPool(
            daemonThreads("quiver-operator-" + resources.executorId() + "-"));
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Checks a launch request before it is queued.
   *
   * @return the session settings the task runs with
   * @throws IllegalArgumentException naming what is wrong with the request
   */
  public static SessionConfig validate(LaunchTaskRequest request) {
    if (!request.hasTask() || request.getTask().getJobId().isEmpty()) {
      throw new IllegalArgumentException("LaunchTask needs the task's id with its job id");
    }
    String task = describe(request.getTask());
    if (request.getPlan().isEmpty()) {
      throw new IllegalArgumentException(
          "LaunchTask of " + task + " has no plan; send the stage plan bytes from the job spec");
    }
    if (request.getOutputPartitions() < 1) {
      throw new IllegalArgumentException(
          "LaunchTask of "
              + task
              + " asks for "
              + request.getOutputPartitions()
              + " output partitions; a task writes at least 1");
    }
    for (PartitionLocation input : request.getInputsList()) {
      if (input.getPartition().getJobId().isEmpty()
          || (!input.getEmpty()
              && (input.getHost().isEmpty()
                  || input.getFlightPort() < 1
                  || input.getFlightPort() > 65535))) {
        throw new IllegalArgumentException(
            "LaunchTask of "
                + task
                + " has an input location without a job id, host or valid port: "
                + input.toString().replace('\n', ' ').trim());
      }
    }
    SessionConfig config = new SessionConfig();
    try {
      config.setShipped(request.getSettingsMap());
    } catch (QuiverException ex) {
      throw new IllegalArgumentException(
          "LaunchTask of " + task + " has an invalid setting: " + ex.getMessage(), ex);
    }
    try {
      ShuffleCompression.of(config);
    } catch (QuiverException ex) {
      throw new IllegalArgumentException(
          "LaunchTask of " + task + " has an invalid setting: " + ex.getMessage(), ex);
    }
    return config;
  }

  /**
   * Queues a validated task and returns at once. Launching the same attempt again is a no-op; a
   * newer attempt of a task cancels the older one and runs once it has stopped.
   *
   * @param config the settings {@link #validate} returned
   * @throws IllegalStateException if the executor is stopping, or an older attempt is launched
   *     after a newer one
   */
  public void launch(LaunchTaskRequest request, SessionConfig config) {
    TaskId id = request.getTask();
    TaskKey key = new TaskKey(id.getJobId(), id.getStageId(), id.getTaskId());
    Task task = new Task(request, config);
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException(
            "executor " + resources.executorId() + " is stopping and takes no new tasks");
      }
      if (removedJobs.contains(id.getJobId())) {
        throw new IllegalStateException(
            task.name
                + " belongs to job "
                + id.getJobId()
                + ", whose data was removed from executor "
                + resources.executorId()
                + " (it finished or was cancelled): the launch arrived late and is refused");
      }
      Task previous = active.get(key);
      if (previous != null) {
        if (previous.id.getAttempt() == id.getAttempt()) {
          LOG.info("{} is already running or queued; duplicate launch ignored", task.name);
          return;
        }
        if (previous.id.getAttempt() > id.getAttempt()) {
          throw new IllegalStateException(
              task.name
                  + " is older than attempt "
                  + previous.id.getAttempt()
                  + " on this executor");
        }
      }
      active.put(key, task);
      if (previous == null) {
        submit(task);
      } else {
        LOG.info("{} replaces attempt {}", task.name, previous.id.getAttempt());
        previous.cancel("superseded by attempt " + id.getAttempt());
        previous.done.whenComplete((ignored, error) -> submit(task));
      }
    }
  }

  private void submit(Task task) {
    try {
      slots.execute(task::run);
    } catch (RejectedExecutionException e) {
      // Only when the executor stops between the launch and the submission.
      task.cancel("executor is stopping");
      task.finish(task.report(TaskState.TASK_STATE_CANCELLED, null, null));
    }
  }

  /**
   * Cancels the given task attempts (queued or running); each reports CANCELLED once stopped.
   *
   * @return how many of them were queued or running
   */
  public synchronized int cancel(List<TaskId> ids, String reason) {
    int cancelled = 0;
    for (TaskId id : ids) {
      Task task = active.get(new TaskKey(id.getJobId(), id.getStageId(), id.getTaskId()));
      if (task != null && task.id.getAttempt() == id.getAttempt() && task.cancel(reason)) {
        cancelled++;
      }
    }
    return cancelled;
  }

  /** Cancels every queued or running task of a job; returns how many there were. */
  public synchronized int cancelJob(String jobId, String reason) {
    int cancelled = 0;
    for (Map.Entry<TaskKey, Task> e : active.entrySet()) {
      if (e.getKey().jobId().equals(jobId) && e.getValue().cancel(reason)) {
        cancelled++;
      }
    }
    return cancelled;
  }

  /**
   * The job's data is being removed (it finished or was cancelled): cancels its queued and running
   * tasks and refuses any launch of it that arrives later (a LaunchTask sent before the job ended
   * can overtake the removal), so nothing writes output that nobody would remove.
   *
   * @return how many tasks were cancelled
   */
  public synchronized int removeJob(String jobId, String reason) {
    removedJobs.remove(jobId);
    removedJobs.add(jobId);
    if (removedJobs.size() > REMOVED_JOBS_KEPT) {
      java.util.Iterator<String> oldest = removedJobs.iterator();
      oldest.next();
      oldest.remove();
    }
    return cancelJob(jobId, reason);
  }

  /** Cancels every queued or running task; returns how many there were. */
  public synchronized int cancelAll(String reason) {
    int cancelled = 0;
    for (Task task : active.values()) {
      if (task.cancel(reason)) {
        cancelled++;
      }
    }
    return cancelled;
  }

  /**
   * Measures the tasks' spill files and, when they and {@code shuffleDiskBytes} of shuffle files
   * pass {@code limitBytes}, fails the task whose files are largest with {@link
   * ResourcesExhaustedException}: a query that writes without bound (e.g. a cross join) stops long
   * before the disk is full.
   *
   * @return the bytes of the tasks' spill files
   */
  public long enforceDiskLimit(long limitBytes, long shuffleDiskBytes) {
    List<Task> tasks;
    synchronized (this) {
      tasks = List.copyOf(active.values());
    }
    long spilled = 0;
    Task largest = null;
    long largestBytes = -1;
    for (Task t : tasks) {
      long own = sizeOfTree(resources.spillRoot().resolve(t.safeName()));
      spilled += own;
      long total =
          own + resources.store().diskBytesOf(t.id.getJobId(), t.id.getStageId(), t.id.getTaskId());
      if (total > largestBytes) {
        largest = t;
        largestBytes = total;
      }
    }
    if (largest != null && spilled + shuffleDiskBytes > limitBytes) {
      largest.abort(
          new DiskLimitExceededException(
              "Resources exhausted: executor "
                  + resources.executorId()
                  + " holds "
                  + (spilled + shuffleDiskBytes)
                  + " bytes of spill and shuffle files, over its disk limit of "
                  + limitBytes
                  + " bytes (--disk-limit); "
                  + largest.name
                  + " wrote "
                  + largestBytes
                  + " of them. Give the executors a larger --disk-limit or more --memory, or"
                  + " make the query produce less (a LIMIT, a filter)"));
    }
    return spilled;
  }

  private static long sizeOfTree(Path dir) {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .mapToLong(
              f -> {
                try {
                  return Files.size(f);
                } catch (IOException e) {
                  return 0; // deleted meanwhile
                }
              })
          .sum();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0; // the task ended and deleted its directory meanwhile
    }
  }

  /** Whether a task of the job is queued or running here. */
  public synchronized boolean hasTasksOf(String jobId) {
    for (TaskKey key : active.keySet()) {
      if (key.jobId().equals(jobId)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the manager is stopping (it takes no new tasks). */
  public synchronized boolean isStopping() {
    return closed;
  }

  /** Tasks executing right now (at most the number of cores). */
  public int runningTasks() {
    return running.get();
  }

  /** Tasks launched and not yet finished, running or waiting for a slot. */
  public synchronized int activeTasks() {
    return active.size();
  }

  /** Cancels every task, waits for them to stop and stops the pools. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      for (Task t : active.values()) {
        t.cancel("executor " + resources.executorId() + " is stopping");
      }
    }
    slots.shutdown();
    try {
      if (!slots.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("tasks of executor {} did not stop within 30 s", resources.executorId());
        slots.shutdownNow();
      }
    } catch (InterruptedException e) {
      slots.shutdownNow();
      Thread.currentThread().interrupt();
    }
    operatorThreads.shutdownNow();
    deleteTree(resources.spillRoot());
  }

  private static String describe(TaskId id) {
    return "task "
        + id.getJobId()
        + "/"
        + id.getStageId()
        + "/"
        + id.getTaskId()
        + "#"
        + id.getAttempt();
  }

  private static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(TaskManager::deleteQuietly);
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", p, e.toString());
    }
  }

  /** Sum of the shuffle input bytes every shuffle reader of {@code plan} read. */
  static long shuffleReadBytes(ExecutionPlan plan) {
    long bytes = plan instanceof ShuffleReaderExec reader ? reader.readBytes() : 0;
    for (ExecutionPlan child : plan.children()) {
      bytes += shuffleReadBytes(child);
    }
    return bytes;
  }

  /** What every operator of {@code plan} measured, in pre-order (EXPLAIN ANALYZE's order). */
  static List<OperatorStats> operatorStats(ExecutionPlan plan) {
    List<OperatorStats> out = new ArrayList<>();
    addOperatorStats(plan, 0, out);
    return out;
  }

  private static void addOperatorStats(ExecutionPlan plan, int depth, List<OperatorStats> out) {
    var m = plan.metrics();
    out.add(
        OperatorStats.newBuilder()
            .setDepth(depth)
            .setName(plan.name())
            .setOutputRows(m.outputRows())
            .setOutputBatches(m.outputBatches())
            .setElapsedNanos(m.elapsedNanos())
            .setSpilledBytes(m.spilledBytes())
            .setFetchedBytes(m.fetchedBytes())
            .build());
    for (ExecutionPlan child : plan.children()) {
      addOperatorStats(child, depth + 1, out);
    }
  }

  /** One attempt of one task, from launch until its report. */
  private final class Task {
    final LaunchTaskRequest request;
    final TaskId id;
    final SessionConfig config;
    final String name;
    final long launchedNanos = System.nanoTime();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile String cancelReason;
    private volatile QuiverException abortCause;
    private volatile TaskContext context;
    private volatile boolean finished;

    Task(LaunchTaskRequest request, SessionConfig config) {
      this.request = request;
      this.id = request.getTask();
      this.config = config;
      this.name = describe(id);
    }

    /** Returns false if the task has already ended. */
    boolean cancel(String reason) {
      if (finished) {
        return false;
      }
      if (cancelReason == null) {
        cancelReason = reason;
      }
      TaskContext c = context;
      if (c != null) {
        c.cancel(reason);
      }
      return true;
    }

    /** Stops the task and has it report {@code cause} as its failure. */
    void abort(QuiverException cause) {
      if (!finished && abortCause == null) {
        LOG.warn("aborting {}: {}", name, cause.getMessage());
        abortCause = cause;
        cancel(cause.getMessage());
      }
    }

    void run() {
      running.incrementAndGet();
      TaskStatusReport report;
      try {
        report = execute();
      } catch (RuntimeException | Error e) {
        // execute() reports its own failures; this is a bug in the executor itself.
        LOG.error("{} crashed", name, e);
        report =
            report(
                TaskState.TASK_STATE_FAILED,
                null,
                TaskFailures.describe(e, name, request.getSettingsMap()));
      } finally {
        running.decrementAndGet();
      }
      finish(report);
    }

    void finish(TaskStatusReport report) {
      finished = true;
      synchronized (TaskManager.this) {
        active.remove(new TaskKey(id.getJobId(), id.getStageId(), id.getTaskId()), this);
      }
      done.complete(null);
      resources.reports().accept(report);
    }

    private TaskStatusReport execute() {
      ShuffleStore store = resources.store();
      if (cancelReason != null) {
        LOG.info("{} cancelled before it started: {}", name, cancelReason);
        return report(TaskState.TASK_STATE_CANCELLED, null, null);
      }
      // A retry replaces whatever an earlier attempt of the task wrote here.
      store.removeTask(id.getJobId(), id.getStageId(), id.getTaskId());
      String safeName = safeName();
      // Created by the first operator that spills (most tasks never do): making and deleting a
      // directory for every task costs milliseconds of file system work on a short task's path.
      Path spillDir = resources.spillRoot().resolve(safeName);
      BufferAllocator allocator;
      QueryMemory.TaskMemory memory;
      try {
        memory =
            resources
                .memory()
                .open(
                    id.getJobId(),
                    name,
                    config.get(QueryLimits.MAX_MEMORY_PER_EXECUTOR),
                    () -> cancelReason != null);
        allocator = memory.allocator();
      } catch (RuntimeException e) {
        LOG.error("{} could not start", name, e);
        return report(
            TaskState.TASK_STATE_FAILED,
            null,
            onThisExecutor(
                TaskFailures.describe(
                    new QuiverException(
                        name + " could not start on executor " + resources.executorId() + ": " + e,
                        e),
                    name,
                    request.getSettingsMap())));
      }
      MemoryPool pool =
          new MemoryPool(MemoryBudget.task(config.memoryLimit(), resources.spillBudgetBytes()));
      SessionConfig taskConfig = config.copy().withSpillDirectory(spillDir);
      TaskContext ctx = new TaskContext(safeName, allocator, pool, taskConfig, operatorThreads);
      context = ctx;
      if (cancelReason != null) {
        ctx.cancel(cancelReason);
      }
      // Asked before the plan is decoded, so the first splits are usually here when scans open.
      SchedulerSplits splits =
          request.getSplitScansCount() == 0
              ? null
              : new SchedulerSplits(
                  id, resources.executorId(), request.getSplitScansList(), resources.splits(), ctx);

      Throwable failure = null;
      DecodedStage decoded = null;
      BatchStream stream = null;
      ShuffleWriterExec writer = null;
      KeyFilterBuilder keyFilters = null;
      long elapsedMillis = 0;
      long spilled = 0;
      long fetched = 0;
      long shuffleRead = 0;
      List<OperatorStats> operators = List.of();
      try {
        List<ShuffleLocation> inputs = new ArrayList<>(request.getInputsCount());
        for (PartitionLocation l : request.getInputsList()) {
          inputs.add(ShuffleLocation.fromProto(l));
        }
        decoded =
            resources
                .decoder()
                .decode(
                    request.getPlan().toByteArray(),
                    new DecodeContext(
                        allocator,
                        inputs,
                        resources.shuffleClient(),
                        resources.udfs(),
                        request.getInputTaskCountsMap(),
                        inputSlices(request),
                        keyFilters(request)));
        StagePlan stage = decoded.plan();
        ExecutionPlan root = stage.root();
        if (splits != null) {
          splits.bind(root);
          ctx.useSplitSources(splits);
        }
        int planPartition =
            request.hasPlanPartition() ? request.getPlanPartition() : id.getTaskId();
        if (planPartition >= root.partitionCount()) {
          throw new PlanCodecException(
              name
                  + " reads partition "
                  + planPartition
                  + " but the stage plan has "
                  + root.partitionCount()
                  + " partitions; the job spec's task count does not match its plan");
        }
        if (request.getKeyFilterBuildsCount() > 0) {
          keyFilters = new KeyFilterBuilder(request.getKeyFilterBuildsList(), resources.udfs());
        }
        KeyFilterBuilder filters = keyFilters;
        writer =
            new ShuffleWriterExec(
                root,
                stage.output(),
                request.getOutputPartitions(),
                new ShuffleWriterExec.Destination(
                    store,
                    id.getJobId(),
                    id.getStageId(),
                    id.getTaskId(),
                    ShuffleCompression.of(config).orElse(null)),
                filters == null ? null : batch -> filters.add(batch, allocator));
        stream = writer.execute(planPartition, ctx);
        // Draining the writer runs the stage's partition into the shuffle store.
        for (VectorSchemaRoot none; (none = stream.next()) != null; ) {
          none.close();
        }
        elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launchedNanos);
        operators = operatorStats(writer);
        spilled = operators.stream().mapToLong(OperatorStats::getSpilledBytes).sum();
        fetched = operators.stream().mapToLong(OperatorStats::getFetchedBytes).sum();
        shuffleRead = shuffleReadBytes(writer);
      } catch (Throwable t) {
        failure = t;
        ctx.cancel("failed: " + t);
      }

      failure = release(stream, ctx, decoded, failure);
      deleteTree(spillDir);
      long leaked = allocator.getAllocatedMemory();
      try {
        allocator.close();
      } catch (IllegalStateException e) {
        LOG.error("{} leaked {} bytes of Arrow memory: {}", name, leaked, e.getMessage());
        QuiverException leak =
            new QuiverException(
                name
                    + " leaked "
                    + leaked
                    + " bytes of Arrow memory on executor "
                    + resources.executorId()
                    + " (an operator did not close a batch)",
                e);
        if (failure == null) {
          failure = leak;
        } else {
          failure.addSuppressed(leak);
        }
      }
      memory.close();
      QueryMemoryExceededException overLimit = memory.limitExceeded();
      if (overLimit != null && failure != null && TaskFailures.outOfMemory(failure)) {
        failure = overLimit;
      }

      // A task cancelled while finishing also drops its output: the job's data may have been
      // removed already, and a newer attempt may be about to write.
      if (failure == null && cancelReason == null) {
        TaskMetrics metrics =
            TaskMetrics.newBuilder()
                .setOutputRows(writer.rows())
                .setOutputBytes(writer.bytes())
                .setSpilledBytes(spilled)
                .setElapsedMillis(elapsedMillis)
                .setFetchedBytes(fetched)
                .setShuffleReadBytes(shuffleRead)
                .setJobPeakMemoryBytes(memory.jobPeakBytes())
                .addAllPartitionBytes(writer.partitionBytes())
                .addAllPartitionRows(writer.partitionRows())
                .setHandedSplits(splits == null ? 0 : splits.received())
                .addAllKeyFilters(keyFilters == null ? List.of() : keyFilters.finish())
                .addAllOperators(operators)
                .build();
        LOG.debug(
            "{} succeeded: {} rows, {} bytes in {} ms",
            name,
            metrics.getOutputRows(),
            metrics.getOutputBytes(),
            metrics.getElapsedMillis());
        return report(TaskState.TASK_STATE_SUCCEEDED, metrics, null);
      }
      // Consumers must never read a partial output: drop whatever the attempt wrote.
      store.removeTask(id.getJobId(), id.getStageId(), id.getTaskId());
      // Cancelling a running task can surface as any failure of what it was doing (e.g. a shuffle
      // fetch cut short): the cancellation is what the scheduler asked about, or the reason this
      // executor aborted it.
      if (abortCause != null) {
        failure = abortCause;
      } else if (cancelReason != null) {
        LOG.info("{} cancelled: {}", name, cancelReason);
        return report(TaskState.TASK_STATE_CANCELLED, null, null);
      }
      ErrorInfo error =
          onThisExecutor(TaskFailures.describe(failure, name, request.getSettingsMap()));
      if (TaskFailures.typedCause(failure) == null) {
        LOG.error("{} failed", name, failure);
      } else {
        LOG.info("{} failed: {}: {}", name, error.getKind(), error.getMessage());
      }
      return report(TaskState.TASK_STATE_FAILED, null, error);
    }

    /**
     * {@code error}, unless this executor's work directory is broken: then the failure is the
     * executor's, not the task's, and another executor should run the task.
     */
    private ErrorInfo onThisExecutor(ErrorInfo error) {
      Optional<String> problem = resources.diskProblem().get();
      if (problem.isEmpty()) {
        return error;
      }
      return ErrorInfo.newBuilder()
          .setKind(TaskFailures.EXECUTOR_DISK)
          .setMessage(
              name
                  + " failed on executor "
                  + resources.executorId()
                  + ", whose "
                  + problem.get()
                  + " ("
                  + error.getKind()
                  + ": "
                  + error.getMessage()
                  + ")")
          .setRetryable(true)
          .build();
    }

    /** Closes the stream, the context and the decoded stage; returns the first failure. */
    private Throwable release(
        BatchStream stream, TaskContext ctx, DecodedStage decoded, Throwable failure) {
      List<AutoCloseable> closing = new ArrayList<>();
      if (stream != null) {
        closing.add(stream);
      }
      closing.add(ctx);
      if (decoded != null) {
        closing.add(decoded);
      }
      for (AutoCloseable c : closing) {
        try {
          c.close();
        } catch (Exception e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
      context = null;
      return failure;
    }

    /** A name usable in file names and allocator names. */
    String safeName() {
      return (id.getJobId()
              + "-s"
              + id.getStageId()
              + "-t"
              + id.getTaskId()
              + "-a"
              + id.getAttempt())
          .replaceAll("[^A-Za-z0-9_.-]", "_");
    }

    TaskStatusReport report(TaskState state, TaskMetrics metrics, ErrorInfo error) {
      TaskStatusReport.Builder b =
          TaskStatusReport.newBuilder()
              .setTask(id)
              .setExecutorId(resources.executorId())
              .setState(state);
      if (metrics != null) {
        b.setMetrics(metrics);
      } else {
        b.setMetrics(
            TaskMetrics.newBuilder()
                .setElapsedMillis(
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - launchedNanos)));
      }
      if (error != null) {
        b.setError(error);
      }
      return b.build();
    }
  }

  /** The input slices a launch request gives its task, by input stage. */
  /** The Bloom filter the task's plan applies, by filter id (none unless the stage runs one). */
  private static Map<Integer, BloomFilter> keyFilters(LaunchTaskRequest request) {
    if (!request.hasKeyFilter()) {
      return Map.of();
    }
    KeyFilterBits bits = request.getKeyFilter();
    return Map.of(bits.getFilterId(), BloomFilter.fromBytes(bits.getBits().toByteArray()));
  }

  private static Map<Integer, ShuffleReaderExec.Slice> inputSlices(LaunchTaskRequest request) {
    Map<Integer, ShuffleReaderExec.Slice> slices = new HashMap<>();
    for (InputSlice s : request.getInputSlicesList()) {
      slices.put(
          s.getStageId(),
          new ShuffleReaderExec.Slice(
              s.getFirstPartition(), s.getEndPartition(), s.getFirstTask(), s.getEndTask()));
    }
    return slices;
  }
}
