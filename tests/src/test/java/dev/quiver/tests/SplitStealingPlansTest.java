package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.ClusterLifecycle;
import dev.quiver.distributed.EmbeddedClusterModule;
import dev.quiver.distributed.client.DistributedQueryExec;
import dev.quiver.distributed.codec.DecodeContext;
import dev.quiver.distributed.codec.DecodedStage;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.planner.DistributedSettings;
import dev.quiver.distributed.planner.SplitStealing;
import dev.quiver.distributed.planner.Stage;
import dev.quiver.distributed.proto.JobSpec;
import dev.quiver.distributed.proto.ScanSplits;
import dev.quiver.distributed.proto.StageSpec;
import dev.quiver.examples.tpch.TpchData;
import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Which scans of the 22 TPC-H stage plans have their splits handed out at run time, and that the
 * executors find them: the scan numbering (pre-order among file scans) of every stage plan as
 * decoded equals the planner's, with the same splits, so a scan's splits go to the scan they were
 * planned for.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SplitStealingPlansTest {
  private Path data;
  private Injector cluster;

  @BeforeAll
  void start() {
    data = TpchFixture.data(0.01);
    cluster =
        Guice.createInjector(
            new EmbeddedClusterModule(2, new SessionConfig().withTargetPartitions(4)));
  }

  @AfterAll
  void stop() {
    cluster.getInstance(ClusterLifecycle.class).close();
  }

  private DistributedQueryExec plan(SessionContext session, String sql, SessionConfig config) {
    PlanningContext planning =
        new PlanningContext() {
          @Override
          public SessionConfig config() {
            return config;
          }

          @Override
          public List<PhysicalOptimizerRule> physicalOptimizerRules() {
            return List.of();
          }
        };
    ExecutionPlan plan =
        session.queryPlanner().createPhysicalPlan(session.sql(sql).logicalPlan(), planning);
    assertThat(plan).isInstanceOf(DistributedQueryExec.class);
    return (DistributedQueryExec) plan;
  }

  @Test
  void stolenScansAreAlignedAndDecodeToTheSameScansAndSplits() {
    int stolen = 0;
    int keptBesideStolen = 0;
    try (SessionContext session = cluster.getInstance(SessionContext.class);
        RootAllocator allocator = new RootAllocator()) {
      for (String table : TpchData.TABLES) {
        session.registerParquet(table, TpchData.tableDirectory(data, table).toString());
      }
      SessionConfig config =
          new SessionConfig()
              .withTargetPartitions(4)
              .set(DistributedSettings.MAX_TASKS, "3")
              .set(DistributedSettings.BYTES_PER_TASK, "16k");
      PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
      for (TpchQuery q : TpchQueries.all()) {
        DistributedQueryExec exec = plan(session, q.sql(), config);
        JobSpec job = exec.job();
        for (StageSpec spec : job.getStagesList()) {
          Stage stage = exec.graph().stage(spec.getStageId());
          List<FileScanExec> planned = SplitStealing.fileScans(stage.root());
          String where = q.name() + " stage " + spec.getStageId();
          if (spec.getScanSplitsCount() == 0) {
            continue;
          }
          assertThat(stage.outputRowLimit()).as(where).isEqualTo(-1);
          assertThat(spec.getTaskCount()).as(where).isGreaterThan(1);
          List<FileScanExec> decoded;
          try (DecodedStage d =
              codec.decode(
                  spec.getPlan().toByteArray(),
                  new DecodeContext(allocator, List.of(), null, name -> Optional.empty()))) {
            decoded = SplitStealing.fileScans(d.plan().root());
            assertThat(decoded).as(where).hasSameSizeAs(planned);
            for (int i = 0; i < planned.size(); i++) {
              assertThat(decoded.get(i).getClass()).isEqualTo(planned.get(i).getClass());
              assertThat(decoded.get(i).splitCount()).isEqualTo(planned.get(i).splitCount());
              assertThat(decoded.get(i).partitionCount())
                  .isEqualTo(planned.get(i).partitionCount());
            }
          }
          List<Integer> stolenScans = new ArrayList<>();
          for (ScanSplits s : spec.getScanSplitsList()) {
            FileScanExec scan = planned.get(s.getScan());
            stolenScans.add(s.getScan());
            assertThat(scan.partitionCount()).as(where).isEqualTo(spec.getTaskCount());
            assertThat(s.getSplitCount()).isEqualTo(scan.splitCount());
            for (int t = 0; t < spec.getTaskCount(); t++) {
              assertThat(s.getPlanned(t).getSplitsList())
                  .containsExactly(
                      java.util.Arrays.stream(scan.plannedSplits(t))
                          .boxed()
                          .toArray(Integer[]::new));
            }
            stolen++;
          }
          keptBesideStolen += planned.size() - stolenScans.size();
        }
      }
      // lineitem, orders, ... are stolen; the build sides read whole by every task (nation,
      // region) stay planned beside them.
      assertThat(stolen).isGreaterThan(20);
      assertThat(keptBesideStolen).isPositive();

      SessionConfig off = config.copy().set(DistributedSettings.SPLIT_STEALING, "false");
      JobSpec none = plan(session, TpchQueries.all().get(0).sql(), off).job();
      assertThat(none.getStagesList()).allMatch(s -> s.getScanSplitsCount() == 0);
    }
  }
}
