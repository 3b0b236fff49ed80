package dev.quiver.distributed.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.Extension;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.scan.FileScanExec;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.distributed.proto.ScanSplits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Which scans of a stage have their splits handed out at run time (see {@link SplitStealing}). */
@Timeout(60)
class SplitStealingTest {
  @TempDir Path dir;
  private SessionContext ctx;
  private final AtomicReference<ExecutionPlan> captured = new AtomicReference<>();

  @BeforeEach
  void setUp() throws IOException {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(4));
    ctx.withExtensions(
        new Extension() {
          @Override
          public QueryPlanner queryPlanner(QueryPlanner current) {
            return (plan, context) -> {
              ExecutionPlan p = current.createPhysicalPlan(plan, context);
              captured.set(p);
              return p;
            };
          }
        });
    ctx.registerCsv("big", csvFiles("big", 4).toString());
    ctx.registerCsv("other", csvFiles("other", 4).toString());
    ctx.registerCsv("small", csvFiles("small", 1).toString());
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private Path csvFiles(String name, int files) throws IOException {
    Path folder = Files.createDirectories(dir.resolve(name));
    for (int f = 0; f < files; f++) {
      StringBuilder sb = new StringBuilder("k,v\n");
      for (int i = 0; i < 5; i++) {
        sb.append(i).append(',').append(f * 10 + i).append('\n');
      }
      Files.writeString(folder.resolve(name + f + ".csv"), sb.toString());
    }
    return folder;
  }

  /** The scan_splits of every stage of {@code sql}'s plan, in stage order. */
  private List<List<ScanSplits>> stolen(String sql) {
    ctx.sql(sql).explain();
    List<List<ScanSplits>> out = new ArrayList<>();
    StagePlanner.plan(captured.get()).stages().forEach(s -> out.add(SplitStealing.of(s)));
    return out;
  }

  private StageGraph graph(String sql) {
    ctx.sql(sql).explain();
    return StagePlanner.plan(captured.get());
  }

  @Test
  void aScanReadPartitionByPartitionHasEverySplitPlannedForOneTask() {
    StageGraph graph = graph("SELECT k, sum(v) FROM big WHERE v > 1 GROUP BY k");
    Stage scan = graph.stages().get(0);
    List<ScanSplits> splits = SplitStealing.of(scan);
    assertThat(splits).hasSize(1);
    ScanSplits s = splits.get(0);
    assertThat(s.getScan()).isZero();
    assertThat(s.getSplitCount()).isEqualTo(4);
    assertThat(s.getPlannedList()).hasSize(scan.taskCount());
    List<Integer> all = new ArrayList<>();
    s.getPlannedList().forEach(l -> all.addAll(l.getSplitsList()));
    assertThat(all).containsExactly(0, 1, 2, 3);
    // The final aggregate reads shuffled rows, not files.
    assertThat(SplitStealing.of(graph.finalStage())).isEmpty();
  }

  @Test
  void aCollectedBuildSideKeepsItsPlannedSplitsBesideAStolenProbeSide() {
    ctx.sql("SET quiver.optimizer.hash_join_collect_build_threshold_rows = 1000000");
    StageGraph graph = graph("SELECT big.k, big.v, small.v FROM small JOIN big ON big.k = small.k");
    Stage probe =
        graph.stages().stream()
            .filter(s -> SplitStealing.fileScans(s.root()).size() == 2)
            .findFirst()
            .orElseThrow(() -> new AssertionError(graph.explain()));
    List<FileScanExec> scans = SplitStealing.fileScans(probe.root());
    List<ScanSplits> splits = SplitStealing.of(probe);
    assertThat(splits).hasSize(1);
    FileScanExec stolen = scans.get(splits.get(0).getScan());
    assertThat(stolen.partitionCount()).isEqualTo(probe.taskCount()).isGreaterThan(1);
    assertThat(stolen.partitionFiles().toString()).contains("big");
  }

  @Test
  void scansUnderAUnionALimitOrInOneTaskKeepTheirPlannedSplits() {
    assertThat(stolen("SELECT k, v FROM big UNION ALL SELECT k, v FROM other"))
        .allMatch(List::isEmpty);
    assertThat(stolen("SELECT k, v FROM big LIMIT 3")).allMatch(List::isEmpty);
    assertThat(stolen("SELECT k, count(*) FROM small GROUP BY k ORDER BY k"))
        .allMatch(List::isEmpty);
  }
}
