package dev.quiver.scheduler.http;

import static dev.quiver.scheduler.http.WebUi.badge;
import static dev.quiver.scheduler.http.WebUi.bytes;
import static dev.quiver.scheduler.http.WebUi.esc;
import static dev.quiver.scheduler.http.WebUi.millis;

import dev.quiver.scheduler.job.JobViews.OperatorView;
import dev.quiver.scheduler.job.JobViews.StageView;
import dev.quiver.scheduler.job.JobViews.TaskView;
import java.util.List;
import java.util.Locale;

/**
 * One stage's section of a job page: what it does, its task time spread (min, median, max: skew),
 * its input, a timeline of its tasks, its operators' metrics summed over its tasks (as EXPLAIN
 * ANALYZE shows them per task), its tasks, and why each failed attempt failed.
 */
final class StageDetails {
  private static final int TIMELINE_W = 900;
  private static final int LANE_H = 14;
  private static final int LABEL_W = 70;

  private StageDetails() {}

  /**
   * The section of {@code stage} ({@code last}: the final stage); without {@code tasksKept} (a job
   * read back from the history database) the parts made from its tasks are left out, not shown
   * empty.
   */
  static String render(StageView stage, boolean last, boolean tasksKept) {
    PlanSummary plan = PlanSummary.of(stage.planText());
    StringBuilder b = new StringBuilder();
    b.append("<section class=\"stage\"><h2 id=\"stage-")
        .append(stage.id())
        .append("\">Stage ")
        .append(stage.id())
        .append(last ? " (final)" : "")
        .append(" <span class=\"ops\">")
        .append(esc(plan.operatorLine()))
        .append("</span> <span class=\"muted\">")
        .append(stage.tasksSucceeded())
        .append(" of ")
        .append(stage.taskCount())
        .append(" tasks done</span></h2>");
    b.append("<p class=\"muted\">");
    if (!plan.tables().isEmpty()) {
      b.append("scans <b class=\"tables\">")
          .append(esc(String.join(", ", plan.tables())))
          .append("</b> · ");
    }
    if (!stage.inputs().isEmpty()) {
      b.append("reads stages ").append(esc(stage.inputs().toString())).append(" · ");
    }
    b.append("output ").append(esc(stage.partitioning().isEmpty() ? "?" : stage.partitioning()));
    if (!stage.boundary().isEmpty()) {
      b.append(" · read by ").append(esc(stage.boundary()));
    }
    b.append("</p>");
    if (tasksKept) {
      b.append(facts(stage.tasks()));
    } else {
      b.append("<p class=\"muted no-tasks\">Its tasks are not kept in the job history.</p>");
    }
    if (!stage.adaptive().isEmpty()) {
      b.append("<p>Adaptive: ").append(esc(stage.adaptive())).append("</p>");
    }
    if (!stage.planText().isEmpty()) {
      b.append("<details><summary>Plan</summary><pre>")
          .append(esc(stage.planText()))
          .append("</pre></details>");
    }
    if (tasksKept) {
      b.append(timeline(stage));
    }
    b.append(operators(stage.operators()));
    if (tasksKept) {
      b.append(tasks(stage.tasks()));
      b.append(failures(stage.tasks()));
    }
    return b.append("</section>").toString();
  }

  /** Task time min/median/max over launched tasks, and the stage's input and output. */
  private static String facts(List<TaskView> tasks) {
    long[] times =
        tasks.stream()
            .filter(t -> t.attempt() >= 0)
            .mapToLong(TaskView::elapsedMillis)
            .sorted()
            .toArray();
    StringBuilder b = new StringBuilder("<dl class=\"facts stagefacts\">");
    if (times.length > 0) {
      long min = times[0];
      long median = times[times.length / 2];
      long max = times[times.length - 1];
      b.append("<dt>Task time</dt><dd class=\"skew\">min ")
          .append(millis(min))
          .append(" · median ")
          .append(millis(median))
          .append(" · max ")
          .append(millis(max));
      if (median > 0 && max >= 2 * median && max - median >= 100) {
        b.append(
            String.format(
                Locale.ROOT,
                " <b class=\"warn\">skew: max is %.1f× the median</b>",
                (double) max / median));
      }
      b.append("</dd>");
    }
    long fetched = tasks.stream().mapToLong(TaskView::fetchedBytes).sum();
    long shuffleRead = tasks.stream().mapToLong(TaskView::shuffleReadBytes).sum();
    long rows = tasks.stream().mapToLong(TaskView::rows).sum();
    long written = tasks.stream().mapToLong(TaskView::bytes).sum();
    b.append("<dt>Input</dt><dd class=\"input\">")
        .append(bytes(fetched))
        .append(" read from files · ")
        .append(bytes(shuffleRead))
        .append(" shuffle read</dd>");
    b.append("<dt>Output</dt><dd>")
        .append(String.format(Locale.ROOT, "%,d", rows))
        .append(" rows · ")
        .append(bytes(written))
        .append("</dd></dl>");
    return b.toString();
  }

