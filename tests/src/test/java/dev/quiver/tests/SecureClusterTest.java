package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.client.ClusterConfig;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.distributed.security.TestCertificates;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clusters secured with TLS and a shared token: TPC-H queries on an embedded cluster and on
 * scheduler and executor processes started with --tls-cert/--tls-key/--tls-ca/--token-file; clients
 * without the token are refused; and no process log, nor this test's own output, ever contains the
 * token.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecureClusterTest {
  private static final String TOKEN = "qv-shared-token-1f8e2c94b7";
  private static final String WRONG = "qv-wrong-token-60d3aa51e9";

  /** A scan + aggregate (one shuffle) and a three-table join (executor-to-executor DoGet). */
  private static final List<Integer> QUERIES = List.of(1, 3);

  @TempDir static Path tmp;

  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  private PrintStream originalOut;
  private PrintStream originalErr;
  private TestCertificates certs;
  private Path tpch;
  private RowEngine local;
  private ProcessCluster processes;

  @BeforeAll
  void setUp() throws Exception {
    originalOut = System.out;
    originalErr = System.err;
    System.setOut(tee(originalOut));
    System.setErr(tee(originalErr));
    certs = TestCertificates.generate(tmp.resolve("certs"));
    tpch = TpchFixture.data(ClusterTpchTestBase.SCALE);
    local = new QuiverRows(tpch, 2);
  }

  private PrintStream tee(PrintStream original) {
    OutputStream both =
        new OutputStream() {
          @Override
          public void write(int b) {
            original.write(b);
            synchronized (captured) {
              captured.write(b);
            }
          }

          @Override
          public void write(byte[] b, int off, int len) {
            original.write(b, off, len);
            synchronized (captured) {
              captured.write(b, off, len);
            }
          }

          @Override
          public void flush() {
            original.flush();
          }
        };
    return new PrintStream(both, true, StandardCharsets.UTF_8);
  }

  @AfterAll
  void tearDown() throws Exception {
    try {
      if (processes != null) {
        processes.close();
      }
      if (local != null) {
        local.close();
      }
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
  }

  private void runQueries(ClusterFixture.ClusterRows cluster) {
    for (TpchQuery q : TpchQueries.select(QUERIES)) {
      QueryResult expected = local.query(q.sql());
      cluster.jobs().clear();
      QueryResult actual = cluster.rows().query(q.sql());
      Differential.check(
          q.name() + " on " + cluster.rows().name(),
          q.sql(),
          expected,
          actual,
          Differential.sortOf(q.orderBy(), expected));
      assertThat(cluster.jobs()).as(q.name() + " ran as a distributed job").isNotEmpty();
      assertThat(ClusterFixture.executorsOf(cluster.jobs().get(cluster.jobs().size() - 1)))
          .as(q.name() + " executors that ran tasks")
          .hasSizeGreaterThanOrEqualTo(2);
    }
  }

  @Test
  @Order(1)
  @Timeout(180)
  void embeddedClusterWithTlsAndTokenRunsTpch() throws Exception {
    ClusterFixture.ClusterRows cluster =
        ClusterFixture.embedded(2, tpch, new SessionConfig(), certs.node(TOKEN));
    try {
      assertThat(cluster.runtime().config().security().clientTls()).isTrue();
      assertThat(cluster.runtime().config().security().hasToken()).isTrue();
      runQueries(cluster);
      // The embedded scheduler runs in this JVM: its rejection is logged to this test's output.
      assertRefused(cluster.runtime().config().target(), certs.client(WRONG), "UNAUTHENTICATED");
    } finally {
      cluster.rows().close();
    }
  }

  @Test
  @Order(2)
  @Timeout(240)
  void processClusterWithTlsAndTokenRunsTpch() throws Exception {
    Path logs = Files.createDirectories(tmp.resolve("logs"));
    Path tokenFile = certs.tokenFile("cluster-token", TOKEN);
    List<String> args =
        List.of(
            "--tls-cert", certs.cert().toString(),
            "--tls-key", certs.key().toString(),
            "--tls-ca", certs.ca().toString(),
            "--token-file", tokenFile.toString());
    ClusterConfig client =
        ClusterConfig.remote("127.0.0.1:1").withTls(certs.ca()).withTokenFile(tokenFile);
    processes = ProcessCluster.start(logs, 2, 1, null, args, client.security());
    ClusterFixture.ClusterRows cluster =
        ClusterFixture.remote(
            ClusterConfig.remote(processes.target()).withSecurity(client.security()),
            tpch,
            new SessionConfig());
    try {
      runQueries(cluster);
    } finally {
      cluster.rows().close();
    }
  }

  @Test
  @Order(3)
  @Timeout(120)
  void clientsWithoutOrWithAWrongTokenOrOverPlaintextAreRefused() throws Exception {
    assertThat(processes).as("the process cluster of the previous test").isNotNull();
    assertRefused(processes.target(), certs.client(null), "UNAUTHENTICATED");
    assertRefused(processes.target(), certs.client(WRONG), "UNAUTHENTICATED");
    // TLS mistakes say TLS, not only "UNAVAILABLE (io exception)".
    assertRefused(
        processes.target(),
        SecurityConfig.none().withToken(TOKEN),
        "UNAVAILABLE",
        "if it serves TLS, connect with TLS");
    TestCertificates otherCa = TestCertificates.generate(tmp.resolve("other-certs"));
    assertRefused(
        processes.target(),
        otherCa.client(TOKEN),
        "UNAVAILABLE",
        "the TLS handshake failed because the server's certificate is not trusted");
    try (ProcessCluster plaintext =
        ProcessCluster.start(
            Files.createDirectories(tmp.resolve("plaintext")), 0, ProcessCluster.Options.of(1))) {
      assertRefused(
          plaintext.target(), certs.client(TOKEN), "UNAVAILABLE", "answered in plaintext, not TLS");
    }
  }

  /** Only exactly {@code authorization: Bearer <token>} is accepted, by every server. */
  @Test
  @Order(4)
  @Timeout(120)
  void theTokenIsAcceptedOnlyInTheStandardForm() {
    assertThat(processes).as("the process cluster of the previous test").isNotNull();
    List<String> targets = new ArrayList<>(List.of(processes.target()));
    for (var e : processes.statuses()) {
      targets.add(e.getInfo().getHost() + ":" + e.getInfo().getFlightPort());
    }
    SecurityConfig tlsOnly = certs.client(null);
    for (String target : targets) {
      String host = target.substring(0, target.lastIndexOf(':'));
      int port = Integer.parseInt(target.substring(target.lastIndexOf(':') + 1));
      boolean scheduler = target.equals(processes.target());
      String method =
          scheduler ? "quiver.v1.Scheduler/ListExecutors" : "quiver.v1.ExecutorControl/CancelTasks";
      for (String header :
          List.of(
              "Bearer " + TOKEN,
              "bearer " + TOKEN,
              "BEARER " + TOKEN,
              "Bearer  " + TOKEN,
              "Bearer " + TOKEN + " ")) {
        io.grpc.ManagedChannel channel =
            dev.quiver.distributed.security.GrpcSecurity.channelBuilder(host, port, tlsOnly)
                .intercept(authorization(header))
                .build();
        try {
          Throwable e =
              org.assertj.core.api.Assertions.catchThrowable(
                  () -> RawGrpc.call(channel, method, false, new byte[0]));
          if (header.equals("Bearer " + TOKEN)) {
            assertThat(e).as(method + " with the standard form").isNull();
          } else {
            assertThat(e)
                .as(method + " with '" + header.replace(TOKEN, "<token>") + "'")
                .isInstanceOf(io.grpc.StatusRuntimeException.class);
            assertThat(((io.grpc.StatusRuntimeException) e).getStatus().getCode())
                .isEqualTo(io.grpc.Status.Code.UNAUTHENTICATED);
          }
        } finally {
          channel.shutdownNow();
        }
      }
    }
  }

  private static io.grpc.ClientInterceptor authorization(String value) {
    io.grpc.Metadata.Key<String> key =
        io.grpc.Metadata.Key.of("authorization", io.grpc.Metadata.ASCII_STRING_MARSHALLER);
    return new io.grpc.ClientInterceptor() {
      @Override
      public <ReqT, RespT> io.grpc.ClientCall<ReqT, RespT> interceptCall(
          io.grpc.MethodDescriptor<ReqT, RespT> method,
          io.grpc.CallOptions options,
          io.grpc.Channel next) {
        return new io.grpc.ForwardingClientCall.SimpleForwardingClientCall<>(
            next.newCall(method, options)) {
          @Override
          public void start(Listener<RespT> listener, io.grpc.Metadata headers) {
            headers.put(key, value);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  /**
   * Fails unless a query through {@code security} on the cluster at {@code target} is refused with
   * {@code code}; prints the config and the whole error (as an application's log would) so the
   * output check below sees them.
   */
  private void assertRefused(
      String target, SecurityConfig security, String code, String... explanations) {
    ClusterConfig config = ClusterConfig.remote(target).withSecurity(security);
    System.out.println("connecting with " + config);
    assertThatThrownBy(
            () -> {
              ClusterFixture.ClusterRows c =
                  ClusterFixture.remote(config, tpch, new SessionConfig());
              try {
                c.rows().query("SELECT count(*) FROM nation");
              } finally {
                c.rows().close();
              }
            })
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining(code)
        .satisfies(
            e -> {
              for (String explanation : explanations) {
                assertThat(e.getMessage()).contains(explanation);
              }
            })
        .satisfies(
            e -> {
              e.printStackTrace();
              assertThat(e.getMessage()).doesNotContain(TOKEN).doesNotContain(WRONG);
            });
  }

  @Test
  @Order(5)
  @Timeout(60)
  void noLogNorTestOutputContainsTheToken() throws Exception {
    assertThat(processes).as("the process cluster of the earlier tests").isNotNull();
    // Stopped first, so every log is complete.
    processes.close();
    List<Path> logs = new ArrayList<>();
    try (Stream<Path> files = Files.list(processes.dir())) {
      files.filter(p -> p.toString().endsWith(".log")).forEach(logs::add);
    }
    assertThat(logs)
        .extracting(p -> p.getFileName().toString())
        .contains("scheduler-0.log", "exec-0.log", "exec-1.log");
    for (Path log : logs) {
      String text = Files.readString(log);
      assertThat(text).as(log + " is not empty").isNotBlank();
      assertThat(text).as(log.toString()).doesNotContain(TOKEN).doesNotContain(WRONG);
    }
    // The processes did log their security settings (redacted), so the check has teeth.
    assertThat(Files.readString(processes.dir().resolve("exec-0.log"))).contains("token=set");
    String output;
    synchronized (captured) {
      output = captured.toString(StandardCharsets.UTF_8);
    }
    assertThat(output)
        .as("this test's captured output")
        .contains("token=set")
        .contains("missing or invalid token");
    assertThat(output)
        .as("this test's captured output")
        .doesNotContain(TOKEN)
        .doesNotContain(WRONG);
  }
}
