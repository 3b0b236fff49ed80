package dev.quiver.tests;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.RESTSerializers;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;

/**
 * A small Iceberg REST catalog server for tests, on the JDK's HTTP server at 127.0.0.1: the REST
 * protocol's namespace and table routes, served by Iceberg's own {@link CatalogHandlers} over a
 * backing {@link InMemoryCatalog} whose files go where its {@code warehouse} and {@code io-impl}
 * properties say. With a token, every request must carry {@code Authorization: Bearer token}.
 */
final class RestCatalogServer implements AutoCloseable {
  private static final String SEP = "\u001f";
  private final HttpServer server;
  private final ExecutorService pool = Executors.newFixedThreadPool(4);
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  private final String token;
  private final ObjectMapper json = new ObjectMapper();

  /** Requests answered, for tests that check the catalog was asked. */
  final AtomicInteger requests = new AtomicInteger();

  private RestCatalogServer(Map<String, String> backing, String token) throws IOException {
    this.token = token;
    json.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    json.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    json.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(json);
    catalog.initialize("backing", backing);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(pool);
    server.start();
  }

  /**
   * Starts a server over a catalog with {@code backing}'s properties; {@code token} may be null.
   */
  static RestCatalogServer start(Map<String, String> backing, String token) throws IOException {
    return new RestCatalogServer(backing, token);
  }

  /** The catalog's URI. */
  String uri() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The backing catalog, to create and write tables with Iceberg's API directly. */
  InMemoryCatalog backing() {
    return catalog;
  }

  private void handle(HttpExchange ex) throws IOException {
    requests.incrementAndGet();
    try {
      Object response;
      int status = 200;
      try {
        if (token != null
            && !("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
          throw new NotAuthorizedException("Not authorized: bad or missing token");
        }
        response = route(ex);
        if (response == null) {
          status = 204;
        }
      } catch (NoSuchTableException | NoSuchNamespaceException e) {
        status = 404;
        response = error(e, status);
      } catch (AlreadyExistsException | CommitFailedException e) {
        status = 409;
        response = error(e, status);
      } catch (NotAuthorizedException e) {
        status = 401;
        response = error(e, status);
      } catch (UnsupportedOperationException e) {
        status = 406;
        response = error(e, status);
      } catch (RuntimeException e) {
        status = 400;
        response = error(e, status);
      }
      if (response == null || ex.getRequestMethod().equals("HEAD")) {
        ex.sendResponseHeaders(status == 200 ? 204 : status, -1);
        return;
      }
      byte[] body = json.writeValueAsBytes(response);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(status, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    } finally {
      ex.close();
    }
  }

  private static ErrorResponse error(RuntimeException e, int code) {
    return ErrorResponse.builder()
        .responseCode(code)
        .withType(e.getClass().getSimpleName())
        .withMessage(String.valueOf(e.getMessage()))
        .build();
  }

  private <T> T body(HttpExchange ex, Class<T> type) throws IOException {
    try (InputStream in = ex.getRequestBody()) {
      return json.readValue(in, type);
    }
  }

  private Object route(HttpExchange ex) throws IOException {
    String method = ex.getRequestMethod();
    List<String> path = new ArrayList<>();
    for (String p : ex.getRequestURI().getRawPath().split("/")) {
      if (!p.isEmpty()) {
        path.add(URLDecoder.decode(p, StandardCharsets.UTF_8));
      }
    }
    if (path.isEmpty() || !path.get(0).equals("v1")) {
      throw new IllegalArgumentException("Unknown path " + ex.getRequestURI());
    }
    path = path.subList(1, path.size());
    if (path.equals(List.of("config"))) {
      return ConfigResponse.builder().build();
    }
    if (path.size() >= 1 && path.get(0).equals("namespaces")) {
      if (path.size() == 1) {
        if (method.equals("POST")) {
          return CatalogHandlers.createNamespace(catalog, body(ex, CreateNamespaceRequest.class));
        }
        String parent = query(ex, "parent");
        return CatalogHandlers.listNamespaces(
            catalog, parent == null ? Namespace.empty() : Namespace.of(parent.split(SEP)));
      }
      Namespace ns = Namespace.of(path.get(1).split(SEP));
      if (path.size() == 2) {
        if (method.equals("HEAD")) {
          CatalogHandlers.namespaceExists(catalog, ns);
          return null;
        }
        return CatalogHandlers.loadNamespace(catalog, ns);
      }
      if (path.get(2).equals("tables")) {
        if (path.size() == 3) {
          if (method.equals("POST")) {
            CreateTableRequest req = body(ex, CreateTableRequest.class);
            return req.stageCreate()
                ? CatalogHandlers.stageTableCreate(catalog, ns, req)
                : CatalogHandlers.createTable(catalog, ns, req);
          }
          return CatalogHandlers.listTables(catalog, ns);
        }
        TableIdentifier id = TableIdentifier.of(ns, path.get(3));
        if (path.size() == 5 && path.get(4).equals("metrics")) {
          return null;
        }
        switch (method) {
          case "HEAD" -> {
            CatalogHandlers.tableExists(catalog, id);
            return null;
          }
          case "POST" -> {
            return CatalogHandlers.updateTable(catalog, id, body(ex, UpdateTableRequest.class));
          }
          case "DELETE" -> {
            if ("true".equals(query(ex, "purgeRequested"))) {
              CatalogHandlers.purgeTable(catalog, id);
            } else {
              CatalogHandlers.dropTable(catalog, id);
            }
            return null;
          }
          default -> {
            return CatalogHandlers.loadTable(catalog, id, RESTCatalogProperties.SnapshotMode.ALL);
          }
        }
      }
    }
    throw new UnsupportedOperationException(method + " " + ex.getRequestURI() + " is not served");
  }

  private static String query(HttpExchange ex, String name) {
    String q = ex.getRequestURI().getRawQuery();
    if (q == null) {
      return null;
    }
    for (String part : q.split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).equals(name)) {
        return URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    server.stop(0);
    pool.shutdownNow();
    catalog.close();
  }

  static {
    // RESTUtil is referenced so that a missing REST client fails loudly here.
    RESTUtil.class.getName();
  }
}
