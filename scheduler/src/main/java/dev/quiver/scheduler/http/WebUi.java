package dev.quiver.scheduler.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.quiver.scheduler.http.ClusterView.ExecutorView;
import dev.quiver.scheduler.job.JobViews.JobDetail;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import dev.quiver.scheduler.job.JobViews.StageView;
import dev.quiver.server.http.HttpEndpoint;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The scheduler's web UI, rendered on the server as HTML with inline CSS, SVG and a few lines of
 * script (no request leaves the scheduler): {@code /} lists recent jobs (search and filter by state
 * through the query string), {@code /jobs/{id}} shows a job's stage graph and per-stage details,
 * {@code /executors} the executors. Pages of running jobs reload themselves every two seconds; a
 * Kill button cancels a running job through the API.
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
        Map<String, String> params = query(exchange.getRequestURI().getRawQuery());
        int offset = offset(params.get("offset"));
        html(
            exchange,
            200,
            jobsPage(
                cluster.jobs(offset, JobsApi.PAGE), params.get("q"), params.get("state"), offset));
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

  /** The history offset of the jobs page: a number of at least 0, else 0. */
  private static int offset(String raw) {
    try {
      return raw == null ? 0 : Math.max(0, Integer.parseInt(raw));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The parameters of a URL's query string ({@code a=1&b=x+y}), decoded; the first of a name. */
  static Map<String, String> query(String raw) {
    Map<String, String> params = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        params.putIfAbsent(
            URLDecoder.decode(name, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // a malformed %-escape: ignore the pair, as browsers never send one
      }
    }
    return params;
  }

  private static void html(HttpExchange exchange, int status, String body) throws IOException {
    HttpEndpoint.send(exchange, status, "text/html; charset=utf-8", body);
  }

  // ------------------------------------------------------------------------------------------
  // Pages
  // ------------------------------------------------------------------------------------------

  /** States the jobs page filters by: "active" is queued or running. */
  private static final List<String> STATE_FILTERS =
      List.of("active", "SUCCEEDED", "FAILED", "CANCELLED");

  /**
   * The jobs page: those of {@code jobs} whose id, SQL text or user contains {@code search}
   * (ignoring case) and whose state is {@code state} ("" or null: any; "active": queued or
   * running). {@code jobs} is a page of the history from {@code offset} on, after the remembered
   * jobs on the first page; links lead to the older and newer pages.
   */
  String jobsPage(List<JobSummary> jobs, String search, String state, int offset) {
    String q = search == null ? "" : search.strip();
    String st = state == null ? "" : state;
    List<JobSummary> shown = jobs.stream().filter(j -> matches(j, q, st)).toList();
    StringBuilder b = new StringBuilder();
    b.append("<h1>Jobs</h1>");
    b.append("<form class=\"filter\" method=\"get\" action=\"/\">")
        .append("<input type=\"search\" name=\"q\" placeholder=\"Search id, SQL or user\"")
        .append(" value=\"")
        .append(esc(q))
        .append("\"> <select name=\"state\"><option value=\"\">any state</option>");
    for (String f : STATE_FILTERS) {
      b.append("<option value=\"")
          .append(f)
          .append(f.equals(st) ? "\" selected>" : "\">")
          .append(f.equals("active") ? "queued or running" : f.toLowerCase(Locale.ROOT))
          .append("</option>");
    }
    b.append("</select> <button type=\"submit\">Filter</button> <span class=\"muted count\">")
        .append(shown.size())
        .append(" of ")
        .append(jobs.size())
        .append(" jobs</span></form>");
    if (jobs.isEmpty()) {
      b.append("<p class=\"muted\">No jobs yet. Run a query against this scheduler.</p>");
    } else if (shown.isEmpty()) {
      b.append("<p class=\"muted\">No job matches.</p>");
    } else {
      b.append("<table class=\"jobs\"><thead><tr><th>Job</th><th>User</th><th>State</th>")
          .append("<th>Query</th><th>Submitted (UTC)</th><th>Queued</th><th>Run time</th>")
          .append("<th>Progress</th><th title=\"rows of the result\">Rows</th><th></th>")
          .append("</tr></thead><tbody>");
      for (JobSummary j : shown) {
        b.append("<tr><td><a href=\"/jobs/")
            .append(esc(j.id()))
            .append("\">")
            .append(esc(j.id()))
            .append("</a>")
            .append(
                j.fromHistory()
                    ? " <span class=\"hist\" title=\"from the job history: the scheduler no longer"
                        + " runs or remembers it\">history</span>"
                    : "")
            .append("</td><td class=\"user\">")
            .append(esc(j.user()))
            .append("</td><td>")
            .append(badge(j.state()))
            .append("</td><td class=\"sql\" title=\"")
            .append(esc(j.name()))
            .append("\">")
            .append(esc(shorten(j.name(), 56)))
            .append("</td><td>")
            .append(time(j.submittedAtMillis()))
            .append("</td><td class=\"num queued\">")
            .append(millis(queuedMillis(j)))
            .append("</td><td class=\"num run\">")
            .append(millis(runMillis(j)))
            .append("</td><td>")
            .append(progressBar(j))
            .append("</td><td class=\"num rows\">")
            .append(String.format(Locale.ROOT, "%,d", j.resultRows()))
            .append("</td><td>")
            .append(killButton(j))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    b.append(pageLinks(jobs, q, st, offset));
    boolean live = jobs.stream().anyMatch(j -> !finished(j.state()));
    return page("Jobs", live, b.toString());
  }

  /** Links to the newer and older pages of the history, keeping the search and the filter. */
  private static String pageLinks(List<JobSummary> jobs, String search, String state, int offset) {
    long history = jobs.stream().filter(JobSummary::fromHistory).count();
    if (offset == 0 && history < JobsApi.PAGE) {
      return "";
    }
    String keep =
        (search.isEmpty() ? "" : "&q=" + URLEncoder.encode(search, StandardCharsets.UTF_8))
            + (state.isEmpty() ? "" : "&state=" + URLEncoder.encode(state, StandardCharsets.UTF_8));
    StringBuilder b = new StringBuilder("<p class=\"pages\">");
    if (offset > 0) {
      b.append("<a class=\"newer\" href=\"/?offset=")
          .append(Math.max(0, offset - JobsApi.PAGE))
          .append(esc(keep))
          .append("\">← Newer jobs</a> ");
    }
    if (history == JobsApi.PAGE) {
      b.append("<a class=\"older\" href=\"/?offset=")
          .append(offset + JobsApi.PAGE)
          .append(esc(keep))
          .append("\">Older jobs →</a>");
    }
    return b.append("</p>").toString();
  }

  private static boolean matches(JobSummary j, String search, String state) {
    if (state.equals("active")) {
      if (finished(j.state())) {
        return false;
      }
    } else if (!state.isEmpty() && !state.equals(j.state())) {
      return false;
    }
    if (search.isEmpty()) {
      return true;
    }
    String needle = search.toLowerCase(Locale.ROOT);
    return j.id().toLowerCase(Locale.ROOT).contains(needle)
        || j.name().toLowerCase(Locale.ROOT).contains(needle)
        || j.user().toLowerCase(Locale.ROOT).contains(needle);
  }

  /** From submission to the first task's launch (or now, while none has launched). */
  static long queuedMillis(JobSummary j) {
    long end = j.startedAtMillis() != 0 ? j.startedAtMillis() : endOrNow(j);
    return Math.max(0, end - j.submittedAtMillis());
  }

  /** From the first task's launch to the end (or now); 0 before any launch. */
  static long runMillis(JobSummary j) {
    return j.startedAtMillis() == 0 ? 0 : Math.max(0, endOrNow(j) - j.startedAtMillis());
  }

  private static long endOrNow(JobSummary j) {
    return j.finishedAtMillis() == 0 ? System.currentTimeMillis() : j.finishedAtMillis();
  }

  /** A button that cancels the job through the API ({@code DELETE /api/jobs/{id}}). */
  private static String killButton(JobSummary j) {
    return finished(j.state())
        ? ""
        : "<button class=\"kill\" data-job=\"" + esc(j.id()) + "\">Kill</button>";
  }

  String jobPage(JobDetail job) {
    JobSummary s = job.summary();
    StringBuilder b = new StringBuilder();
    b.append("<h1>Job <code>")
        .append(esc(s.id()))
        .append("</code> ")
        .append(badge(s.state()))
        .append(" ")
        .append(killButton(s))
        .append("</h1>");
    boolean tasksKept =
        !s.fromHistory() || job.stages().stream().anyMatch(st -> !st.tasks().isEmpty());
    if (s.fromHistory()) {
      b.append("<p class=\"muted history-note\">From the job history: this scheduler no longer")
          .append(" runs or remembers the job")
          .append(
              tasksKept
                  ? "."
                  : "; its stages are kept without their tasks (executors, attempts, timelines).")
          .append("</p>");
    }
    b.append("<dl class=\"facts\">")
        .append(fact("User", s.user().isEmpty() ? "" : esc(s.user())))
        .append(fact("Resource group", esc(s.resourceGroup())))
        .append(fact("Submitted (UTC)", time(s.submittedAtMillis())))
        .append(fact("Finished (UTC)", time(s.finishedAtMillis())))
        .append(fact("Queued", millis(queuedMillis(s))))
        .append(fact("Run time", millis(runMillis(s))))
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
        .append(fact("Result rows", String.format(Locale.ROOT, "%,d", s.resultRows())))
        .append(fact("Rows written by all stages", String.format(Locale.ROOT, "%,d", s.rows())))
        .append(fact("Bytes written by all stages", bytes(s.bytes())))
        .append(fact("Peak memory", peakMemory(s)))
        .append("</dl>");
    b.append("<pre class=\"query\">").append(esc(s.name())).append("</pre>");
    if (s.error() != null) {
      b.append("<p class=\"error\">")
          .append(s.errorType() == null ? "" : "<b>" + esc(s.errorType()) + "</b>: ")
          .append(esc(s.error()))
          .append("</p>");
    }
    b.append("<h2>Stage graph</h2>").append(StageGraphSvg.render(job));
    b.append("<details><summary>Graphviz DOT</summary><pre>")
        .append(esc(job.dot()))
        .append("</pre></details>");
    for (StageView stage : job.stages()) {
      b.append(StageDetails.render(stage, stage.id() == job.finalStageId(), tasksKept));
    }
    return page("Job " + s.id(), !finished(s.state()), b.toString());
  }

  String executorsPage(List<ExecutorView> executors) {
    StringBuilder b = new StringBuilder("<h1>Executors</h1>");
    if (executors.isEmpty()) {
      b.append("<p class=\"muted\">No executor has registered. Start one with")
          .append(" <code>java -jar quiver-executor.jar --scheduler ")
          .append(esc(cluster.schedulerAddress()))
          .append(" --work-dir DIR</code>.</p>");
    } else {
      b.append("<table class=\"executors\"><thead><tr><th>Executor</th><th>State</th>")
          .append("<th>Address</th><th>Version</th><th>Cores</th><th>Memory</th>")
          .append("<th>Running</th><th>Tasks run</th><th>GC time</th><th>Disk used</th>")
          .append("<th title=\"Arrow memory in use\">Arrow memory</th><th>Shuffle held</th>")
          .append("<th>Heartbeat</th></tr></thead><tbody>");
      for (ExecutorView e : executors) {
        b.append("<tr><td>")
            .append(esc(e.id()))
            .append("</td><td>")
            .append(badge(e.state()))
            .append("</td><td>")
            .append(esc(e.host()))
            .append(':')
            .append(e.port())
            .append(
                e.httpPort() == 0
                    ? ""
                    : " <a class=\"muted\" href=\"http://"
                        + esc(e.host())
                        + ":"
                        + e.httpPort()
                        + "/metrics\">metrics</a>")
            .append("</td><td class=\"version\">")
            .append(esc(e.version()))
            .append("</td><td class=\"num\">")
            .append(e.cores())
            .append("</td><td class=\"num\">")
            .append(bytes(e.memoryBytes()))
            .append("</td><td class=\"num\">")
            .append(e.runningTasks())
            .append("</td><td class=\"num tasks-run\">")
            .append(String.format(Locale.ROOT, "%,d", e.tasksFinished()))
            .append("</td><td class=\"num gc\">")
            .append(millis(e.gcMillis()))
            .append("</td><td class=\"num disk\">")
            .append(bytes(e.diskBytes()))
            .append("</td><td class=\"num\">")
            .append(bytes(e.allocatedBytes()))
            .append("</td><td class=\"num\">")
            .append(bytes(e.shuffleBytes()))
            .append("</td><td>")
            .append(heartbeat(e.lastHeartbeatMillis()))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    // Heartbeats move the load columns: refresh while any executor is alive.
    return page(
        "Executors", executors.stream().anyMatch(e -> e.state().equals("ALIVE")), b.toString());
  }

  private String page(String title, boolean refresh, String body) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<title>"
        + esc(title)
        + " · Quiver</title><style>"
        + CSS
        + "</style></head><body"
        + (refresh ? " data-refresh=\"" + REFRESH_MILLIS + "\"" : "")
        + "><header><span class=\"brand\">Quiver</span>"
        + "<nav><a href=\"/\">Jobs</a><a href=\"/executors\">Executors</a>"
        + "<a href=\"/api/jobs\">API</a><a href=\"/metrics\">Metrics</a></nav>"
        + "<span class=\"muted\">scheduler "
        + esc(cluster.schedulerAddress())
        + "</span>"
        + (refresh ? "<span class=\"live\">● live</span>" : "")
        + "</header><main>"
        + body
        + "</main><script>"
        + SCRIPT
        + "</script></body></html>\n";
  }

  /** How often pages of running jobs (and of live executors) reload themselves. */
  static final int REFRESH_MILLIS = 2000;

  /**
   * Reloads the page while {@code data-refresh} is set, except while the search box has the focus
   * (typing would be lost); a Kill button cancels its job through the API and reloads.
   */
  private static final String SCRIPT =
      "(function(){var ms=+document.body.dataset.refresh;"
          + "if(ms){setInterval(function(){var a=document.activeElement;"
          + "if(!a||a.tagName!=='INPUT'&&a.tagName!=='SELECT')location.reload();},ms);}"
          + "document.querySelectorAll('button.kill').forEach(function(b){"
          + "b.addEventListener('click',function(){var id=b.dataset.job;"
          + "if(!confirm('Cancel job '+id+'?'))return;b.disabled=true;b.textContent='Killing…';"
          + "fetch('/api/jobs/'+encodeURIComponent(id),{method:'DELETE'})"
          + ".then(function(r){if(!r.ok)return r.text().then(function(t){throw new Error(t);});})"
          + ".then(function(){location.reload();})"
          + ".catch(function(e){b.disabled=false;b.textContent='Kill';alert('Kill failed: '+e.message);});"
          + "});});})();";

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
          + ".bar{display:inline-block;width:64px;height:10px;background:#e6e9ef;"
          + "border-radius:5px;overflow:hidden;vertical-align:middle;margin-right:6px}"
          + ".bar span{display:block;height:100%;background:#3b7be8}"
          + "dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px}"
          + "dl.facts dt{color:#6b7385}dl.facts dd{margin:0}"
          + ".error{color:#a02424;background:#fbe0e0;padding:8px;border-radius:4px}"
          + "svg.graph{background:#fff;border:1px solid #dde1e8;border-radius:4px;max-width:100%;height:auto}"
          + "details summary{cursor:pointer;color:#2457c5;margin:6px 0}"
          + "table.jobs{width:100%}table.jobs td.sql{max-width:280px}"
          + "table.executors th,table.executors td{padding:5px 7px}"
          + "form.filter{margin:8px 0}form.filter input{width:320px;padding:4px 8px}"
          + "form.filter select,form.filter button{padding:3px 8px}"
          + "button.kill{background:#fbe0e0;color:#a02424;border:1px solid #e3a3a3;"
          + "border-radius:4px;padding:1px 10px;cursor:pointer;font-size:12px}"
          + "header .live{color:#9ff0b8;font-size:12px}"
          + "h2 .ops{font-family:ui-monospace,Menlo,monospace;font-size:13px;font-weight:500;"
          + "color:#2a3550;background:#eef1f7;padding:1px 6px;border-radius:4px}"
          + "section.stage{border-top:1px solid #dde1e8;margin-top:20px}"
          + "svg.timeline{background:#fff;border:1px solid #dde1e8;border-radius:4px;"
          + "max-width:100%;height:auto;display:block;margin:8px 0}"
          + "rect.task{fill:#3b7be8}rect.s-succeeded{fill:#2f8f4e}rect.s-failed{fill:#b33a3a}"
          + "rect.s-cancelled{fill:#c08a1a}rect.s-waiting{fill:#8a93a5}"
          + ".warn{color:#8a5a00}ul.failures{color:#a02424;white-space:pre-wrap}"
          + "ul.failures li{margin:4px 0}"
          + ".hist{font-size:11px;color:#6b7385;border:1px solid #dde1e8;border-radius:8px;"
          + "padding:0 6px;margin-left:4px}p.pages a{margin-right:16px}";

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
    return "<span class=\"bar\" title=\""
        + j.stagesDone()
        + "/"
        + j.stagesTotal()
        + " stages done\"><span style=\"width:"
        + pct
        + "%\"></span></span>"
        + j.tasksDone()
        + "/"
        + j.tasksTotal()
        + " tasks";
  }

  static boolean finished(String state) {
    return state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED");
  }

  /** Milliseconds as the UI shows them: "850 ms", "2.5 s", "3 min 4 s". */
  public static String millis(long ms) {
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    return String.format(Locale.ROOT, "%d min %d s", ms / 60_000, (ms / 1000) % 60);
  }

  /**
   * The job's peak Arrow memory on all executors together and on each (executor ids escaped), or ""
   * when no heartbeat reported any.
   */
  static String peakMemory(JobSummary s) {
    if (s.peakMemoryByExecutor().isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder(bytes(s.peakMemoryBytes())).append(" in all (");
    String sep = "";
    for (Map.Entry<String, Long> e : new TreeMap<>(s.peakMemoryByExecutor()).entrySet()) {
      b.append(sep).append(esc(e.getKey())).append(": ").append(bytes(e.getValue()));
      sep = ", ";
    }
    return b.append(")").toString();
  }

  /** Bytes as the UI shows them: "900 B", "1.5 MiB". */
  public static String bytes(long n) {
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

  /** How long ago, with the time (UTC) as the tooltip: the column stays narrow. */
  private static String heartbeat(long unixMillis) {
    if (unixMillis == 0) {
      return "";
    }
    long ago = Math.max(0, System.currentTimeMillis() - unixMillis);
    return "<span title=\"" + time(unixMillis) + " UTC\">" + millis(ago) + " ago</span>";
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
