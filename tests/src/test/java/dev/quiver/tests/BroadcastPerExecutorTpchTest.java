package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchQueries;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * TPC-H SF 0.1 on {@code EmbeddedClusterModule(2)} with a collect threshold of 20,000 rows, which
 * in one process gathers and shares the 15,000 customers of Q10 and Q18. On two executors each
 * would hash its own copy, so the cluster broadcasts only sides of at most 20,000 / 2 rows and
 * shuffles both sides of the customer joins; the answers must stay the single node's.
 */
class BroadcastPerExecutorTpchTest extends ClusterTpchTestBase {
  @Override
  ClusterFixture.ClusterRows openCluster(Path dir) {
    return ClusterFixture.embedded(
        2,
        dir,
        new SessionConfig().set(BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS.key(), "20000"));
  }

  @Test
  void customerIsShuffledNotBroadcastToTwoExecutors() {
    for (int q : new int[] {10, 18}) {
      onQueryThread(
          "q" + q,
          () -> {
            String plan =
                cluster().rows().query("EXPLAIN " + TpchQueries.get(q).sql()).rows().stream()
                    .map(Object::toString)
                    .collect(Collectors.joining("\n"));
            assertThat(plan)
                .as("q%d's plan on two executors", q)
                .containsPattern("mode=PARTITIONED, join_type=INNER, on=\\[[^\\]]*c_custkey")
                .doesNotContainPattern(
                    "mode=COLLECT_BUILD, join_type=INNER, on=\\[[^\\]]*c_custkey");
          });
    }
  }
}
