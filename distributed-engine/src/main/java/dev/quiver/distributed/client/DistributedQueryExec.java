package dev.quiver.distributed.client;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.QuiverException;
import dev.quiver.distributed.planner.StageGraph;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.PartitionLocation;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskSummary;
import dev.quiver.distributed.shuffle.ShuffleLocation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The root of a distributed plan, run in the client: executing it submits the stage graph as a
 * job, waits for it, and streams the final stage's outputs (partition {@code i} reads the output
 * of final task {@code i}). Everything the binding does with a plan's root (collect, stream,
 * show, EXPLAIN ANALYZE) therefore works unchanged.
 */
public final class DistributedQueryExec extends BaseExecutionPlan {
  private final StageGraph graph;
  private final JobSpec job;
  private final ClusterRuntime runtime;
  private final Map<String, CompletableFuture<Run>> runs = new HashMap<>();
  private volatile JobHandle lastJob;

  /** A run of one execution (one TaskContext): the job and where its result lives. */
  private record Run(JobHandle handle, JobStatusUpdate status) {}

  /** Creates the root for {@code graph}, already encoded as {@code job}. */
  public DistributedQueryExec(StageGraph graph, JobSpec job, ClusterRuntime runtime) {
    super(graph.finalStage().root().schema(), List.of());
    this.graph = graph;
    this.job = job;
    this.runtime = runtime;
  }

  /** The stages. */
  public StageGraph graph() {
    return graph;
  }

  /** The job as submitted. */
  public JobSpec job() {
    return job;
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
    Run run = runFor(context);
    for (PartitionLocation l : run.status().getFinalOutputsList()) {
      ShuffleLocation location = ShuffleLocation.fromProto(l);
      if (location.taskId() == partition && location.partition() == 0) {
        return runtime.shuffle().open(location, schema(), context);
      }
    }
    throw new QuiverException(
        "Job " + run.handle().jobId() + " reported no output for final task " + partition);
  }

  /** The run of this execution: the first partition to ask submits the job, the others wait. */
  private Run runFor(TaskContext context) {
    CompletableFuture<Run> future;
    boolean mine = false;
    synchronized (runs) {
      future = runs.get(context.queryId());
      if (future == null) {
        future = new CompletableFuture<>();
        runs.put(context.queryId(), future);
        mine = true;
      }
    }
    if (mine) {
      try {
        JobHandle handle = JobHandle.submit(runtime.scheduler(), job);
        lastJob = handle;
        context.registerCleanup(
            () -> {
              synchronized (runs) {
                runs.remove(context.queryId());
              }
              handle.close();
            });
        JobStatusUpdate status = handle.awaitSuccess(context::isCancelled);
        future.complete(new Run(handle, status));
        runtime.jobSucceeded(graph, status);
      } catch (RuntimeException e) {
        future.completeExceptionally(e);
        throw e;
      }
    }
    try {
      return future.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
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
      long maxMillis = 0;
      StringBuilder tasks = new StringBuilder();
      for (TaskSummary t : s.getTasksList()) {
        TaskMetrics m = t.getMetrics();
        rows += m.getOutputRows();
        bytes += m.getOutputBytes();
        spilled += m.getSpilledBytes();
        maxMillis = Math.max(maxMillis, m.getElapsedMillis());
        tasks.append("\ntask ")
            .append(t.getTask().getTaskId())
            .append(" #")
            .append(t.getTask().getAttempt())
            .append(" on ")
            .append(t.getExecutorId())
            .append(": ")
            .append(t.getState().name().replace("TASK_STATE_", ""))
            .append(", rows=")
            .append(m.getOutputRows())
            .append(", bytes=")
            .append(m.getOutputBytes())
            .append(", spilled=")
            .append(m.getSpilledBytes())
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
              + ", slowest task="
              + maxMillis
              + " ms"
              + tasks);
    }
    return out;
  }
}
