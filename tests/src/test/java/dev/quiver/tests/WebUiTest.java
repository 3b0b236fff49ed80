package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.decorators.DistributedSessionContext;
import dev.quiver.distributed.ClusterDistribution;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.client.ClusterRuntime;
import dev.quiver.distributed.cluster.EmbeddedCluster;
import dev.quiver.scheduler.http.WebUi;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The scheduler's web UI after real jobs on an embedded cluster of two executors, at several
 * partition counts, each page parsed and checked against the jobs API and against DuckDB on the
 * same TPC-H data: result rows, user, times, search and filter, stage boxes and plans that name
 * operators and tables, per-stage task time spread, input, timeline, operator metrics and failed
 * tasks' errors, the Kill button and self-refresh of running jobs, and the executors' totals.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WebUiTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CALL = Duration.ofSeconds(20);
  private static final int[] PARTITIONS = {1, 3, 8};

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CALL).build();
  private Path data;
  private EmbeddedCluster cluster;
  private ClusterLifecycle lifecycle;
  private ClusterRuntime runtime;
  private DuckDbRows duckdb;
  private final List<QuiverRows> sessions = new ArrayList<>();
  private String base;

  @BeforeAll
  void start() {
    data = TpchFixture.data(ClusterTpchTestBase.SCALE);
    cluster = EmbeddedCluster.sharingCores(2).withHttp(0);
    lifecycle = ClusterLifecycle.embedded(cluster);
    runtime = lifecycle.start();
    base = "http://127.0.0.1:" + cluster.schedulerHttpPort();
    duckdb = new DuckDbRows(data, 2);
  }

  @AfterAll
  void stop() throws Exception {
    for (QuiverRows s : sessions) {
      s.close();
    }
    if (duckdb != null) {
      duckdb.close();
    }
    if (lifecycle != null) {
      lifecycle.close();
    }
  }

  private QuiverRows session(int partitions) {
    SessionContext ctx =
        new DistributedSessionContext(
            new SessionConfig().withTargetPartitions(partitions), new ClusterDistribution(runtime));
    QuiverRows rows = new QuiverRows(ctx, data, "quiver-p" + partitions, ctx::close);
    sessions.add(rows);
    return rows;
  }

  @Test
  void jobsAndTheirStagesShowResultRowsTablesOperatorsAndTaskMetrics() throws Exception {
    for (int partitions : PARTITIONS) {
      QuiverRows quiver = session(partitions);
      // Rows of the result, not the sum written by all stages (a LIMIT reads far more).
      String limit =
          "SELECT l_orderkey, l_linenumber, /*p"
              + partitions
              + "*/ l_quantity FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 5";
      String aggregate =
          "SELECT l_returnflag, l_linestatus, count(*) AS n, /*p"
              + partitions
              + "*/ sum(l_quantity) AS q FROM lineitem GROUP BY l_returnflag, l_linestatus";
      String join =
          "SELECT o_orderpriority, count(*) AS n /*p"
              + partitions
              + "*/ FROM orders JOIN lineitem ON l_orderkey = o_orderkey"
              + " WHERE l_shipmode = 'MAIL' GROUP BY o_orderpriority";
      for (String sql : List.of(limit, aggregate, join)) {
        QueryResult expected = duckdb.query(sql);
        QueryResult actual = quiver.query(sql);
        assertThat(ResultComparator.compare(expected, actual, SortSpec.of(sql, expected.columns())))
            .as(sql)
            .isNull();
        JsonNode job = jobNamed(sql);
        String id = job.get("id").asText();
        checkJobsRow(sql, id, expected.rowCount());
        checkJobPage(sql, id, expected.rowCount(), partitions);
      }
      // The aggregate's scans read every lineitem row: their operators' rows add up to it.
      JsonNode detail = json("/api/jobs/" + jobNamed(aggregate).get("id").asText());
      Document page = page("/jobs/" + detail.get("summary").get("id").asText());
      long lineitems =
          ((Number) duckdb.query("SELECT count(*) FROM lineitem").rows().get(0).get(0)).longValue();
      long scanned = 0;
      for (Element row : page.select("table.operators tbody tr")) {
        if (row.child(0).text().equals("ParquetScanExec")) {
          scanned += number(row.child(2).text());
        }
      }
      assertThat(scanned).as("p=" + partitions).isEqualTo(lineitems);
    }
  }

  /** The job's row on the jobs page, found by searching for its marker. */
  private void checkJobsRow(String sql, String id, int resultRows) throws Exception {
    String marker = sql.substring(sql.indexOf("/*p"), sql.indexOf("*/") + 2);
    Document found = page("/?q=" + URLEncoder.encode(sql, StandardCharsets.UTF_8));
    assertThat(found.select("table.jobs tbody tr")).as(sql).hasSize(1);
    Element tr = found.selectFirst("table.jobs tbody tr");
    assertThat(tr.selectFirst("a").attr("href")).isEqualTo("/jobs/" + id);
    assertThat(number(tr.selectFirst("td.rows").text())).as(sql).isEqualTo(resultRows);
    assertThat(tr.selectFirst("td.user").text()).isEqualTo(System.getProperty("user.name"));
    assertThat(tr.select(".badge").text()).isEqualTo("SUCCEEDED");
    assertThat(tr.select("button.kill")).as("a finished job has no Kill button").isEmpty();
    assertThat(tr.selectFirst("td.queued").text()).matches("\\d+(\\.\\d)? m?s");
    assertThat(tr.selectFirst("td.run").text()).matches("\\d+(\\.\\d)? m?s");
    assertThat(found.selectFirst("input[name=q]").val()).isEqualTo(sql);
    assertThat(found.selectFirst(".count").text()).startsWith("1 of ");
    // Searching ignores case and finds it by a piece of its SQL; a state filter can exclude it.
    String piece = marker.toUpperCase(java.util.Locale.ROOT);
    Document byPiece = page("/?q=" + URLEncoder.encode(piece, StandardCharsets.UTF_8));
    assertThat(byPiece.select("table.jobs a").eachAttr("href")).contains("/jobs/" + id);
    assertThat(page("/?state=SUCCEEDED&q=" + enc(piece)).select("table.jobs a").eachAttr("href"))
        .contains("/jobs/" + id);
    assertThat(page("/?state=FAILED&q=" + enc(piece)).select("table.jobs a[href=/jobs/" + id + "]"))
        .isEmpty();
    assertThat(page("/?state=active&q=" + enc(piece)).select("table.jobs a[href=/jobs/" + id + "]"))
        .isEmpty();
    assertThat(page("/?q=" + enc("no such job text")).select("table.jobs")).isEmpty();
  }

  private void checkJobPage(String sql, String id, int resultRows, int partitions)
      throws Exception {
    JsonNode detail = json("/api/jobs/" + id);
    Document page = page("/jobs/" + id);
    assertThat(page.body().hasAttr("data-refresh"))
        .as("a finished job's page stays still")
        .isFalse();
    assertThat(fact(page, "Result rows")).isEqualTo(String.format("%,d", resultRows));
    assertThat(fact(page, "User")).isEqualTo(System.getProperty("user.name"));
    Set<String> tablesInSql = new LinkedHashSet<>();
    for (String t : List.of("lineitem", "orders")) {
      if (sql.contains(" " + t)) {
        tablesInSql.add(t);
      }
    }
    // Stage boxes name their operators and the tables they scan; so do the sections and plans.
    Element svg = page.selectFirst("svg.graph");
    Set<String> boxTables = new LinkedHashSet<>();
    for (Element reads : svg.select("text.reads")) {
      if (reads.text().startsWith("scans ")) {
        boxTables.addAll(List.of(reads.text().substring("scans ".length()).split(", ")));
      }
    }
    assertThat(boxTables).as(sql).containsExactlyInAnyOrderElementsOf(tablesInSql);
    for (Element ops : svg.select("text.ops")) {
      assertThat(ops.text()).as("stage box of " + sql).isNotBlank().doesNotContain("Stage");
    }
    Set<String> planTables = new LinkedHashSet<>();
    Matcher m = Pattern.compile("table=(\\w+)").matcher(page.select("section.stage pre").text());
    while (m.find()) {
      planTables.add(m.group(1));
    }
    assertThat(planTables).as(sql).containsExactlyInAnyOrderElementsOf(tablesInSql);

    for (JsonNode stage : detail.get("stages")) {
      int stageId = stage.get("id").asInt();
      Element section = page.getElementById("stage-" + stageId).parent();
      String where = sql + ", p=" + partitions + ", stage " + stageId;
      assertThat(section.selectFirst("h2 .ops").text()).as(where).isNotBlank();
      List<Long> times = new ArrayList<>();
      long fetched = 0;
      long shuffleRead = 0;
      int ran = 0;
      for (JsonNode t : stage.get("tasks")) {
        if (t.get("attempt").asInt() >= 0) { // a task its stage's row limit skipped never ran
          times.add(t.get("elapsedMillis").asLong());
          ran++;
        }
        fetched += t.get("fetchedBytes").asLong();
        shuffleRead += t.get("shuffleReadBytes").asLong();
      }
      times.sort(null);
      // Task time spread: min, median and max of the tasks' times.
      assertThat(section.selectFirst("dd.skew").text())
          .as(where)
          .startsWith(
              "min "
                  + WebUi.millis(times.get(0))
                  + " · median "
                  + WebUi.millis(times.get(times.size() / 2))
                  + " · max "
                  + WebUi.millis(times.get(times.size() - 1)));
      String input = section.selectFirst("dd.input").text();
      assertThat(input)
          .as(where)
          .isEqualTo(
              WebUi.bytes(fetched)
                  + " read from files · "
                  + WebUi.bytes(shuffleRead)
                  + " shuffle read");
      boolean scans = stage.get("planText").asText().contains("table=");
      assertThat(fetched > 0).as(where + " reads files").isEqualTo(scans);
      assertThat(shuffleRead > 0)
          .as(where + " reads shuffle")
          .isEqualTo(stage.get("inputs").size() > 0);
      // One timeline bar per task, and the operators' table sums what the tasks measured.
      assertThat(section.select("svg.timeline rect.task")).hasSize(ran);
      Element root = section.selectFirst("table.operators tbody tr");
      assertThat(number(root.child(1).text())).isEqualTo(ran);
      long written = 0;
      for (JsonNode t : stage.get("tasks")) {
        written += t.get("rows").asLong();
      }
      assertThat(number(root.child(2).text())).as(where + " root operator rows").isEqualTo(written);
      assertThat(section.select("ul.failures")).isEmpty();
    }
  }

  @Test
  void aFailedTaskShowsItsErrorOnItsStage() throws Exception {
    String sql = "SELECT CAST(l_comment AS INTEGER) AS n FROM lineitem /* fails */";
    assertThatThrownBy(() -> duckdb.query(sql)).hasMessageContaining("Could not convert");
    QuiverRows quiver = session(2);
    assertThatThrownBy(() -> quiver.query(sql));
    JsonNode job = jobNamed(sql);
    assertThat(job.get("state").asText()).isEqualTo("FAILED");
    String id = job.get("id").asText();
    JsonNode detail = json("/api/jobs/" + id);
    List<String> failures = new ArrayList<>();
    for (JsonNode stage : detail.get("stages")) {
      for (JsonNode t : stage.get("tasks")) {
        t.get("failures").forEach(f -> failures.add(f.asText()));
      }
    }
    assertThat(failures).isNotEmpty();
    Document page = page("/jobs/" + id);
    List<String> shown = page.select("ul.failures li").eachText();
    assertThat(shown).hasSize(failures.size());
    for (int i = 0; i < failures.size(); i++) {
      assertThat(shown.get(i)).endsWith(failures.get(i));
      assertThat(failures.get(i)).contains("on executor");
    }
    // The job failed with the task's error ("stage 1 task 1 (attempt 0) failed on executor 'e':
    // message"): the stage shows that message, named by its kind.
    String error = job.get("error").asText();
    assertThat(String.join("\n", shown))
        .contains("Exception: " + error.substring(error.indexOf("': ") + 3));
    Document failed = page("/?state=FAILED&q=" + enc("/* fails */"));
    assertThat(failed.select("table.jobs a").eachAttr("href")).containsExactly("/jobs/" + id);
  }

  @Test
  void aRunningJobsPagesRefreshAndItsKillButtonCancelsIt() throws Exception {
    QuiverRows quiver = session(2);
    String sql =
        "SELECT count(*) AS n, sum(a.l_quantity * b.l_quantity) AS q FROM lineitem a"
            + " JOIN lineitem b ON a.l_suppkey = b.l_suppkey /* kill me */";
    CompletableFuture<QueryResult> query = CompletableFuture.supplyAsync(() -> quiver.query(sql));
    String id = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (id == null) {
      assertThat(System.nanoTime()).as("the job to run").isLessThan(deadline);
      for (JsonNode j : json("/api/jobs").get("jobs")) {
        if (j.get("name").asText().equals(sql) && j.get("state").asText().equals("RUNNING")) {
          id = j.get("id").asText();
        }
      }
      Thread.sleep(20);
    }
    Document jobs = page("/?state=active");
    assertThat(jobs.body().attr("data-refresh")).isEqualTo("2000");
    Element kill = jobs.selectFirst("button.kill[data-job=" + id + "]");
    assertThat(kill).as("the running job has a Kill button").isNotNull();
    Document job = page("/jobs/" + id);
    assertThat(job.body().attr("data-refresh")).isEqualTo("2000");
    assertThat(job.select("button.kill").attr("data-job")).isEqualTo(id);
    String script = job.select("script").html();
    assertThat(script).contains("fetch('/api/jobs/'+encodeURIComponent(id),{method:'DELETE'})");
    assertThat(script).contains("location.reload()");

    // What the button does: DELETE the job through the API.
    HttpResponse<String> cancel =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/jobs/" + kill.attr("data-job")))
                .DELETE()
                .timeout(CALL)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(cancel.statusCode()).isEqualTo(200);
    try {
      query.get(60, TimeUnit.SECONDS);
      throw new AssertionError("the killed query returned a result");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(QueryCancelledException.class);
    }
    Document after = page("/jobs/" + id);
    assertThat(after.select(".badge").first().text()).isEqualTo("CANCELLED");
    assertThat(after.body().hasAttr("data-refresh")).isFalse();
    assertThat(after.select("button.kill")).isEmpty();
  }

  @Test
  void theExecutorsPageShowsVersionTasksRunGcTimeAndDisk() throws Exception {
    session(2).query("SELECT count(*) FROM orders /* executors */");
    long tasks = 0;
    for (JsonNode stage :
        json("/api/jobs/"
                + jobNamed("SELECT count(*) FROM orders /* executors */").get("id").asText())
            .get("stages")) {
      tasks += stage.get("taskCount").asInt();
    }
    // Totals come with heartbeats: wait for one after the job.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      long run = 0;
      for (JsonNode e : json("/api/executors").get("executors")) {
        run += e.get("tasksFinished").asLong();
      }
      if (run >= tasks) {
        break;
      }
      assertThat(System.nanoTime()).as("a heartbeat with the tasks run").isLessThan(deadline);
      Thread.sleep(100);
    }
    // A heartbeat between the two reads moves the totals: compare reads taken between beats.
    List<String> expected = List.of();
    List<String> shown = List.of();
    for (int attempt = 0; attempt < 20; attempt++) {
      JsonNode executors = json("/api/executors").get("executors");
      Document page = page("/executors");
      expected = new ArrayList<>();
      for (JsonNode e : executors) {
        assertThat(e.get("version").asText()).isNotBlank();
        expected.add(
            String.join(
                " | ",
                e.get("id").asText(),
                e.get("version").asText(),
                String.format("%,d", e.get("tasksFinished").asLong()),
                WebUi.millis(e.get("gcMillis").asLong()),
                WebUi.bytes(e.get("diskBytes").asLong())));
      }
      shown = new ArrayList<>();
      for (Element tr : page.select("table.executors tbody tr")) {
        shown.add(
            String.join(
                " | ",
                tr.child(0).text(),
                tr.selectFirst("td.version").text(),
                tr.selectFirst("td.tasks-run").text(),
                tr.selectFirst("td.gc").text(),
                tr.selectFirst("td.disk").text()));
      }
      if (shown.equals(expected)) {
        break;
      }
      Thread.sleep(200);
    }
    assertThat(shown).isEqualTo(expected).hasSize(2);
  }

  /**
   * A query holding memory on both executors while they heartbeat: the jobs API shows its peak on
   * each executor and in all (no less than any one executor's, no more than their sum), and its
   * page shows the same.
   */
  @Test
  void aJobsPeakMemoryIsShownPerExecutorAndInAll() throws Exception {
    String sql =
        "SELECT count(*) AS n, count(DISTINCT k) AS d FROM (SELECT l_comment || n_name AS k"
            + " FROM lineitem, nation WHERE n_nationkey < 3) /* memory */";
    for (int partitions : new int[] {2, 4}) {
      String marked = sql + " /*p" + partitions + "*/";
      QueryResult expected = duckdb.query(marked);
      QueryResult actual = session(partitions).query(marked);
      assertThat(
              ResultComparator.compare(expected, actual, SortSpec.of(marked, expected.columns())))
          .isNull();
      JsonNode job = jobNamed(marked);
      long total = job.get("peakMemoryBytes").asLong();
      Map<String, Long> byExecutor = new TreeMap<>();
      job.get("peakMemoryByExecutor")
          .fields()
          .forEachRemaining(e -> byExecutor.put(e.getKey(), e.getValue().asLong()));
      assertThat(byExecutor).as(marked).isNotEmpty();
      long sum = byExecutor.values().stream().mapToLong(Long::longValue).sum();
      long max = byExecutor.values().stream().mapToLong(Long::longValue).max().orElseThrow();
      assertThat(total).as(marked).isPositive().isBetween(max, sum);
      assertThat(
              json("/api/jobs/" + job.get("id").asText()).at("/summary/peakMemoryBytes").asLong())
          .isEqualTo(total);
      StringBuilder shown = new StringBuilder(WebUi.bytes(total)).append(" in all (");
      String sep = "";
      for (Map.Entry<String, Long> e : byExecutor.entrySet()) {
        shown.append(sep).append(e.getKey()).append(": ").append(WebUi.bytes(e.getValue()));
        sep = ", ";
      }
      shown.append(")");
      assertThat(fact(page("/jobs/" + job.get("id").asText()), "Peak memory"))
          .isEqualTo(shown.toString());
    }
  }

  // ------------------------------------------------------------------------------------------

  private JsonNode jobNamed(String sql) throws Exception {
    for (JsonNode j : json("/api/jobs").get("jobs")) {
      if (j.get("name").asText().equals(sql)) {
        return j;
      }
    }
    throw new AssertionError("no job named " + sql);
  }

  private static String fact(Document page, String name) {
    for (Element dt : page.select("dl.facts dt")) {
      if (dt.text().equals(name)) {
        return dt.nextElementSibling().text();
      }
    }
    throw new AssertionError("no fact " + name);
  }

  private static long number(String text) {
    return Long.parseLong(text.replace(",", ""));
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private JsonNode json(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return JSON.readTree(r.body());
  }

  private Document page(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).as(path).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    return Jsoup.parse(r.body());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).timeout(CALL).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
