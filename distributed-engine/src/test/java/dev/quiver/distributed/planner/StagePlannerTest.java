package dev.quiver.distributed.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.operator.LimitExec;
import dev.quiver.binding.physical.operator.LocalLimitExec;
import dev.quiver.distributed.codec.PlanCodec;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class StagePlannerTest {
  private PlannedQueries planned;
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    planned = new PlannedQueries();
    ctx = planned.ctx;
  }

  @AfterEach
  void tearDown() {
    planned.close();
  }

  private StageGraph stages(String sql) {
    return planned.stages(sql);
  }

  @Test
  void aggregationSplitsIntoPartialShuffleFinalAndGather() {
    StageGraph g = stages("SELECT k, sum(v) FROM t GROUP BY k ORDER BY k");
    assertThat(g.stages()).hasSizeGreaterThanOrEqualTo(3);
    Stage last = g.finalStage();
    assertThat(last.boundary()).isEqualTo(Boundary.RESULT);
    assertThat(last.taskCount()).isEqualTo(1);
    assertThat(g.stages().stream().map(Stage::boundary))
        .contains(Boundary.HASH_SHUFFLE, Boundary.GATHER);
    Stage shuffle =
        g.stages().stream().filter(s -> s.boundary() == Boundary.HASH_SHUFFLE).findFirst().get();
    assertThat(shuffle.output().kind()).isEqualTo(Partitioning.Kind.HASH);
    assertThat(shuffle.output().partitionCount()).isEqualTo(4);
    assertThat(shuffle.root().toString()).contains("PARTIAL");
    assertConsistent(g);
  }

  @Test
  void partitionedJoinShufflesBothSides() {
    StageGraph g = stages("SELECT t.k, v, w FROM t JOIN u ON t.k = u.k");
    long shuffles = g.stages().stream().filter(s -> s.boundary() == Boundary.HASH_SHUFFLE).count();
    assertThat(shuffles).isGreaterThanOrEqualTo(2);
    assertConsistent(g);
  }

  @Test
  void smallBuildSideIsBroadcast() {
    ctx.sql("SET quiver.optimizer.hash_join_collect_build_threshold_rows = 1000000");
    StageGraph g = stages("SELECT t.k, v, w FROM t JOIN u ON t.k = u.k");
    assertThat(g.stages().stream().map(Stage::boundary)).contains(Boundary.BROADCAST);
    assertConsistent(g);
  }

  @Test
  void aSemiJoinSharingMarksAcrossPartitionsIsRefusedAndNotPlannedWithoutThem() {
    ctx.sql("SET quiver.optimizer.hash_join_collect_build_threshold_rows = 1000000");
    // u's 3 rows are fewer than the union's 8: in one process the semi join gathers u once and
    // every partition of the union marks the rows it matches, which tasks cannot share.
    String sql =
        "SELECT k FROM u WHERE EXISTS (SELECT 1 FROM (SELECT k FROM t UNION ALL SELECT k FROM t)"
            + " x WHERE x.k = u.k)";
    assertThat(ctx.sql(sql).explain()).contains("build=left");
    assertThatThrownBy(() -> StagePlanner.plan(planned.last()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot be distributed");
    ctx.sql("SET quiver.optimizer.shared_join_marks = false");
    ctx.sql("SET quiver.optimizer.merged_join_marks = false");
    assertThat(ctx.sql(sql).explain()).doesNotContain("build=left");
    assertConsistent(stages(sql));
  }

  @Test
  void aSemiJoinMergingMarksMarksInTheRightsTasksAndMergesEachTasksMarks() {
    ctx.sql("SET quiver.optimizer.hash_join_collect_build_threshold_rows = 1000000");
    ctx.sql("SET quiver.optimizer.shared_join_marks = false");
    String sql =
        "SELECT k FROM u WHERE NOT EXISTS (SELECT 1 FROM (SELECT k FROM t UNION ALL SELECT k FROM"
            + " t) x WHERE x.k = u.k)";
    assertThat(ctx.sql(sql).explain()).contains("emit=marks").contains("MarkMergeExec");
    StageGraph g = stages(sql);
    // The marking join runs in the right input's tasks, each writing its own marks, which the
    // merge reads producer by producer (not as one interleaved stream).
    Stage marking =
        g.stages().stream()
            .filter(s -> s.root().displayDetails().contains("emit=marks"))
            .findFirst()
            .orElseThrow();
    assertThat(marking.taskCount()).isGreaterThan(1);
    assertThat(marking.boundary()).isEqualTo(Boundary.GATHER);
    ExecutionPlan merge = g.finalStage().root();
    while (!(merge instanceof dev.quiver.binding.physical.join.MarkMergeExec)) {
      merge = merge.children().get(0);
    }
    ShuffleReaderExec reader = (ShuffleReaderExec) merge.children().get(0);
    assertThat(reader.stageId()).isEqualTo(marking.id());
    assertThat(reader.partitionCount()).isEqualTo(marking.taskCount());
    assertConsistent(g);
  }

  @Test
  void singlePartitionPlanWithoutExchangesIsOneStageOfOneTask() {
    ctx.sql("SELECT 1").explain();
    assertThat(StagePlanner.isSingleTask(planned.last())).isTrue();
    StageGraph g = StagePlanner.plan(planned.last());
    assertThat(g.stages()).hasSize(1);
    assertThat(g.finalStage().taskCount()).isEqualTo(1);
    assertThat(g.finalStage().inputStageIds()).isEmpty();
  }

  /**
   * A LIMIT over a gather bounds its producers: each task keeps at most offset + fetch rows
   * (LocalLimitExec below the gather) and the stage carries that row limit for the scheduler;
   * stages a LIMIT does not sit on carry none.
   */
  @Test
  void aLimitOverAGatherLimitsEachProducerTaskAndItsStage() {
    StageGraph g = stages("SELECT t.k, u.w FROM t CROSS JOIN u LIMIT 5 OFFSET 2");
    Stage limited =
        g.stages().stream().filter(s -> s.outputRowLimit() >= 0).findFirst().orElseThrow();
    assertThat(limited.outputRowLimit()).isEqualTo(7);
    assertThat(limited.boundary()).isEqualTo(Boundary.GATHER);
    assertThat(limited.root()).isInstanceOf(LocalLimitExec.class);
    assertThat(((LocalLimitExec) limited.root()).fetch()).isEqualTo(7);
    assertThat(limited.taskCount()).isGreaterThan(1);
    assertThat(g.explain()).contains("row limit=7");
    assertThat(g.finalStage().root()).isInstanceOf(LimitExec.class);
    assertConsistent(g);
    StageGraph unlimited = stages("SELECT k, count(*) FROM t GROUP BY k");
    assertThat(unlimited.stages()).allSatisfy(s -> assertThat(s.outputRowLimit()).isEqualTo(-1));
  }

  private static final String VIEW_USED_TWICE =
      "WITH r AS (SELECT k, sum(v) AS total FROM t GROUP BY k) "
          + "SELECT k, total FROM r WHERE total = (SELECT max(total) FROM r) ORDER BY k";

  @Test
  void anExchangeComputingAnEarlierStagesRowsReadsThatStage() {
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    // As DistributedQueryPlanner plans: without the binding's shared nodes, which stages share.
    ctx.sql("SET quiver.optimizer.share_subplans = false");
    ctx.sql(VIEW_USED_TWICE).explain();
    StageGraph separate = StagePlanner.plan(planned.last());
    StageGraph reused = StagePlanner.plan(planned.last(), codec::encodeStage);

    // Without reuse the view's partial aggregate is a stage twice; with it, once, read twice.
    assertThat(partialShuffles(separate)).hasSize(2);
    List<Stage> shared = partialShuffles(reused);
    assertThat(shared).hasSize(1);
    assertThat(reused.consumers(shared.get(0).id())).hasSize(2);
    assertThat(reused.stages()).hasSize(separate.stages().size() - 1);
    assertConsistent(reused);
    String text = reused.explain();
    assertThat(text).contains("Stage " + shared.get(0).id() + ": reused, shown above");
    assertThat(text.split("Stage " + shared.get(0).id() + ": tasks=", -1)).hasSize(2);
  }

  @Test
  void exchangesOverDifferentRowsAreNotReused() {
    PlanCodec codec = new PlanCodec(PlanCodec.DEFAULT_MAX_SHIPPED_BYTES);
    ctx.sql(
            "WITH a AS (SELECT k, sum(v) AS s FROM t GROUP BY k), "
                + "b AS (SELECT k, sum(w) AS s FROM u GROUP BY k) "
                + "SELECT a.k, a.s, b.s FROM a JOIN b ON a.k = b.k")
        .explain();
    StageGraph g = StagePlanner.plan(planned.last(), codec::encodeStage);
    assertThat(partialShuffles(g)).as(g.explain()).hasSize(2);
    assertThat(g.stages()).allSatisfy(s -> assertThat(g.consumers(s.id())).hasSizeLessThan(2));
  }

  private static List<Stage> partialShuffles(StageGraph g) {
    return g.stages().stream()
        .filter(s -> s.boundary() == Boundary.HASH_SHUFFLE)
        .filter(s -> s.root().toString().contains("PARTIAL"))
        .toList();
  }

  @Test
  void explainAndDotNameEveryStage() {
    StageGraph g = stages("SELECT k, count(*) FROM t GROUP BY k");
    String text = g.explain();
    String dot = g.toDot();
    for (Stage s : g.stages()) {
      assertThat(text).contains("Stage " + s.id() + ": tasks=" + s.taskCount());
      assertThat(dot).contains("s" + s.id() + " [label=\"Stage " + s.id());
    }
    assertThat(dot).startsWith("digraph stages {").contains("-> client");
  }

  /** Every reader matches its producer, and stages come after their inputs. */
  private static void assertConsistent(StageGraph g) {
    List<Integer> seen = new ArrayList<>();
    for (Stage s : g.stages()) {
      assertThat(seen).containsAll(s.inputStageIds());
      for (ShuffleReaderExec r : readers(s.root())) {
        Stage producer = g.stage(r.stageId());
        assertThat(r.producerTasks()).isEqualTo(producer.taskCount());
        if (r.mode() == ShuffleReaderExec.Mode.HASH) {
          assertThat(r.partitionCount()).isEqualTo(producer.output().partitionCount());
        } else {
          assertThat(producer.output().partitionCount()).isEqualTo(1);
        }
        assertThat(s.inputStageIds()).contains(producer.id());
      }
      seen.add(s.id());
    }
  }

  private static List<ShuffleReaderExec> readers(ExecutionPlan plan) {
    List<ShuffleReaderExec> out = new ArrayList<>();
    if (plan instanceof ShuffleReaderExec r) {
      out.add(r);
    }
    for (ExecutionPlan c : plan.children()) {
      out.addAll(readers(c));
    }
    return out;
  }
}
