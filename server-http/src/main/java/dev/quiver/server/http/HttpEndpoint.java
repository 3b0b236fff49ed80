package dev.quiver.server.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.quiver.distributed.security.HttpSecurity;
import dev.quiver.distributed.security.SecurityConfig;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's HTTP endpoint: {@code GET /healthz} (the process is up), {@code GET /readyz} (the
 * server is ready for work), {@code GET /metrics} (Prometheus text format) and whatever routes the
 * server adds. With a certificate it serves HTTPS only; with a token every route but the two health
 * probes needs it ({@code Authorization: Bearer <token>}, or Basic credentials whose password is
 * the token, which browsers ask for).
 *
 * <p>Built on the JDK's {@code com.sun.net.httpserver}: it needs no dependency, serves HTTPS from a
 * plain {@link javax.net.ssl.SSLContext}, and the Prometheus client's {@link MetricsHandler} plugs
 * into it as it is. The endpoint serves operators and scrapers, a few requests a second, so a small
 * thread pool is plenty; data never travels over it.
 */
public final class HttpEndpoint implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);

  /** Threads answering requests; a slow scrape must not hold up a probe. */
  private static final int THREADS = 4;

  /** Says whether the server can take work now: empty when ready, else why not. */
  @FunctionalInterface
  public interface Readiness {
    /** Why the server is not ready, or empty when it is. */
    Optional<String> notReadyBecause();
  }

  private final HttpServer server;
  private final ExecutorService threads;
  private final String scheme;

  private HttpEndpoint(HttpServer server, ExecutorService threads, String scheme) {
    this.server = server;
    this.threads = threads;
    this.scheme = scheme;
  }

  /** Collects an endpoint's routes before it starts. */
  public static final class Builder {
    private final String host;
    private final int port;
    private final SecurityConfig security;
    private final String name;
    private final Map<String, HttpHandler> routes = new LinkedHashMap<>();
    private PrometheusRegistry registry;
    private Readiness readiness = Optional::empty;

    private Builder(String name, String host, int port, SecurityConfig security) {
      this.name = name;
      this.host = host;
      this.port = port;
      this.security = security;
    }

    /** Serves {@code registry} on {@code /metrics}. */
    public Builder metrics(PrometheusRegistry metrics) {
      this.registry = metrics;
      return this;
    }

    /** Answers {@code /readyz} with {@code check}. */
    public Builder readiness(Readiness check) {
      this.readiness = check;
      return this;
    }

    /**
     * Serves every path starting with {@code prefix} (e.g. {@code /api/}) with {@code handler}
     * (token required when one is configured); the longest matching prefix wins.
     */
    public Builder route(String prefix, HttpHandler handler) {
      routes.put(prefix, handler);
      return this;
    }

    /**
     * Binds the port and starts serving.
     *
     * @throws IOException naming the address when it cannot be bound
     */
    public HttpEndpoint start() throws IOException {
      InetSocketAddress address = new InetSocketAddress(host, port);
      HttpServer server;
      try {
        if (security.serverTls()) {
          HttpsServer https = HttpsServer.create(address, 0);
          https.setHttpsConfigurator(
              new HttpsConfigurator(HttpSecurity.serverSslContext(security)));
          server = https;
        } else {
          server = HttpServer.create(address, 0);
        }
      } catch (IOException e) {
        throw new IOException(
            name
                + " could not serve HTTP on "
                + host
                + ":"
                + port
                + ": "
                + e.getMessage()
                + "; choose another --http-port or stop the process using it",
            e);
      }
      Predicate<String> authorized = HttpSecurity.authorization(security);
      server.createContext("/healthz", open(exchange -> text(exchange, 200, "ok\n")));
      Readiness ready = readiness;
      server.createContext(
          "/readyz",
          open(
              exchange -> {
                Optional<String> why = ready.notReadyBecause();
                text(
                    exchange,
                    why.isEmpty() ? 200 : 503,
                    why.map(w -> "not ready: " + w).orElse("ok") + "\n");
              }));
      if (registry != null) {
        server.createContext("/metrics", guarded(authorized, new MetricsHandler(registry)));
      }
      for (Map.Entry<String, HttpHandler> route : routes.entrySet()) {
        server.createContext(route.getKey(), guarded(authorized, route.getValue()));
      }
      AtomicInteger n = new AtomicInteger();
      ExecutorService threads =
          Executors.newFixedThreadPool(
              THREADS,
              r -> {
                Thread t = new Thread(r, "quiver-http-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      server.setExecutor(threads);
      server.start();
      String scheme = security.serverTls() ? "https" : "http";
      LOG.info(
          "{} serving {} on {}:{}{}",
          name,
          scheme,
          host,
          server.getAddress().getPort(),
          security.hasToken() ? " (token required but for /healthz and /readyz)" : "");
      return new HttpEndpoint(server, threads, scheme);
    }
  }

  /** An endpoint for {@code name} (e.g. "scheduler", for messages) on {@code host:port}. */
  public static Builder builder(String name, String host, int port, SecurityConfig security) {
    return new Builder(name, host, port, security);
  }

  /** The port it listens on (the real one when configured with port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http} or {@code https}. */
  public String scheme() {
    return scheme;
  }

  /** Stops serving; requests in progress get a second to finish. */
  @Override
  public void close() {
    server.stop(1);
    threads.shutdownNow();
    try {
      threads.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Sends {@code body} as UTF-8 text with {@code status}. */
  public static void text(HttpExchange exchange, int status, String body) throws IOException {
    send(exchange, status, "text/plain; charset=utf-8", body);
  }

  /** Sends {@code body} with {@code status} and content type {@code type}. */
  public static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
      return;
    }
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** A handler answering GET and HEAD only. */
  private static HttpHandler open(HttpHandler handler) {
    return exchange ->
        safely(
            exchange,
            () -> {
              String method = exchange.getRequestMethod();
              if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                text(exchange, 405, method + " is not allowed here; use GET\n");
                return;
              }
              handler.handle(exchange);
            });
  }

  /** A handler that first checks the token (401 asking for it when missing or wrong). */
  private static HttpHandler guarded(Predicate<String> authorized, HttpHandler handler) {
    return exchange ->
        safely(
            exchange,
            () -> {
              if (!authorized.test(exchange.getRequestHeaders().getFirst("Authorization"))) {
                LOG.warn(
                    "rejected HTTP {} {} from {}: missing or invalid cluster token",
                    exchange.getRequestMethod(),
                    exchange.getRequestURI().getPath(),
                    exchange.getRemoteAddress());
                exchange.getResponseHeaders().add("WWW-Authenticate", "Bearer realm=\"quiver\"");
                exchange
                    .getResponseHeaders()
                    .add("WWW-Authenticate", "Basic realm=\"quiver\", charset=\"UTF-8\"");
                text(
                    exchange,
                    401,
                    "missing or invalid cluster token: send Authorization: Bearer <token>, or the"
                        + " token as the password of Basic credentials\n");
                return;
              }
              handler.handle(exchange);
            });
  }

  /** What a route does with one request. */
  @FunctionalInterface
  private interface Body {
    void run() throws IOException;
  }

  /** Runs {@code body}, then closes the exchange; a failure becomes a 500 naming its type. */
  private static void safely(HttpExchange exchange, Body body) {
    try (exchange) {
      body.run();
    } catch (IOException e) {
      LOG.debug("HTTP client went away: {}", e.toString());
    } catch (RuntimeException e) {
      LOG.warn("HTTP {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
      try {
        text(exchange, 500, "internal error: " + e.getClass().getSimpleName() + "\n");
      } catch (IOException | RuntimeException ignored) {
        // The response had already started; the client sees a cut connection.
      }
    }
  }
}
