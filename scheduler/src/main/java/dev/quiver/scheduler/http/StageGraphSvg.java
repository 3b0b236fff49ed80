package dev.quiver.scheduler.http;

import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.StageView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Draws a job's stage graph as inline SVG: stages in columns by depth (a stage right of every stage
 * it reads), the final stage last and the client after it; each stage box shows its task progress,
 * its operators and the tables it scans (else its output partitioning), each edge how the consumer
 * reads the producer.
 */
final class StageGraphSvg {
  private static final int W = 230;
  private static final int H = 86;
  private static final int GAP_X = 110;
  private static final int GAP_Y = 26;
  private static final int PAD = 16;

  private StageGraphSvg() {}

  static String render(JobDetail job) {
    Map<Integer, StageView> byId = new HashMap<>();
    job.stages().forEach(s -> byId.put(s.id(), s));
    Map<Integer, Integer> level = new HashMap<>();
    for (StageView s : job.stages()) {
      level(s.id(), byId, level);
    }
    TreeMap<Integer, List<StageView>> columns = new TreeMap<>();
    for (StageView s : job.stages()) {
      columns.computeIfAbsent(level.get(s.id()), k -> new ArrayList<>()).add(s);
    }
    int rows = columns.values().stream().mapToInt(List::size).max().orElse(1);
    int height = PAD * 2 + rows * H + (rows - 1) * GAP_Y;
    Map<Integer, int[]> pos = new HashMap<>();
    int col = 0;
    for (List<StageView> column : columns.values()) {
      int top = (height - (column.size() * H + (column.size() - 1) * GAP_Y)) / 2;
      for (int i = 0; i < column.size(); i++) {
        pos.put(column.get(i).id(), new int[] {PAD + col * (W + GAP_X), top + i * (H + GAP_Y)});
      }
      col++;
    }
    int clientX = PAD + col * (W + GAP_X);
    int width = clientX + 110 + PAD;

    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"stage graph\">",
            width,
            height,
            width,
            height));
    b.append(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\""
            + " markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">"
            + "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#7a8497\"/></marker></defs>");
    for (StageView s : job.stages()) {
      int[] to = pos.get(s.id());
      for (int input : s.inputs()) {
        int[] from = pos.get(input);
        StageView producer = byId.get(input);
        if (from == null || producer == null) {
          continue;
        }
        edge(b, from[0] + W, from[1] + H / 2, to[0], to[1] + H / 2, producer.boundary());
      }
    }
    int[] last = pos.get(job.finalStageId());
    int clientY = height / 2;
    if (last != null) {
      edge(b, last[0] + W, last[1] + H / 2, clientX, clientY, "RESULT");
    }
    b.append(
        String.format(
            Locale.ROOT,
            "<ellipse cx=\"%d\" cy=\"%d\" rx=\"50\" ry=\"20\" fill=\"#fff\" stroke=\"#7a8497\"/>"
                + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\""
                + " font-family=\"system-ui,sans-serif\">client</text>",
            clientX + 50,
            clientY,
            clientX + 50,
            clientY + 4));
    for (StageView s : job.stages()) {
      box(b, s, pos.get(s.id()));
    }
    return b.append("</svg>").toString();
  }

  private static int level(int id, Map<Integer, StageView> byId, Map<Integer, Integer> memo) {
    Integer known = memo.get(id);
    if (known != null) {
      return known;
    }
    memo.put(id, 0); // a cycle (never sent by a valid client) ends here instead of recursing
    int l = 0;
    StageView s = byId.get(id);
    if (s != null) {
      for (int input : s.inputs()) {
        if (byId.containsKey(input)) {
          l = Math.max(l, level(input, byId, memo) + 1);
        }
      }
    }
    memo.put(id, l);
    return l;
  }

  private static void edge(StringBuilder b, int x1, int y1, int x2, int y2, String label) {
    int mid = (x1 + x2) / 2;
    b.append(
        String.format(
            Locale.ROOT,
            "<path d=\"M%d,%d C%d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"#7a8497\""
                + " stroke-width=\"1.4\" marker-end=\"url(#arrow)\"/>",
            x1,
            y1,
            mid,
            y1,
            mid,
            y2,
            x2,
            y2));
    if (label != null && !label.isEmpty()) {
      b.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10.5\" fill=\"#5b6478\""
                  + " font-family=\"system-ui,sans-serif\">%s</text>",
              mid,
              (y1 + y2) / 2 - 6,
              WebUi.esc(label)));
    }
  }

  private static void box(StringBuilder b, StageView s, int[] at) {
    String fill;
    String stroke;
    if (s.tasksSucceeded() == s.taskCount()) {
      fill = "#e3f5e9";
      stroke = "#2f8f4e";
    } else if (s.tasks().stream().anyMatch(t -> t.state().equals("RUNNING"))
        || s.tasksSucceeded() > 0) {
      fill = "#e4ecfd";
      stroke = "#3b6fd6";
    } else if (s.tasks().stream().anyMatch(t -> t.state().equals("FAILED"))) {
      fill = "#fbe5e5";
      stroke = "#b33a3a";
    } else {
      fill = "#f1f3f6";
      stroke = "#8a93a5";
    }
    int x = at[0];
    int y = at[1];
    b.append(
        String.format(
            Locale.ROOT,
            "<a href=\"#stage-%d\"><g><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\""
                + " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>",
            s.id(),
            x,
            y,
            W,
            H,
            fill,
            stroke));
    int done = s.taskCount() == 0 ? 0 : (W - 24) * s.tasksSucceeded() / s.taskCount();
    PlanSummary plan = PlanSummary.of(s.planText());
    String reads =
        plan.tables().isEmpty()
            ? "output " + s.partitioning()
            : "scans " + String.join(", ", plan.tables());
    b.append(
        String.format(
            Locale.ROOT,
            "<title>%s</title>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"13.5\" font-weight=\"600\""
                + " font-family=\"system-ui,sans-serif\" fill=\"#1f2430\">Stage %d</text>"
                + "<text x=\"%d\" y=\"%d\" font-size=\"11.5\" font-family=\"system-ui,sans-serif\""
                + " fill=\"#4a5263\" text-anchor=\"end\">%d/%d tasks</text>"
                + "<text class=\"ops\" x=\"%d\" y=\"%d\" font-size=\"10.5\""
                + " font-family=\"ui-monospace,monospace\" fill=\"#1f2430\">%s</text>"
                + "<text class=\"reads\" x=\"%d\" y=\"%d\" font-size=\"10.5\""
                + " font-family=\"ui-monospace,monospace\" fill=\"#4a5263\">%s</text>"
                + "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"6\" rx=\"3\" fill=\"#dfe3ea\"/>"
                + "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"6\" rx=\"3\" fill=\"%s\"/></g></a>",
            WebUi.esc(plan.operatorLine() + "\n" + reads + "\noutput " + s.partitioning()),
            x + 12,
            y + 21,
            s.id(),
            x + W - 12,
            y + 21,
            s.tasksSucceeded(),
            s.taskCount(),
            x + 12,
            y + 41,
            WebUi.esc(WebUi.shorten(plan.operatorLine(), 34)),
            x + 12,
            y + 57,
            WebUi.esc(WebUi.shorten(reads, 34)),
            x + 12,
            y + 68,
            W - 24,
            x + 12,
            y + 68,
            done,
            stroke));
  }
}
