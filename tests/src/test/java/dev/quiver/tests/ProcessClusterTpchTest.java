package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionConfig;
import dev.quiver.tests.udf.TimesTwo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * TPC-H SF 0.1 on one scheduler and three executor processes started from the jars, through
 * {@code DistributedModule}; plus a UDF that only the executors' --classpath provides.
 */
class ProcessClusterTpchTest extends ClusterTpchTestBase {
  private ProcessCluster processes;
  private Path logs;

  @Override
  ClusterFixture.ClusterRows openCluster(Path dir) throws Exception {
    logs = Files.createTempDirectory("quiver-process-cluster-");
    Path udfClasses = Path.of("target", "test-classes").toAbsolutePath();
    processes = ProcessCluster.start(logs, 3, 2, udfClasses);
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
              .isEqualByComparingTo(new java.math.BigDecimal(plain.toString()).multiply(
                  java.math.BigDecimal.valueOf(2)));
        });
  }
}
