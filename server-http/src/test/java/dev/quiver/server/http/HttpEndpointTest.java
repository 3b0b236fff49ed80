package dev.quiver.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.security.TestCertificates;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class HttpEndpointTest {
  private static final Duration CALL = Duration.ofSeconds(10);

  @Test
  void servesProbesMetricsAndRoutesInPlainHttp() throws Exception {
    PrometheusRegistry registry = ServerMetrics.newRegistry();
    Counter c =
        Counter.builder().name("quiver_test_events_total").help("events").register(registry);
    c.inc(3);
    AtomicReference<Optional<String>> ready = new AtomicReference<>(Optional.of("warming up"));
    try (HttpEndpoint http =
        HttpEndpoint.builder("test", "127.0.0.1", 0, SecurityConfig.none())
            .metrics(registry)
            .readiness(ready::get)
            .route("/hello", e -> HttpEndpoint.text(e, 200, "hi " + e.getRequestURI().getPath()))
            .start()) {
      HttpClient client = HttpClient.newBuilder().connectTimeout(CALL).build();
      String base = "http://127.0.0.1:" + http.port();
      assertThat(get(client, base + "/healthz", null).body()).isEqualTo("ok\n");
      HttpResponse<String> notReady = get(client, base + "/readyz", null);
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("warming up");
      ready.set(Optional.empty());
      assertThat(get(client, base + "/readyz", null).statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = get(client, base + "/metrics", null);
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .contains("quiver_test_events_total 3.0")
          .contains("jvm_memory_used_bytes");
      assertThat(get(client, base + "/hello/x", null).body()).isEqualTo("hi /hello/x");
      assertThat(get(client, base + "/nothing", null).statusCode()).isEqualTo(404);
      HttpResponse<String> post =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/healthz"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .timeout(CALL)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
    }
  }

  @Test
  void withTlsAndTokenOnlyTheProbesAnswerWithoutTheToken(@TempDir Path dir) throws Exception {
    TestCertificates certs = TestCertificates.generate(dir.resolve("certs"));
    SecurityConfig security = certs.node("s3cret-token");
    try (HttpEndpoint http =
        HttpEndpoint.builder("test", "127.0.0.1", 0, security)
            .metrics(ServerMetrics.newRegistry())
            .route("/api/", e -> HttpEndpoint.text(e, 200, "secret data"))
            .start()) {
      assertThat(http.scheme()).isEqualTo("https");
      HttpClient client =
          HttpClient.newBuilder().sslContext(trusting(certs.ca())).connectTimeout(CALL).build();
      String base = "https://127.0.0.1:" + http.port();
      assertThat(get(client, base + "/healthz", null).statusCode()).isEqualTo(200);
      assertThat(get(client, base + "/readyz", null).statusCode()).isEqualTo(200);

      HttpResponse<String> anonymous = get(client, base + "/metrics", null);
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().allValues("WWW-Authenticate"))
          .anyMatch(v -> v.startsWith("Basic"));
      assertThat(anonymous.body()).doesNotContain("s3cret-token");
      assertThat(get(client, base + "/api/x", "Bearer wrong").statusCode()).isEqualTo(401);
      assertThat(get(client, base + "/api/x", "Bearer s3cret-token").body())
          .isEqualTo("secret data");
      assertThat(get(client, base + "/metrics", "Bearer s3cret-token").body())
          .contains("jvm_memory_used_bytes");
      String basic =
          "Basic "
              + Base64.getEncoder()
                  .encodeToString("admin:s3cret-token".getBytes(StandardCharsets.UTF_8));
      assertThat(get(client, base + "/api/x", basic).statusCode()).isEqualTo(200);
      String wrongBasic =
          "Basic "
              + Base64.getEncoder().encodeToString("admin:nope".getBytes(StandardCharsets.UTF_8));
      assertThat(get(client, base + "/api/x", wrongBasic).statusCode()).isEqualTo(401);

      // Plain HTTP is not served on the HTTPS port.
      HttpClient plain = HttpClient.newBuilder().connectTimeout(CALL).build();
      assertThatThrownBy(() -> get(plain, "http://127.0.0.1:" + http.port() + "/healthz", null))
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void aTakenPortIsAClearError() throws Exception {
    try (HttpEndpoint first =
        HttpEndpoint.builder("first", "127.0.0.1", 0, SecurityConfig.none()).start()) {
      assertThatThrownBy(
              () ->
                  HttpEndpoint.builder("second", "127.0.0.1", first.port(), SecurityConfig.none())
                      .start())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("second could not serve HTTP on 127.0.0.1:" + first.port())
          .hasMessageContaining("--http-port");
    }
  }

  private static HttpResponse<String> get(HttpClient client, String url, String authorization)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(CALL).GET();
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static SSLContext trusting(Path caPem) throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    X509Certificate ca =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(caPem)));
    store.setCertificateEntry("ca", ca);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }
}
