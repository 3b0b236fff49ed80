package dev.quiver.distributed.client;

import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.decorators.QueryScope;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.distributed.shuffle.ShuffleFetchException;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The root of a distributed plan, run in the client: executing it submits the stage graph as a job,
 * waits for it, and streams the final stage's outputs (partition {@code i} reads the output of
 * final task {@code i}). Everything the binding does with a plan's root (collect, stream, show,
 * EXPLAIN ANALYZE) therefore works unchanged.
 */
public final class DistributedQueryExec extends BaseExecutionPlan {
  private static final Logger LOG = LoggerFactory.getLogger(DistributedQueryExec.class);

  /** Times a job is submitted again because its result could not be read. */
  static final int MAX_RESUBMITS = 2;

  /** Times in a row a job is submitted again because a restarting scheduler lost it. */
  static final int MAX_LOST_RESUBMITS = 3;

  private final StageGraph graph;
  private final JobSpec job;
  private final ClusterRuntime runtime;
  private final QueryScope.ProgressSink progress;
  private final Map<String, Execution> executions = new HashMap<>();
  private volatile JobHandle lastJob;

  /** A run of one execution (one TaskContext): the job and where its result lives. */
  private record Run(JobHandle handle, JobStatusUpdate status) {}

  /** Creates the root for {@code graph}, already encoded as {@code job}. */
  public DistributedQueryExec(StageGraph graph, JobSpec job, ClusterRuntime runtime) {
    this(graph, job, runtime, progress -> {});
  }

  /** As {@link #DistributedQueryExec(StageGraph, JobSpec, ClusterRuntime)}, reporting progress. */
  public DistributedQueryExec(
      StageGraph graph, JobSpec job, ClusterRuntime runtime, QueryScope.ProgressSink progress) {
    super(graph.finalStage().root().schema(), List.of());
    this.graph = graph;
    this.job = job;
    this.runtime = runtime;
    this.progress = progress;
  }

  /** The stages. */
  public StageGraph graph() {
    return graph;
  }

  /** The job as submitted. */
  public JobSpec job() {
    return job;
  }

  /** The cluster the job runs on. */
  public ClusterRuntime runtime() {
    return runtime;
  }

  /** The last status of the latest run, or null before one. */
  public JobStatusUpdate lastStatus() {
    JobHandle h = lastJob;
    return h == null ? null : h.lastStatus();
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.unknown(graph.finalStage().taskCount());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (!children.isEmpty()) {
      throw new IllegalArgumentException("DistributedQueryExec is a leaf");
    }
    return this;
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    Execution execution = executionFor(context);
    return new ResultStream(execution, partition, execution.current());
  }

  /** The execution of {@code context}'s query, shared by its partitions. */
  private Execution executionFor(TaskContext context) {
    synchronized (executions) {
      Execution e = executions.get(context.queryId());
      if (e == null) {
        Execution created = new Execution(context);
        executions.put(context.queryId(), created);
        context.registerCleanup(
            () -> {
              synchronized (executions) {
                executions.remove(context.queryId(), created);
              }
              created.close();
            });
        e = created;
      }
      return e;
    }
  }

  /**
   * One execution of the plan (one TaskContext): the job run whose output its partitions read. If
   * reading the output fails because an executor holding it died after the job succeeded, the job
   * is submitted again, as long as no partition has returned a batch yet.
   */
  private final class Execution {
    private final TaskContext context;
    private Run run;
    private RuntimeException failure;
    private boolean delivered;
    private int resubmits;
    private boolean closed;

    Execution(TaskContext context) {
      this.context = context;
    }

    /** The current run: the first partition to ask submits the job, the others wait for it. */
    synchronized Run current() {
      if (failure != null) {
        throw failure;
      }
      if (run == null) {
        run = submit();
      }
      return run;
    }

    /**
     * Submits the job and waits for it. A job the scheduler lost by restarting is submitted again
     * (the client holds the plan), up to {@link #MAX_LOST_RESUBMITS} times.
     */
    private Run submit() {
      try {
        Duration wait = DistributedSettings.schedulerWait(job.getSettingsMap());
        for (int lost = 0; ; lost++) {
          if (closed) {
            throw new QueryCancelledException("Query " + context.queryId() + " was closed");
          }
          JobHandle handle = JobHandle.submit(runtime.scheduler(), job, wait);
          lastJob = handle;
          progress.update(handle.progress());
          try {
            runtime.jobSubmitted(graph, handle);
            JobStatusUpdate status =
                handle.awaitSuccess(
                    context::isCancelled,
                    u -> {
                      progress.update(handle.progress());
                      runtime.jobUpdated(graph, u);
                    });
            runtime.jobSucceeded(graph, status);
            return new Run(handle, status);
          } catch (JobHandle.JobLostException e) {
            handle.close();
            if (lost >= MAX_LOST_RESUBMITS) {
              throw new QuiverException(
                  e.getMessage() + ", " + (lost + 1) + " times in a row; run the query again", e);
            }
            LOG.warn("{}; submitting it again", e.getMessage());
          } catch (RuntimeException e) {
            handle.close();
            throw e;
          }
        }
      } catch (RuntimeException e) {
        failure = e;
        throw e;
      }
    }

