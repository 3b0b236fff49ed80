package dev.quiver.scheduler.job;

import dev.quiver.distributed.proto.OperatorStats;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.distributed.proto.TaskMetrics;
import dev.quiver.distributed.proto.TaskState;
import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import dev.quiver.scheduler.job.JobViews.OperatorView;
import dev.quiver.scheduler.job.JobViews.StageView;
import dev.quiver.scheduler.job.JobViews.TaskView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Builds the immutable views of a job; called on the job loop only. */
final class JobSnapshots {
  private JobSnapshots() {}

  static JobSummary summary(Job job) {
    int stagesDone = 0;
    int tasksDone = 0;
    int tasksTotal = 0;
    int running = 0;
    long rows = 0;
    long resultRows = 0;
    long bytes = 0;
    for (StageRun stage : job.stages.values()) {
      int done = stage.succeeded();
      tasksDone += done;
      tasksTotal += stage.tasks.size();
      if (done == stage.tasks.size()) {
        stagesDone++;
      }
      for (TaskRun t : stage.tasks) {
        if (t.phase == TaskRun.Phase.RUNNING) {
          running++;
        } else if (t.phase == TaskRun.Phase.SUCCEEDED && t.summary != null) {
          rows += t.summary.getMetrics().getOutputRows();
          bytes += t.summary.getMetrics().getOutputBytes();
          if (stage == job.finalStage) {
            resultRows += t.summary.getMetrics().getOutputRows();
          }
        }
      }
    }
    return new JobSummary(
        job.id,
        job.name,
        job.user,
        job.state.name().replace("JOB_STATE_", ""),
        job.submittedAtMillis,
        job.startedAtNanos < 0
            ? 0
            : job.submittedAtMillis
                + TimeUnit.NANOSECONDS.toMillis(job.startedAtNanos - job.submittedAtNanos),
        job.finishedAtMillis,
        stagesDone,
        job.stages.size(),
        tasksDone,
        tasksTotal,
        running,
        rows,
        resultRows,
        job.error == null ? null : job.error.getMessage(),
        job.group.name(),
        job.queuePosition,
        bytes,
        job.error == null ? null : job.error.getKind(),
        false,
        job.peakMemoryBytes,
        Map.copyOf(job.peakMemoryByExecutor));
  }

  static JobDetail detail(Job job, long nowNanos) {
    List<StageView> stages = new ArrayList<>();
    for (StageRun stage : job.stages.values()) {
      List<TaskView> tasks = new ArrayList<>();
      for (TaskRun t : stage.tasks) {
        tasks.add(task(t, job.submittedAtNanos, nowNanos));
      }
      StageSpec spec = stage.spec;
      stages.add(
          new StageView(
              stage.id(),
              stage.tasks.size(),
              stage.succeeded(),
              List.copyOf(spec.getInputStageIdsList()),
              spec.getOutputPartitions(),
              spec.getPartitioning(),
              spec.getBoundary(),
              JobText.redact(stage.planText(), job.spec),
              stage.adaptiveNote,
              List.copyOf(tasks),
              operators(stage)));
    }
    return new JobDetail(summary(job), List.copyOf(stages), job.spec.getFinalStageId(), dot(job));
  }

