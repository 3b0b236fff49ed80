package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.proto.JobStatusUpdate;
import dev.quiver.distributed.proto.StageStatus;
import dev.quiver.examples.tpch.TpchQueries;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * TPC-H SF 0.1 on {@code EmbeddedClusterModule(2)} with exact runtime filters off (a byte limit of
 * one byte), so that every scan stage with a runtime filter whose keys input wrote rows applies the
 * Bloom filter of those keys that the input's tasks built: the answers must stay the single node's.
 * Only tables under 10,000 rows are broadcast, so that joins of orders and lineitem are shuffled as
 * they are at scale.
 */
class BloomFilterClusterTpchTest extends ClusterTpchTestBase {
  @Override
  ClusterFixture.ClusterRows openCluster(Path dir) {
    return ClusterFixture.embedded(
        2,
        dir,
        new SessionConfig()
            .set(DistributedSettings.RUNTIME_FILTER_BYTES, "1")
            .set(DistributedSettings.BROADCAST_THRESHOLD_ROWS, "10000"));
  }

  /**
   * In Q10 the quarter's orders joined with their returned lineitems (11,439 rows) filter the scan
   * of customer before it is shuffled: 3,767 of the 15,000 customers have such an order.
   */
  @Test
  void q10FiltersCustomerByABloomFilterOfTheQuartersReturnedOrders() {
    onQueryThread(
        "q10",
        () -> {
          cluster().jobs().clear();
          cluster().rows().query(TpchQueries.get(10).sql());
          List<JobStatusUpdate> jobs = List.copyOf(cluster().jobs());
          JobStatusUpdate job = jobs.get(jobs.size() - 1);
          StageStatus filtered =
              job.getStagesList().stream()
                  .filter(s -> s.getAdaptive().startsWith("rows filtered by a Bloom filter"))
                  .findFirst()
                  .orElseThrow(() -> new AssertionError("no Bloom filter: " + job));
          assertThat(filtered.getAdaptive()).contains("(11439 rows");
          long written =
              filtered.getTasksList().stream().mapToLong(t -> t.getMetrics().getOutputRows()).sum();
          // Every customer with a partner passes, and a few percent of the 11,233 others at most.
          assertThat(written).as(filtered.toString()).isBetween(3_767L, 3_767L + 11_233L / 20);
        });
  }
}
