package dev.quiver.examples.cli;

import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.distributed.proto.TaskSummary;
import java.util.Map;
import java.util.TreeMap;

/** One line per stage of a finished job: tasks, where they ran and what they produced. */
final class StageReport {
  private StageReport() {}

  static String format(JobStatusUpdate status) {
    StringBuilder sb = new StringBuilder();
    sb.append("  job ")
        .append(status.getJobId())
        .append(": ")
        .append(status.getStagesCount())
        .append(" stages\n");
    for (StageStatus s : status.getStagesList()) {
      Map<String, Integer> perExecutor = new TreeMap<>();
      long rows = 0;
      long bytes = 0;
      long slowest = 0;
      for (TaskSummary t : s.getTasksList()) {
        perExecutor.merge(t.getExecutorId(), 1, Integer::sum);
        rows += t.getMetrics().getOutputRows();
        bytes += t.getMetrics().getOutputBytes();
        slowest = Math.max(slowest, t.getMetrics().getElapsedMillis());
      }
      sb.append(
          String.format(
              "    stage %d: %d tasks on %s; %d rows, %d bytes out, slowest task %d ms%n",
              s.getStageId(), s.getTaskCount(), perExecutor, rows, bytes, slowest));
    }
    return sb.toString();
  }
}