  private static TaskView task(TaskRun t, long jobSubmittedNanos, long nowNanos) {
    String state;
    if (t.summary == null) {
      state = "WAITING";
    } else if (t.phase == TaskRun.Phase.WAITING
        && t.summary.getState() != TaskState.TASK_STATE_FAILED
        && t.summary.getState() != TaskState.TASK_STATE_CANCELLED) {
      state = "WAITING";
    } else {
      state = t.summary.getState().name().replace("TASK_STATE_", "");
    }
    TaskMetrics m = t.summary == null ? TaskMetrics.getDefaultInstance() : t.summary.getMetrics();
    boolean launched = t.summary != null && t.launchedAtNanos != 0;
    long elapsed;
    if (t.summary == null) {
      elapsed = 0;
    } else if (t.phase == TaskRun.Phase.RUNNING) {
      elapsed = TimeUnit.NANOSECONDS.toMillis(nowNanos - t.launchedAtNanos);
    } else if (m.getElapsedMillis() > 0) {
      elapsed = m.getElapsedMillis();
    } else {
      elapsed = t.ranNanos < 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(t.ranNanos);
    }
    return new TaskView(
        t.index,
        t.attempt,
        t.launches,
        state,
        t.executor == null ? null : t.executor.getExecutorId(),
        t.executor == null ? null : t.executor.getHost(),
        m.getOutputRows(),
        m.getOutputBytes(),
        m.getSpilledBytes(),
        elapsed,
        launched ? TimeUnit.NANOSECONDS.toMillis(t.launchedAtNanos - jobSubmittedNanos) : -1,
        launched && t.ranNanos >= 0
            ? TimeUnit.NANOSECONDS.toMillis(t.launchedAtNanos + t.ranNanos - jobSubmittedNanos)
            : -1,
        m.getFetchedBytes(),
        m.getShuffleReadBytes(),
        List.copyOf(t.failureReasons));
  }

  /**
   * A stage's operators with their metrics summed over its succeeded tasks; an operator is matched
   * by its position in the plan and its name (a runtime-filtered plan may differ in shape).
   */
  private static List<OperatorView> operators(StageRun stage) {
    Map<String, long[]> sums = new LinkedHashMap<>();
    Map<String, OperatorStats> first = new LinkedHashMap<>();
    for (TaskRun t : stage.tasks) {
      if (t.phase != TaskRun.Phase.SUCCEEDED || t.summary == null) {
        continue;
      }
      List<OperatorStats> ops = t.summary.getMetrics().getOperatorsList();
      for (int i = 0; i < ops.size(); i++) {
        OperatorStats o = ops.get(i);
        String key = i + "/" + o.getName();
        first.putIfAbsent(key, o);
        long[] s = sums.computeIfAbsent(key, k -> new long[7]);
        long millis = TimeUnit.NANOSECONDS.toMillis(o.getElapsedNanos());
        s[0]++;
        s[1] += o.getOutputRows();
        s[2] += o.getOutputBatches();
        s[3] += millis;
        s[4] = Math.max(s[4], millis);
        s[5] += o.getSpilledBytes();
        s[6] += o.getFetchedBytes();
      }
    }
    List<OperatorView> out = new ArrayList<>();
    sums.forEach(
        (key, s) -> {
          OperatorStats o = first.get(key);
          out.add(
              new OperatorView(
                  o.getDepth(), o.getName(), (int) s[0], s[1], s[2], s[3], s[4], s[5], s[6]));
        });
    return List.copyOf(out);
  }

  /** The stage graph as Graphviz DOT: producer → consumer edges, the final stage → client. */
  static String dot(Job job) {
    StringBuilder sb = new StringBuilder("digraph stages {\n  rankdir=BT;\n  node [shape=box];\n");
    for (StageRun s : job.stages.values()) {
      sb.append("  s")
          .append(s.id())
          .append(" [label=\"Stage ")
          .append(s.id())
          .append("\\ntasks=")
          .append(s.tasks.size())
          .append(
              s.spec.getPartitioning().isEmpty()
                  ? ""
                  : "\\noutput=" + escape(s.spec.getPartitioning()))
          .append("\"];\n");
    }
    for (StageRun s : job.stages.values()) {
      for (int input : s.spec.getInputStageIdsList()) {
        StageRun producer = job.stages.get(input);
        sb.append("  s").append(input).append(" -> s").append(s.id());
        if (producer != null && !producer.spec.getBoundary().isEmpty()) {
          sb.append(" [label=\"").append(escape(producer.spec.getBoundary())).append("\"]");
        }
        sb.append(";\n");
      }
    }
    sb.append("  client [shape=ellipse];\n  s")
        .append(job.spec.getFinalStageId())
        .append(" -> client [label=\"RESULT\"];\n");
    return sb.append("}\n").toString();
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
