package dev.quiver.scheduler.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.quiver.scheduler.job.JobViews.JobSummary;
import dev.quiver.server.http.HttpEndpoint;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The scheduler's JSON API under {@code /api/}:
 *
 * <ul>
 *   <li>{@code GET /api/jobs}: jobs newest first (id, SQL text, user, state, times, progress, rows,
 *       bytes, error): the running and recently finished ones, then the history's ({@code
 *       fromHistory}), {@value #PAGE} at a time ({@code ?offset=N&limit=M}, at most {@value
 *       #MAX_PAGE}; {@code next} links the following page)
 *   <li>{@code GET /api/jobs/{id}}: one job's stages, their tasks, and the stage graph as DOT (a
 *       job read back from the history database has no tasks)
 *   <li>{@code DELETE /api/jobs/{id}}: cancels the job
 *   <li>{@code GET /api/executors}: the executors, lost ones included, each with whether it is
 *       draining
 *   <li>{@code POST /api/executors/{id}/drain}: drains the executor (no new tasks; it finishes its
 *       running ones, serves its shuffle outputs until their jobs end, then exits)
 * </ul>
 */
public final class JobsApi implements HttpHandler {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** History jobs a page lists unless asked otherwise, and at most. */
  static final int PAGE = 100;

  static final int MAX_PAGE = 1000;

  private final ClusterView cluster;

  /** Serves {@code cluster}. */
  public JobsApi(ClusterView cluster) {
    this.cluster = cluster;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    try {
      if (path.equals("/api/jobs") || path.equals("/api/jobs/")) {
        if (requireMethod(exchange, "GET")) {
          listJobs(exchange);
        }
      } else if (path.startsWith("/api/jobs/")) {
        String id = path.substring("/api/jobs/".length());
        if (method.equals("DELETE")) {
          Optional<Boolean> cancelled = cluster.cancel(id);
          if (cancelled.isEmpty()) {
            notFound(exchange, id);
          } else {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", id);
            body.put("cancelled", cancelled.get());
            json(exchange, 200, body);
          }
        } else if (requireMethod(exchange, "GET", "DELETE")) {
          var job = cluster.job(id);
          if (job.isEmpty()) {
            notFound(exchange, id);
          } else {
            json(exchange, 200, job.get());
          }
        }
      } else if (path.equals("/api/executors") || path.equals("/api/executors/")) {
        if (requireMethod(exchange, "GET")) {
          json(exchange, 200, Map.of("executors", cluster.executors()));
        }
      } else if (path.startsWith("/api/executors/") && path.endsWith("/drain")) {
        String id = path.substring("/api/executors/".length(), path.length() - "/drain".length());
        if (requireMethod(exchange, "POST")) {
          if (cluster.drain(id)) {
            json(exchange, 200, Map.of("id", id, "draining", true));
          } else {
            json(
                exchange,
                404,
                Map.of(
                    "error",
                    "executor '" + id + "' is not alive on this scheduler (unknown or lost)"));
          }
        }
      } else {
        json(
            exchange,
            404,
            Map.of(
                "error",
                "no API at "
                    + path
                    + "; try /api/jobs, /api/jobs/{id}, /api/executors or /api/executors/{id}/drain"));
      }
    } catch (StatusRuntimeException e) {
      // The job loop is shutting down or did not answer in time.
      json(exchange, 503, Map.of("error", String.valueOf(e.getStatus().getDescription())));
    }
  }

  private void listJobs(HttpExchange exchange) throws IOException {
    Map<String, String> params = WebUi.query(exchange.getRequestURI().getRawQuery());
    int offset;
    int limit;
    try {
      offset = Integer.parseInt(params.getOrDefault("offset", "0"));
      limit = Integer.parseInt(params.getOrDefault("limit", Integer.toString(PAGE)));
    } catch (NumberFormatException e) {
      offset = -1;
      limit = -1;
    }
    if (offset < 0 || limit < 1 || limit > MAX_PAGE) {
      json(
          exchange,
          400,
          Map.of(
              "error",
              "offset must be a number of at least 0 and limit one in 1.."
                  + MAX_PAGE
                  + ", e.g. /api/jobs?offset=100&limit=100"));
      return;
    }
    List<JobSummary> jobs = cluster.jobs(offset, limit);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("jobs", jobs);
    if (jobs.stream().filter(JobSummary::fromHistory).count() == limit) {
      body.put("next", "/api/jobs?offset=" + (offset + limit) + "&limit=" + limit);
    }
    json(exchange, 200, body);
  }

  private static void notFound(HttpExchange exchange, String id) throws IOException {
    json(
        exchange,
        404,
        Map.of(
            "error",
            "job '"
                + id
                + "' is not known to this scheduler (never submitted here, or no longer in"
                + " its job history: --history-max-jobs, --history-max-age)"));
  }

  /** True when the method is {@code allowed[0]} (or HEAD for GET); else answers 405. */
  private static boolean requireMethod(HttpExchange exchange, String... allowed)
      throws IOException {
    String method = exchange.getRequestMethod();
    if (method.equals(allowed[0]) || (allowed[0].equals("GET") && method.equals("HEAD"))) {
      return true;
    }
    exchange.getResponseHeaders().set("Allow", String.join(", ", allowed));
    json(
        exchange,
        405,
        Map.of("error", method + " is not allowed on " + exchange.getRequestURI().getPath()));
    return false;
  }

  static void json(HttpExchange exchange, int status, Object body) throws IOException {
    HttpEndpoint.send(
        exchange, status, "application/json; charset=utf-8", JSON.writeValueAsString(body) + "\n");
  }
}
