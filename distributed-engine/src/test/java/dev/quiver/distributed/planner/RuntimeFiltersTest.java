package dev.quiver.distributed.planner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.physical.join.BloomFilterExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.distributed.shuffle.ShuffleReaderExec;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which scan stages get a runtime filter, read off the stage graphs of SQL queries: a scan joined
 * with an aggregate (whose size only running it tells) on a side whose unmatched rows the join
 * drops; never a preserved side, a join of two scans, or a scan of rows in memory.
 */
@Timeout(60)
class RuntimeFiltersTest {
  @TempDir Path dir;
  private PlannedQueries planned;

  /**
   * An aggregate keeping some of u's groups, joined below on its max(w), not its group key: its
   * stage (which reads the partial aggregates' stage) shuffles its rows by w for the join.
   */
  private static final String KEPT =
      "(SELECT k, max(w) AS w FROM u GROUP BY k HAVING max(w) > 3) a";

  @BeforeEach
  void setUp() {
    planned = new PlannedQueries(dir);
  }

  @AfterEach
  void tearDown() {
    planned.close();
  }

  private StageGraph stages(String sql) {
    return planned.stages(sql);
  }

  @Test
  void scanJoinedWithAnAggregateIsFilteredByItsKeys() {
    StageGraph g = stages("SELECT t.v, a.w FROM t JOIN " + KEPT + " ON t.k = a.w");
    Map<Integer, RuntimeFilters.Filter> filters = RuntimeFilters.of(g);
    assertThat(filters).hasSize(1);
    RuntimeFilters.Filter f = filters.values().iterator().next();
    Stage scan = g.stage(f.stageId());
    Stage keys = g.stage(f.keysStageId());
    assertThat(scan.inputStageIds()).isEmpty();
    assertThat(keys.inputStageIds()).isNotEmpty();
    assertThat(f.filteredRoot().schema()).isEqualTo(scan.root().schema());
    assertThat(f.filteredRoot().partitionCount()).isEqualTo(scan.root().partitionCount());
    HashJoinExec semi = (HashJoinExec) f.filteredRoot();
    assertThat(semi.joinType()).isEqualTo(JoinType.SEMI);
    assertThat(semi.mode()).isEqualTo(PartitionMode.COLLECT_BUILD);
    assertThat(semi.left()).isSameAs(scan.root());
    ShuffleReaderExec read = (ShuffleReaderExec) semi.right();
    assertThat(read.mode()).isEqualTo(ShuffleReaderExec.Mode.ALL);
    assertThat(read.stageId()).isEqualTo(keys.id());
    assertThat(read.partitionCount()).isEqualTo(1);
  }

  @Test
  void onlySidesWhoseUnmatchedRowsTheJoinDropsAreFiltered() {
    // t is the preserved side of the LEFT join, the optional one of the RIGHT join.
    assertThat(RuntimeFilters.of(stages("SELECT * FROM t LEFT JOIN " + KEPT + " ON t.k = a.w")))
        .isEmpty();
    assertThat(RuntimeFilters.of(stages("SELECT * FROM t RIGHT JOIN " + KEPT + " ON t.k = a.w")))
        .hasSize(1);
    assertThat(RuntimeFilters.of(stages("SELECT * FROM t FULL JOIN " + KEPT + " ON t.k = a.w")))
        .isEmpty();
    assertThat(RuntimeFilters.dropsUnmatched(JoinType.ANTI, true)).isFalse();
    assertThat(RuntimeFilters.dropsUnmatched(JoinType.ANTI, false)).isTrue();
    assertThat(RuntimeFilters.dropsUnmatched(JoinType.SEMI, true)).isTrue();
  }

  @Test
  void aScanOfRowsInMemoryHasNoFilter() {
    // Its plan carries the rows: a second plan would ship them twice.
    try (PlannedQueries inMemory = new PlannedQueries()) {
      assertThat(
              RuntimeFilters.of(
                  inMemory.stages("SELECT t.v, a.w FROM t JOIN " + KEPT + " ON t.k = a.w")))
          .isEmpty();
    }
  }

  @Test
  void aJoinOfTwoScansHasNoFilter() {
    assertThat(RuntimeFilters.of(stages("SELECT t.v, u.w FROM t JOIN u ON t.k = u.k"))).isEmpty();
  }

  @Test
  void theLargerOfTwoScansIsFilteredByTheSmallerOneThatFiltersItsRows() {
    Path file = dir.resolve("big.parquet");
    planned.ctx.sql(
        "COPY (SELECT t1.k * 64 + t2.k * 16 + t3.k * 4 + t4.k AS k, t1.v AS v"
            + " FROM t t1, t t2, t t3, t t4) TO '"
            + file
            + "' (FORMAT PARQUET, ROW_GROUP_SIZE 1)");
    planned.ctx.registerParquet("big", file.toString());
    StageGraph g = stages("SELECT b.v, u.w FROM big b JOIN u ON b.k = u.k WHERE u.w > 3");
    Map<Integer, RuntimeFilters.Filter> filters = RuntimeFilters.of(g);
    assertThat(filters).hasSize(1);
    RuntimeFilters.Filter f = filters.values().iterator().next();
    Stage scan = g.stage(f.stageId());
    Stage keys = g.stage(f.keysStageId());
    assertThat(StageGraph.planText(scan.root())).contains("big.parquet");
    assertThat(StageGraph.planText(keys.root())).contains("u.parquet").contains("FilterExec");
    BloomFilterExec bloom = (BloomFilterExec) f.bloomRoot();
    assertThat(bloom.input()).isSameAs(scan.root());
    assertThat(bloom.filterId()).isEqualTo(scan.id());
    assertThat(bloom.filter()).as("supplied by the task").isNull();
    assertThat(f.keys()).hasSize(1);
    assertThat(f.keys().get(0).dataType()).isEqualTo(bloom.keys().get(0).dataType());
    // Unfiltered, the smaller scan's keys would rule out nothing: no filter either way.
    assertThat(RuntimeFilters.of(stages("SELECT b.v, u.w FROM big b JOIN u ON b.k = u.k")))
        .isEmpty();
  }

  @Test
  void anAggregateJoinedOnItsGroupKeyInItsOwnStageHasNoFilter() {
    // The final aggregate's partitions already are the join's: it runs in the join's stage, so
    // its keys exist only once that stage runs.
    assertThat(
            RuntimeFilters.of(
                stages(
                    "SELECT t.v, a.w FROM t JOIN (SELECT k, max(w) AS w FROM u GROUP BY k) a"
                        + " ON t.k = a.k")))
        .isEmpty();
  }
}