  /**
   * Each launched task a bar from its launch to its end (now, while it runs), on the stage's time
   * axis in milliseconds after the job was submitted.
   */
  private static String timeline(StageView stage) {
    List<TaskView> launched =
        stage.tasks().stream().filter(t -> t.launchedAfterMillis() >= 0).toList();
    if (launched.isEmpty()) {
      return "";
    }
    long from = launched.stream().mapToLong(TaskView::launchedAfterMillis).min().orElse(0);
    long to = launched.stream().mapToLong(StageDetails::end).max().orElse(from);
    double scale = (TIMELINE_W - LABEL_W - 10) / (double) Math.max(1, to - from);
    int height = launched.size() * LANE_H + 22;
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
                + " height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"task timeline"
                + " of stage %d\">",
            TIMELINE_W,
            height,
            TIMELINE_W,
            height,
            stage.id()));
    int y = 2;
    for (TaskView t : launched) {
      long end = end(t);
      int x = LABEL_W + (int) Math.round((t.launchedAfterMillis() - from) * scale);
      int w = Math.max(2, (int) Math.round((end - t.launchedAfterMillis()) * scale));
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\""
                  + " font-family=\"system-ui,sans-serif\" fill=\"#5b6478\">task %d</text>"
                  + "<rect class=\"task s-%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
                  + " rx=\"2\"><title>task %d on %s: %s, %s (+%d ms to +%d ms)</title></rect>",
              LABEL_W - 6,
              y + LANE_H - 4,
              t.task(),
              t.state().toLowerCase(Locale.ROOT),
              x,
              y + 2,
              w,
              LANE_H - 4,
              t.task(),
              esc(t.executorId() == null ? "?" : t.executorId()),
              t.state(),
              millis(t.elapsedMillis()),
              t.launchedAfterMillis(),
              end));
      y += LANE_H;
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" font-size=\"10\" font-family=\"system-ui,sans-serif\""
                + " fill=\"#5b6478\">+%d ms</text><text x=\"%d\" y=\"%d\" font-size=\"10\""
                + " text-anchor=\"end\" font-family=\"system-ui,sans-serif\""
                + " fill=\"#5b6478\">+%d ms after submission</text></svg>",
            LABEL_W,
            y + 14,
            from,
            TIMELINE_W - 4,
            y + 14,
            to));
    return b.toString();
  }

  private static long end(TaskView t) {
    return t.endedAfterMillis() >= 0
        ? t.endedAfterMillis()
        : t.launchedAfterMillis() + t.elapsedMillis();
  }

  private static String operators(List<OperatorView> operators) {
    if (operators.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    b.append("<table class=\"operators\"><thead><tr><th>Operator</th><th>Tasks</th>")
        .append("<th>Output rows</th><th>Batches</th><th>Time (all tasks)</th>")
        .append("<th>Max per task</th><th>Spilled</th><th>Read from files</th>")
        .append("</tr></thead><tbody>");
    for (OperatorView o : operators) {
      b.append("<tr><td style=\"padding-left:")
          .append(10 + 16 * o.depth())
          .append("px\">")
          .append(esc(o.name()))
          .append("</td><td class=\"num\">")
          .append(o.tasks())
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%,d", o.outputRows()))
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%,d", o.outputBatches()))
          .append("</td><td class=\"num\">")
          .append(millis(o.elapsedMillis()))
          .append("</td><td class=\"num\">")
          .append(millis(o.maxTaskElapsedMillis()))
          .append("</td><td class=\"num\">")
          .append(bytes(o.spilledBytes()))
          .append("</td><td class=\"num\">")
          .append(bytes(o.fetchedBytes()))
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }

  private static String tasks(List<TaskView> tasks) {
    StringBuilder b = new StringBuilder();
    b.append("<table class=\"tasks\"><thead><tr><th>Task</th><th>State</th><th>Executor</th>")
        .append("<th>Attempts</th><th>Rows</th><th>Bytes</th><th>Read from files</th>")
        .append("<th>Shuffle read</th><th>Spilled</th><th>Time</th>")
        .append("</tr></thead><tbody>");
    for (TaskView t : tasks) {
      b.append("<tr><td class=\"num\">")
          .append(t.task())
          .append("</td><td>")
          .append(badge(t.state()))
          .append("</td><td>")
          .append(t.executorId() == null ? "" : esc(t.executorId()))
          .append("</td><td class=\"num\">")
          .append(t.attempts())
          .append("</td><td class=\"num\">")
          .append(String.format(Locale.ROOT, "%,d", t.rows()))
          .append("</td><td class=\"num\">")
          .append(bytes(t.bytes()))
          .append("</td><td class=\"num\">")
          .append(bytes(t.fetchedBytes()))
          .append("</td><td class=\"num\">")
          .append(bytes(t.shuffleReadBytes()))
          .append("</td><td class=\"num\">")
          .append(bytes(t.spilledBytes()))
          .append("</td><td class=\"num\">")
          .append(millis(t.elapsedMillis()))
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }

  private static String failures(List<TaskView> tasks) {
    StringBuilder b = new StringBuilder();
    for (TaskView t : tasks) {
      for (String f : t.failures()) {
        b.append("<li><b>task ").append(t.task()).append("</b> ").append(esc(f)).append("</li>");
      }
    }
    return b.length() == 0 ? "" : "<h3>Failed attempts</h3><ul class=\"failures\">" + b + "</ul>";
  }
}
