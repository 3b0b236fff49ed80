package dev.quiver.scheduler.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.quiver.scheduler.http.ClusterView.ExecutorView;
import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import dev.quiver.scheduler.job.JobViews.StageView;
import dev.quiver.scheduler.job.JobViews.TaskView;
import dev.quiver.server.http.HttpEndpoint;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The scheduler's web UI, rendered on the server as HTML with inline CSS and SVG (no script, no
 * request leaves the page): {@code /} lists recent jobs, {@code /jobs/{id}} shows a job's stage
 * graph and per-stage task tables, {@code /executors} the executors. Pages of running jobs reload
 * themselves every two seconds.
 */
public final class WebUi implements HttpHandler {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  private final ClusterView cluster;

  /** Renders {@code cluster}. */
  public WebUi(ClusterView cluster) {
    this.cluster = cluster;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      exchange.getResponseHeaders().set("Allow", "GET, HEAD");
      HttpEndpoint.text(exchange, 405, method + " is not allowed on the web UI; use GET\n");
      return;
    }
    String path = exchange.getRequestURI().getPath();
    try {
      if (path.equals("/") || path.equals("/jobs") || path.equals("/jobs/")) {
        html(exchange, 200, jobsPage(cluster.jobs()));
      } else if (path.startsWith("/jobs/")) {
        String id = path.substring("/jobs/".length());
        Optional<JobDetail> job = cluster.job(id);
        if (job.isEmpty()) {
          html(
              exchange,
              404,
              page(
                  "Job not found",
                  false,
                  "<p>Job <code>"
                      + esc(id)
                      + "</code> is not known to this scheduler: it was never submitted here, or"
                      + " it finished long ago.</p><p><a href=\"/\">All jobs</a></p>"));
        } else {
          html(exchange, 200, jobPage(job.get()));
        }
      } else if (path.equals("/executors") || path.equals("/executors/")) {
        html(exchange, 200, executorsPage(cluster.executors()));
      } else {
        html(
            exchange,
            404,
            page("Not found", false, "<p>No page at <code>" + esc(path) + "</code>.</p>"));
      }
    } catch (StatusRuntimeException e) {
      html(
          exchange,
          503,
          page(
              "Unavailable",
              false,
              "<p>The scheduler is not answering: "
                  + esc(String.valueOf(e.getStatus().getDescription()))
                  + "</p>"));
    }
  }

  private static void html(HttpExchange exchange, int status, String body) throws IOException {
    HttpEndpoint.send(exchange, status, "text/html; charset=utf-8", body);
  }

  // ------------------------------------------------------------------------------------------
  // Pages
  // ------------------------------------------------------------------------------------------

  String jobsPage(List<JobSummary> jobs) {
    StringBuilder b = new StringBuilder();
    b.append("<h1>Jobs</h1>");
    if (jobs.isEmpty()) {
      b.append("<p class=\"muted\">No jobs yet. Run a query against this scheduler.</p>");
    } else {
      b.append("<table class=\"jobs\"><thead><tr><th>Job</th><th>State</th><th>Query</th>")
          .append("<th>Submitted (UTC)</th><th>Duration</th><th>Progress</th><th>Rows</th>")
          .append("</tr></thead><tbody>");
      for (JobSummary j : jobs) {
        b.append("<tr><td><a href=\"/jobs/")
            .append(esc(j.id()))
            .append("\">")
            .append(esc(j.id()))
            .append("</a></td><td>")
            .append(badge(j.state()))
            .append("</td><td class=\"sql\" title=\"")
            .append(esc(j.name()))
            .append("\">")
            .append(esc(shorten(j.name(), 64)))
            .append("</td><td>")
            .append(time(j.submittedAtMillis()))
            .append("</td><td>")
            .append(duration(j))
            .append("</td><td>")
            .append(progressBar(j))
            .append("</td><td class=\"num\">")
            .append(String.format(Locale.ROOT, "%,d", j.rows()))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    boolean live = jobs.stream().anyMatch(j -> !finished(j.state()));
    return page("Jobs", live, b.toString());
  }

  String jobPage(JobDetail job) {
    JobSummary s = job.summary();
    StringBuilder b = new StringBuilder();
    b.append("<h1>Job <code>")
        .append(esc(s.id()))
        .append("</code> ")
        .append(badge(s.state()))
        .append("</h1>");
    b.append("<dl class=\"facts\">")
        .append(fact("Submitted (UTC)", time(s.submittedAtMillis())))
        .append(fact("Duration", duration(s)))
        .append(fact("Stages", s.stagesDone() + " of " + s.stagesTotal() + " done"))
        .append(
            fact(
                "Tasks",
                s.tasksDone()
                    + " of "
                    + s.tasksTotal()
                    + " done, "
                    + s.tasksRunning()
                    + " running"))
        .append(fact("Rows written", String.format(Locale.ROOT, "%,d", s.rows())))
        .append("</dl>");
    b.append("<pre class=\"query\">").append(esc(s.name())).append("</pre>");
    if (s.error() != null) {
      b.append("<p class=\"error\">").append(esc(s.error())).append("</p>");
    }
    b.append("<h2>Stage graph</h2>").append(StageGraphSvg.render(job));
    b.append("<details><summary>Graphviz DOT</summary><pre>")
        .append(esc(job.dot()))
        .append("</pre></details>");
    for (StageView stage : job.stages()) {
      b.append(stageSection(stage, stage.id() == job.finalStageId()));
    }
    return page("Job " + s.id(), !finished(s.state()), b.toString());
  }

  private static String stageSection(StageView stage, boolean last) {
    StringBuilder b = new StringBuilder();
    b.append("<h2 id=\"stage-")
        .append(stage.id())
        .append("\">Stage ")
        .append(stage.id())
        .append(last ? " (final)" : "")
        .append(" <span class=\"muted\">")
        .append(stage.tasksSucceeded())
        .append(" of ")
        .append(stage.taskCount())
        .append(" tasks done</span></h2>");
    b.append("<p class=\"muted\">");
    if (!stage.inputs().isEmpty()) {
      b.append("reads stages ").append(esc(stage.inputs().toString())).append(" · ");
    }
    b.append("output ").append(esc(stage.partitioning().isEmpty() ? "?" : stage.partitioning()));
    if (!stage.boundary().isEmpty()) {
      b.append(" · read by ").append(esc(stage.boundary()));
    }
    b.append("</p>");
    if (!stage.adaptive().isEmpty()) {
      b.append("<p>Adaptive: ").append(esc(stage.adaptive())).append("</p>");
    }
    if (!stage.planText().isEmpty()) {
      b.append("<details><summary>Plan</summary><pre>")
          .append(esc(stage.planText()))
          .append("</pre></details>");
    }
    b.append("<table class=\"tasks\"><thead><tr><th>Task</th><th>State</th><th>Executor</th>")
        .append("<th>Attempts</th><th>Rows</th><th>Bytes</th><th>Spilled</th><th>Time</th>")
        .append("</tr></thead><tbody>");
    for (TaskView t : stage.tasks()) {
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
          .append(bytes(t.spilledBytes()))
          .append("</td><td class=\"num\">")
          .append(millis(t.elapsedMillis()))
          .append("</td></tr>");
    }
    b.append("</tbody></table>");
    return b.toString();
  }

  String executorsPage(List<ExecutorView> executors) {
    StringBuilder b = new StringBuilder("<h1>Executors</h1>");
    if (executors.isEmpty()) {
      b.append("<p class=\"muted\">No executor has registered. Start one with")
          .append(" <code>java -jar quiver-executor.jar --scheduler ")
          .append(esc(cluster.schedulerAddress()))
          .append(" --work-dir DIR</code>.</p>");
    } else {
      b.append("<table><thead><tr><th>Executor</th><th>State</th><th>Address</th>")
          .append("<th>Cores</th><th>Memory</th><th>Running tasks</th><th>Arrow memory in use</th>")
          .append("<th>Shuffle held</th><th>Last heartbeat (UTC)</th><th>Metrics</th>")
          .append("</tr></thead><tbody>");
      for (ExecutorView e : executors) {
        b.append("<tr><td>")
            .append(esc(e.id()))
            .append("</td><td>")
            .append(badge(e.state()))
            .append("</td><td>")
            .append(esc(e.host()))
            .append(':')
            .append(e.port())
            .append("</td><td class=\"num\">")
            .append(e.cores())
            .append("</td><td class=\"num\">")
            .append(bytes(e.memoryBytes()))
            .append("</td><td class=\"num\">")
            .append(e.runningTasks())
            .append("</td><td class=\"num\">")
            .append(bytes(e.allocatedBytes()))
            .append("</td><td class=\"num\">")
            .append(bytes(e.shuffleBytes()))
            .append("</td><td>")
            .append(time(e.lastHeartbeatMillis()))
            .append("</td><td>")
            .append(
                e.httpPort() == 0
                    ? "<span class=\"muted\">none</span>"
                    : "<code>" + esc(e.host()) + ":" + e.httpPort() + "/metrics</code>")
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    return page("Executors", false, b.toString());
  }

  private String page(String title, boolean refresh, String body) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + (refresh ? "<meta http-equiv=\"refresh\" content=\"2\">" : "")
        + "<title>"
        + esc(title)
        + " · Quiver</title><style>"
        + CSS
        + "</style></head><body><header><span class=\"brand\">Quiver</span>"
        + "<nav><a href=\"/\">Jobs</a><a href=\"/executors\">Executors</a>"
        + "<a href=\"/api/jobs\">API</a><a href=\"/metrics\">Metrics</a></nav>"
        + "<span class=\"muted\">scheduler "
        + esc(cluster.schedulerAddress())
        + "</span></header><main>"
        + body
        + "</main></body></html>\n";
  }

  private static final String CSS =
      "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;"
          + "color:#1f2430;background:#f6f7f9}"
          + "header{display:flex;gap:24px;align-items:center;padding:10px 24px;background:#1f2a44;"
          + "color:#fff}header .brand{font-weight:700;font-size:18px}"
          + "header nav a{color:#cfe0ff;margin-right:16px;text-decoration:none}"
          + "header .muted{color:#9fb0d0;margin-left:auto}"
          + "main{padding:16px 24px;max-width:1400px}h1{font-size:22px}h2{font-size:17px;"
          + "margin-top:28px}a{color:#2457c5}code,pre{font-family:ui-monospace,Menlo,Consolas,"
          + "monospace;font-size:12.5px}pre{background:#fff;border:1px solid #dde1e8;padding:10px;"
          + "overflow:auto;border-radius:4px}pre.query{white-space:pre-wrap;max-height:220px}"
          + "table{border-collapse:collapse;background:#fff;border:1px solid #dde1e8;margin:8px 0}"
          + "th,td{padding:5px 10px;border-bottom:1px solid #eceef2;text-align:left;"
          + "white-space:nowrap}th{background:#f0f2f6;font-weight:600}td.num{text-align:right;"
          + "font-variant-numeric:tabular-nums}td.sql{font-family:ui-monospace,Menlo,monospace;"
          + "font-size:12px;max-width:420px;overflow:hidden;text-overflow:ellipsis}"
          + ".muted{color:#6b7385;font-weight:400}"
          + ".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:11.5px;"
          + "font-weight:600;letter-spacing:.3px}"
          + ".s-succeeded,.s-alive{background:#dcf3e4;color:#1d6b3a}"
          + ".s-running{background:#dde8fd;color:#1f4fb5}.s-queued,.s-waiting{background:#eceef2;"
          + "color:#4a5263}.s-failed,.s-lost{background:#fbe0e0;color:#a02424}"
          + ".s-cancelled{background:#fdf0d5;color:#8a5a00}"
          + ".bar{display:inline-block;width:110px;height:10px;background:#e6e9ef;"
          + "border-radius:5px;overflow:hidden;vertical-align:middle;margin-right:6px}"
          + ".bar span{display:block;height:100%;background:#3b7be8}"
          + "dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px}"
          + "dl.facts dt{color:#6b7385}dl.facts dd{margin:0}"
          + ".error{color:#a02424;background:#fbe0e0;padding:8px;border-radius:4px}"
          + "svg.graph{background:#fff;border:1px solid #dde1e8;border-radius:4px;max-width:100%;height:auto}"
          + "details summary{cursor:pointer;color:#2457c5;margin:6px 0}";

  // ------------------------------------------------------------------------------------------
  // Pieces
  // ------------------------------------------------------------------------------------------

  private static String fact(String name, String value) {
    return "<dt>" + esc(name) + "</dt><dd>" + value + "</dd>";
  }

  static String badge(String state) {
    String s = state.toLowerCase(Locale.ROOT);
    return "<span class=\"badge s-" + esc(s) + "\">" + esc(state) + "</span>";
  }

  private static String progressBar(JobSummary j) {
    int pct = j.tasksTotal() == 0 ? 0 : (int) Math.round(100.0 * j.tasksDone() / j.tasksTotal());
    return "<span class=\"bar\"><span style=\"width:"
        + pct
        + "%\"></span></span>"
        + j.tasksDone()
        + "/"
        + j.tasksTotal()
        + " tasks, "
        + j.stagesDone()
        + "/"
        + j.stagesTotal()
        + " stages";
  }

  static boolean finished(String state) {
    return state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED");
  }

  private static String duration(JobSummary j) {
    long end = j.finishedAtMillis() == 0 ? System.currentTimeMillis() : j.finishedAtMillis();
    return millis(Math.max(0, end - j.submittedAtMillis()));
  }

  static String millis(long ms) {
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    return String.format(Locale.ROOT, "%d min %d s", ms / 60_000, (ms / 1000) % 60);
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String units = "KMGTPE";
    int u = -1;
    double v = n;
    while (v >= 1024 && u < units.length() - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f %siB", v, units.charAt(u));
  }

  private static String time(long unixMillis) {
    return unixMillis == 0 ? "" : TIME.format(Instant.ofEpochMilli(unixMillis));
  }

  static String shorten(String s, int max) {
    String oneLine = s.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= max ? oneLine : oneLine.substring(0, max - 1) + "…";
  }

  /** Escapes text for HTML element content and attribute values. */
  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