    /**
     * Replaces {@code failed}, whose output could not be read, with a new run; refuses once a batch
     * was returned (the result would repeat rows) or after {@link #MAX_RESUBMITS}.
     */
    synchronized Run resubmit(Run failed, ShuffleFetchException cause) {
      if (failure != null) {
        throw failure;
      }
      if (run != failed) {
        return run; // another partition has already submitted it again
      }
      if (delivered) {
        throw new QuiverException(
            "Reading the result of distributed job "
                + failed.handle().jobId()
                + " failed after part of it was returned, so it cannot be run again"
                + " transparently (an executor holding it is gone?): "
                + cause.getMessage()
                + "; run the query again",
            cause);
      }
      if (resubmits >= MAX_RESUBMITS) {
        throw new QuiverException(
            "Reading the result of distributed job "
                + failed.handle().jobId()
                + " failed after the job was run "
                + (resubmits + 1)
                + " times: "
                + cause.getMessage(),
            cause);
      }
      resubmits++;
      LOG.warn(
          "reading the result of job {} failed before any row was returned ({}); submitting the"
              + " job again ({} of {})",
          failed.handle().jobId(),
          cause.getMessage(),
          resubmits,
          MAX_RESUBMITS);
      failed.handle().close();
      run = null;
      run = submit();
      return run;
    }

    /**
     * Records that a partition of {@code from} is about to return a batch; false when the job was
     * submitted again meanwhile (the batch must be dropped and the partition re-read).
     */
    synchronized boolean deliver(Run from) {
      if (run != from) {
        return false;
      }
      delivered = true;
      return true;
    }

    synchronized void close() {
      closed = true;
      if (run != null) {
        run.handle().close();
      }
    }
  }

  /** One output partition of an execution, re-read from a new run when the job is resubmitted. */
  private final class ResultStream implements BatchStream {
    private final Execution execution;
    private final int partition;
    private Run run;
    private BatchStream current;

    ResultStream(Execution execution, int partition, Run run) {
      this.execution = execution;
      this.partition = partition;
      this.run = run;
    }

    @Override
    public Schema schema() {
      return DistributedQueryExec.this.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      while (true) {
        try {
          if (current == null) {
            current = open(run, partition);
          }
          VectorSchemaRoot batch = current.next();
          if (batch == null || execution.deliver(run)) {
            return batch;
          }
          batch.close();
          switchTo(execution.current());
        } catch (ShuffleFetchException e) {
          closeCurrent();
          run = execution.resubmit(run, e);
        }
      }
    }

    private void switchTo(Run next) {
      closeCurrent();
      run = next;
    }

    private BatchStream open(Run from, int p) {
      int finalTasks = 0;
      for (PartitionLocation l : from.status().getFinalOutputsList()) {
        ShuffleLocation location = ShuffleLocation.fromProto(l);
        finalTasks = Math.max(finalTasks, location.taskId() + 1);
        if (location.taskId() == p && location.partition() == 0) {
          return location.empty()
              ? emptyStream(schema())
              : runtime.shuffle().open(location, schema(), execution.context);
        }
      }
      if (p >= finalTasks && finalTasks > 0) {
        return emptyStream(schema()); // adaptive execution coalesced the final stage's partitions
      }
      throw new QuiverException(
          "Job " + from.handle().jobId() + " reported no output for final task " + p);
    }

    private void closeCurrent() {
      if (current != null) {
        BatchStream c = current;
        current = null;
        c.close();
      }
    }

    @Override
    public void close() {
      closeCurrent();
    }
  }

  private static BatchStream emptyStream(Schema schema) {
    return new BatchStream() {
      @Override
      public Schema schema() {
        return schema;
      }

      @Override
      public VectorSchemaRoot next() {
        return null;
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public String displayDetails() {
    JobStatusUpdate status = lastStatus();
    Map<Integer, String> metrics = status == null ? Map.of() : metricsByStage(status);
    return "job of "
        + graph.stages().size()
        + " stages"
        + (status == null ? "" : " (" + status.getJobId() + ", " + status.getState() + ")")
        + "\n"
        + graph.explain(metrics).stripTrailing();
  }

  /** Per-stage totals and per-task lines of measured metrics, for EXPLAIN ANALYZE. */
  static Map<Integer, String> metricsByStage(JobStatusUpdate status) {
    Map<Integer, String> out = new TreeMap<>();
    for (StageStatus s : status.getStagesList()) {
      long rows = 0;
      long bytes = 0;
      long spilled = 0;
      long fetched = 0;
      long maxMillis = 0;
      StringBuilder tasks = new StringBuilder();
      for (TaskSummary t : s.getTasksList()) {
        TaskMetrics m = t.getMetrics();
        rows += m.getOutputRows();
        bytes += m.getOutputBytes();
        spilled += m.getSpilledBytes();
        fetched += m.getFetchedBytes();
        maxMillis = Math.max(maxMillis, m.getElapsedMillis());
        tasks
            .append("\ntask ")
            .append(t.getTask().getTaskId())
            .append(" #")
            .append(t.getTask().getAttempt())
            .append(" on ")
            .append(t.getExecutorId())
            .append(": ")
            .append(t.getState().name().replace("TASK_STATE_", ""))
            .append(t.getSpeculative() ? " (speculative)" : "")
            .append(t.getSkipped() ? " (skipped: the row limit was met)" : "")
            .append(", rows=")
            .append(m.getOutputRows())
            .append(", bytes=")
            .append(m.getOutputBytes())
            .append(", spilled=")
            .append(m.getSpilledBytes())
            .append(m.getFetchedBytes() > 0 ? ", fetched_bytes=" + m.getFetchedBytes() : "")
            .append(", time=")
            .append(m.getElapsedMillis())
            .append(" ms");
      }
      out.put(
          s.getStageId(),
          "tasks "
              + s.getTasksSucceeded()
              + "/"
              + s.getTaskCount()
              + " succeeded: rows="
              + rows
              + ", bytes="
              + bytes
              + ", spilled="
              + spilled
              + (fetched > 0 ? ", fetched_bytes=" + fetched : "")
              + ", slowest task="
              + maxMillis
              + " ms"
              + (s.getAdaptive().isEmpty() ? "" : "\nadaptive: " + s.getAdaptive())
              + tasks);
    }
    return out;
  }
}
