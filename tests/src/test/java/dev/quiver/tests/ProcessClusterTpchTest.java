package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ExecutorStatus;
import dev.quiver.distributed.security.SecurityConfig;
import dev.quiver.tests.udf.TimesTwo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * TPC-H SF 0.1 on one scheduler and three executor processes started from the jars, through {@code
 * DistributedModule}; plus a UDF that only the executors' --classpath provides. The scheduler and
 * the client are on 127.0.0.1 while the executors listen only on 127.0.0.2 and 127.0.0.3 (all
 * loopback on Linux): nothing may assume that they share an address.
 */
class ProcessClusterTpchTest extends ClusterTpchTestBase {
  private ProcessCluster processes;
  private Path logs;

  @Override
  ClusterFixture.ClusterRows openCluster(Path dir) throws Exception {
    logs = Files.createTempDirectory("quiver-process-cluster-");
    Path udfClasses = Path.of("target", "test-classes").toAbsolutePath();
    processes =
        ProcessCluster.start(
            logs,
            3,
            new ProcessCluster.Options(2, udfClasses, List.of(), List.of(), SecurityConfig.none())
                .withHttp()
                .withExecutorHosts("127.0.0.2", "127.0.0.3"));
    return ClusterFixture.remote(processes.target(), dir, new SessionConfig());
  }

  @Override
  void stopCluster() {
    if (processes != null) {
      processes.close();
    }
    if (logs != null) {
      try (var paths = Files.walk(logs)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (java.io.IOException e) {
        // Logs are best-effort diagnostics.
      }
    }
  }

  @Test
  void executorsListenAndRegisterOnlyOnTheirOwnAddresses() {
    List<ExecutorStatus> executors = processes.statuses();
    assertThat(executors)
        .extracting(e -> e.getInfo().getHost())
        .containsExactlyInAnyOrder("127.0.0.2", "127.0.0.3", "127.0.0.2");
    for (ExecutorStatus e : executors) {
      // Bound to their own address only: the same port on 127.0.0.1 is closed.
      assertThat(canConnect("127.0.0.1", e.getInfo().getFlightPort()))
          .as(e.getInfo().getExecutorId() + " reachable on 127.0.0.1")
          .isFalse();
      assertThat(canConnect(e.getInfo().getHost(), e.getInfo().getFlightPort())).isTrue();
      assertThat(canConnect(e.getInfo().getHost(), e.getInfo().getHttpPort())).isTrue();
    }
  }

  private static boolean canConnect(String host, int port) {
    try (java.net.Socket socket = new java.net.Socket()) {
      socket.connect(new java.net.InetSocketAddress(host, port), 2_000);
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void udfFromTheExecutorClasspathRunsOnExecutors() {
    onQueryThread(
        "udf",
        () -> {
          var ctx = cluster().rows().session();
          ctx.registerUdf(new TimesTwo());
          cluster().jobs().clear();
          QueryResult r =
              cluster()
                  .rows()
                  .query(
                      "SELECT sum(times_two(l_orderkey)) AS s, sum(l_orderkey) AS t FROM lineitem");
          assertThat(cluster().jobs()).isNotEmpty();
          Object doubled = r.rows().get(0).get(0);
          Object plain = r.rows().get(0).get(1);
          assertThat(new java.math.BigDecimal(doubled.toString()))
              .isEqualByComparingTo(
                  new java.math.BigDecimal(plain.toString())
                      .multiply(java.math.BigDecimal.valueOf(2)));
        });
  }
}
