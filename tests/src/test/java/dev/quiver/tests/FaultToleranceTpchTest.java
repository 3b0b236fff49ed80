package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The 22 TPC-H queries at SF 0.1 on three executor processes, each with one executor killed by
 * SIGKILL right after its job's first stage finished (and replaced after the query): every query
 * completes with the single-node binding's rows.
 */
@Tag("slow")
class FaultToleranceTpchTest {

  @Test
  @Timeout(value = 30, unit = TimeUnit.MINUTES)
  void everyTpchQueryCompletesWithAnExecutorKilledAfterItsFirstStage() throws Exception {
    Path data = TpchFixture.data(0.1);
    List<FaultCluster.Recovery> recoveries = new ArrayList<>();
    try (QueryThread thread = new QueryThread()) {
      QuiverRows[] local = new QuiverRows[1];
      FaultCluster[] faults = new FaultCluster[1];
      thread.run(
          Duration.ofSeconds(120),
          "start",
          () -> {
            local[0] = new QuiverRows(data, 4);
            try {
              faults[0] =
                  FaultCluster.start(3, ProcessCluster.Options.of(2), data, new SessionConfig());
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      try {
        for (TpchQuery q : TpchQueries.all()) {
          thread.run(
              Duration.ofSeconds(180),
              q.name(),
              () -> {
                QueryResult expected = local[0].query(q.sql());
                try {
                  recoveries.add(
                      faults[0].queryKillingAfterFirstStage(
                          q.name(), q.sql(), expected, Differential.sortOf(q.orderBy(), expected)));
                } catch (Exception e) {
                  throw new IllegalStateException(q.name() + " failed", e);
                }
              });
        }
      } finally {
        thread.run(
            Duration.ofSeconds(60),
            "stop",
            () -> {
              if (faults[0] != null) {
                faults[0].close();
              }
              if (local[0] != null) {
                local[0].close();
              }
            });
      }
    }
    LongSummaryStatistics millis =
        recoveries.stream()
            .mapToLong(FaultCluster.Recovery::killToSuccessMillis)
            .summaryStatistics();
    System.out.println("TPC-H with an executor killed after the first stage:");
    recoveries.forEach(r -> System.out.println("  " + r));
    System.out.println(
        "  "
            + recoveries.size()
            + " of 22 completed; kill to job success: min "
            + millis.getMin()
            + " ms, mean "
            + Math.round(millis.getAverage())
            + " ms, max "
            + millis.getMax()
            + " ms; task attempts > 0: "
            + recoveries.stream().mapToInt(FaultCluster.Recovery::tasksRunAgain).sum());
    assertThat(recoveries).hasSize(22);
  }
}
