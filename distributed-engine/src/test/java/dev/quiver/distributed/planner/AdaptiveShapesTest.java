package dev.quiver.distributed.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which stages adaptive execution may reshape, read off the plans of SQL queries: shuffled joins
 * and final aggregates have aligned inputs, the preserved sides of joins are splittable, and the
 * final stage, scans and FULL joins are left as planned.
 */
@Timeout(60)
class AdaptiveShapesTest {
  private PlannedQueries planned;

  @BeforeEach
  void setUp() {
    planned = new PlannedQueries();
  }

  @AfterEach
  void tearDown() {
    planned.close();
  }

  private StageGraph stages(String sql) {
    return planned.stages(sql);
  }

  /** The shapes of the stages that read both t's and u's shuffles (the join stages). */
  private List<Optional<AdaptiveShapes.Shape>> joinStageShapes(StageGraph g) {
    return g.stages().stream()
        .filter(s -> s.inputStageIds().size() == 2 && hasJoin(s.root()))
        .map(s -> AdaptiveShapes.of(s, g))
        .toList();
  }

  @Test
  void innerJoinAggregatedAboveHasBothSidesAlignedAndSplittable() {
    StageGraph g = stages("SELECT t.v, count(*) FROM t JOIN u ON t.k = u.k GROUP BY t.v");
    List<Optional<AdaptiveShapes.Shape>> shapes = joinStageShapes(g);
    assertThat(shapes).hasSize(1);
    AdaptiveShapes.Shape shape = shapes.get(0).orElseThrow();
    assertThat(shape.aligned()).hasSize(2);
    assertThat(shape.splittable()).containsExactlyInAnyOrderElementsOf(shape.aligned());
  }

  @Test
  void leftJoinSplitsOnlyItsPreservedSide() {
    StageGraph g = stages("SELECT t.v, count(u.w) FROM t LEFT JOIN u ON t.k = u.k GROUP BY t.v");
    Stage join = g.stages().stream().filter(s -> hasJoin(s.root())).findFirst().orElseThrow();
    AdaptiveShapes.Shape shape = AdaptiveShapes.of(join, g).orElseThrow();
    assertThat(shape.aligned()).hasSize(2);
    assertThat(shape.splittable()).hasSize(1);
    // The planner may have swapped the sides into a RIGHT join: what is split is t's side.
    HashJoinExec hj = (HashJoinExec) join(join.root()).orElseThrow();
    int preservedSide = hj.joinType() == JoinType.LEFT ? 0 : 1;
    assertThat(hj.joinType()).isIn(JoinType.LEFT, JoinType.RIGHT);
    assertThat(shape.splittable()).containsExactly(readerOf(join.root(), preservedSide));
  }

  /** The producer stage the first join's child {@code side} reads. */
  private static int readerOf(ExecutionPlan root, int side) {
    ExecutionPlan child = join(root).orElseThrow().children().get(side);
    while (!(child instanceof ShuffleReaderExec)) {
      child = child.children().get(0);
    }
    return ((ShuffleReaderExec) child).stageId();
  }

  private static Optional<ExecutionPlan> join(ExecutionPlan node) {
    if (node instanceof HashJoinExec) {
      return Optional.of(node);
    }
    return node.children().stream()
        .map(AdaptiveShapesTest::join)
        .flatMap(Optional::stream)
        .findFirst();
  }

  private static boolean hasJoin(ExecutionPlan p) {
    return join(p).isPresent();
  }

  @Test
  void stageWhoseMarksAreMergedRunsAsPlanned() {
    // u EXISTS-joined to a shuffled join: u is gathered, sorted and marked by every partition of
    // the join, and one task merges the marks, reading one input per task (as on a cluster).
    planned.ctx.sql("SET quiver.optimizer.shared_join_marks = false");
    planned.ctx.sql("SET quiver.optimizer.hash_join_collect_build_threshold_rows = 3");
    StageGraph g =
        stages(
            "SELECT * FROM u WHERE EXISTS (SELECT 1 FROM t JOIN t AS t2 ON t.k = t2.k WHERE t2.v = u.w)");
    Stage marking =
        g.stages().stream()
            .filter(s -> s.root() instanceof HashJoinExec j && j.emitsMarks())
            .findFirst()
            .orElseThrow();
    assertThat(marking.taskCount()).isGreaterThan(1);
    assertThat(AdaptiveShapes.of(marking, g))
        .as("coalesced tasks would leave the merge inputs without rows")
        .isEmpty();
  }

  @Test
  void fullJoinSplitsNeitherSide() {
    StageGraph g = stages("SELECT t.v, count(u.w) FROM t FULL JOIN u ON t.k = u.k GROUP BY t.v");
    Stage join = g.stages().stream().filter(s -> hasJoin(s.root())).findFirst().orElseThrow();
    AdaptiveShapes.Shape shape = AdaptiveShapes.of(join, g).orElseThrow();
    assertThat(shape.aligned()).hasSize(2);
    assertThat(shape.splittable()).isEmpty();
  }

  @Test
  void finalAggregateIsAlignedButNotSplittable() {
    StageGraph g = stages("SELECT k, sum(v) FROM t GROUP BY k ORDER BY k");
    Stage finalAgg =
        g.stages().stream()
            .filter(s -> s != g.finalStage() && !s.inputStageIds().isEmpty())
            .findFirst()
            .orElseThrow();
    AdaptiveShapes.Shape shape = AdaptiveShapes.of(finalAgg, g).orElseThrow();
    assertThat(shape.aligned()).hasSize(1);
    assertThat(shape.splittable()).as("a final aggregate needs all rows of a key").isEmpty();
  }

  @Test
  void scanStagesRunAsPlannedAndTheFinalStageIsNeverSplit() {
    StageGraph g = stages("SELECT t.v, count(*) FROM t JOIN u ON t.k = u.k GROUP BY t.v");
    for (Stage s : g.stages()) {
      if (s.inputStageIds().isEmpty()) {
        assertThat(AdaptiveShapes.of(s, g)).as("stage " + s.id()).isEmpty();
      }
    }
    // The client reads final task i as partition i: coalescing is fine, more tasks are not.
    AdaptiveShapes.Shape last = AdaptiveShapes.of(g.finalStage(), g).orElseThrow();
    assertThat(last.aligned()).isNotEmpty();
    assertThat(last.splittable()).isEmpty();
  }

  @Test
  void aSortedMergeAboveKeepsTheStagesTaskCount() {
    StageGraph g = stages("SELECT t.k, u.w FROM t JOIN u ON t.k = u.k ORDER BY t.k");
    Stage join = g.stages().stream().filter(s -> hasJoin(s.root())).findFirst().orElseThrow();
    AdaptiveShapes.Shape shape = AdaptiveShapes.of(join, g).orElseThrow();
    assertThat(shape.aligned()).hasSize(2);
    assertThat(shape.splittable()).as("one sorted run per planned task").isEmpty();
  }

  @Test
  void aGatherThroughACoalesceTakesMoreTasks() {
    StageGraph g = stages("SELECT count(*), sum(u.w) FROM t JOIN u ON t.k = u.k");
    Stage join = g.stages().stream().filter(s -> hasJoin(s.root())).findFirst().orElseThrow();
    assertThat(AdaptiveShapes.of(join, g).orElseThrow().splittable()).hasSize(2);
  }
}
