package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.RelLogicalPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.aggregate.HashAggregateExec;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.NestedLoopJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.operator.LimitExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.operator.UnionExec;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.physical.sort.SortPreservingMergeExec;
import dev.quiver.binding.physical.window.WindowExec;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.Holder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class PhysicalPlanTest {
  private SessionContext ctx;
  private final PlanCapture capture = new PlanCapture();

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(4));
    Tpch.register(ctx);
    ctx.withExtensions(capture);
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private ExecutionPlan plan(String sql) {
    String text = ctx.sql(sql).explain();
    assertThat(text).contains("Logical plan:").contains("Physical plan:").contains("partitions=");
    return capture.last();
  }

  private static <T> List<T> all(ExecutionPlan plan, Class<T> type) {
    return PlanCapture.nodes(plan).stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void groupedAggregateIsPartialThenHashRepartitionThenFinal() {
    ExecutionPlan p =
        plan("select l_returnflag, sum(l_quantity) from lineitem group by l_returnflag");
    assertThat(p).isInstanceOf(HashAggregateExec.class);
    ExecutionPlan exchange = p.children().get(0);
    assertThat(exchange).isInstanceOf(RepartitionExec.class);
    assertThat(exchange.outputPartitioning().kind()).isEqualTo(Partitioning.Kind.HASH);
    assertThat(exchange.partitionCount()).isEqualTo(4);
    assertThat(exchange.children().get(0)).isInstanceOf(HashAggregateExec.class);
  }

  @Test
  void aComputationTwoOutputsRepeatIsEvaluatedOnceBelowThem() {
    // TPC-H Q1: l_extendedprice * (1 - l_discount) is a sum of its own and a factor of another.
    String sql =
        "select l_returnflag, sum(l_extendedprice * (1 - l_discount)) as a,"
            + " sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as b,"
            + " sum(case when l_quantity <> 0 then l_tax / l_quantity end) as c,"
            + " max(case when l_quantity <> 0 then l_tax / l_quantity + 1 end) as d"
            + " from lineitem group by l_returnflag";
    String text = ctx.sql(sql).explain();
    assertThat(text).containsOnlyOnce("(1 - l_discount");
    assertThat(text).contains("$common0");
    // The guarded division stays inside its CASE: hoisting it would divide every row.
    assertThat(text).doesNotContain("$common1");
    List<ProjectionExec> projections = all(capture.last(), ProjectionExec.class);
    assertThat(projections).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void columnRestrictionsImpliedByEveryBranchOfAnOrReachTheScans() {
    // TPC-H Q7's nation pair: each nation scan gets n_name IN ('FRANCE', 'GERMANY') while the
    // pairing itself stays on the join.
    ExecutionPlan p =
        plan(
            "select n1.n_name, n2.n_name from supplier, customer, nation n1, nation n2"
                + " where s_nationkey = n1.n_nationkey and c_nationkey = n2.n_nationkey"
                + " and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY')"
                + " or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE'))");
    List<String> restrictions =
        all(p, dev.quiver.binding.physical.operator.FilterExec.class).stream()
            .map(f -> f.predicate().toString())
            .toList();
    assertThat(restrictions)
        .hasSize(2)
        .allMatch(t -> t.matches("n_name@\\d+ IN \\('FRANCE', 'GERMANY'\\)"));
    // The pairing itself is still checked where both nations meet.
    String text = dev.quiver.binding.planner.PlanFormatter.format(p, false);
    assertThat(text).contains("= 'FRANCE') AND (n_name@");
  }

  @Test
  void existsOverAJoinBecomesASemiJoinAndNotExistsAnAntiJoin() {
    // TPC-H Q21's shape: decorrelating would compute the outer join once more per subquery.
    ExecutionPlan p =
        plan(
            "select s_name from supplier, lineitem l1, orders where s_suppkey = l1.l_suppkey"
                + " and o_orderkey = l1.l_orderkey and o_orderstatus = 'F'"
                + " and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey"
                + " and l2.l_suppkey <> l1.l_suppkey)"
                + " and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey"
                + " and l3.l_suppkey <> l1.l_suppkey and l3.l_receiptdate > l3.l_commitdate)");
    List<JoinType> types = all(p, HashJoinExec.class).stream().map(HashJoinExec::joinType).toList();
    assertThat(types).contains(JoinType.SEMI, JoinType.ANTI);
    assertThat(all(p, HashAggregateExec.class)).isEmpty();
    // The outer rows are estimated far fewer than lineitem's: both joins hash them and mark the
    // rows lineitem matches instead of hashing lineitem.
    assertThat(all(p, HashJoinExec.class))
        .filteredOn(j -> j.joinType() != JoinType.INNER)
        .hasSize(2)
        .allMatch(HashJoinExec::semiBuildsLeft);
  }

  @Test
  void existsOverOneTableMarksTheGatheredOuterRowsUnlessTheyMightNotFitInMemory() {
    // TPC-H Q4's shape: in one process the semi join gathers the filtered orders once and marks
    // those lineitem matches; lineitem is neither aggregated nor repartitioned.
    String q4 =
        "select o_orderpriority, count(*) from orders where o_orderdate >= date '1993-07-01'"
            + " and o_orderdate < date '1993-10-01' and exists (select * from lineitem"
            + " where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)"
            + " group by o_orderpriority";
    ExecutionPlan p = plan(q4);
    assertThat(all(p, HashJoinExec.class))
        .singleElement()
        .satisfies(j -> assertThat(j.joinType()).isEqualTo(JoinType.SEMI))
        .satisfies(j -> assertThat(j.semiBuildsLeft()).isTrue())
        .satisfies(j -> assertThat(j.mode()).isEqualTo(PartitionMode.COLLECT_BUILD));
    assertThat(all(p, RepartitionExec.class))
        .filteredOn(r -> r.outputPartitioning().kind() == Partitioning.Kind.HASH)
        .hasSize(1); // the aggregate's
    // Gathered rows whose marks merge in memory cannot spill: under a memory limit they might not
    // fit in, the join takes a plan that can.
    ctx.sql("SET quiver.execution.memory_limit = 67108864");
    assertThat(all(plan(q4), HashJoinExec.class))
        .noneMatch(j -> j.semiBuildsLeft() && j.mode() == PartitionMode.COLLECT_BUILD);
  }

  @Test
  void globalAggregateCoalescesPartialResults() {
    ExecutionPlan p = plan("select count(*), max(l_shipdate) from lineitem");
    assertThat(p).isInstanceOf(HashAggregateExec.class);
    assertThat(p.children().get(0)).isInstanceOf(CoalescePartitionsExec.class);
    assertThat(p.children().get(0).children().get(0)).isInstanceOf(HashAggregateExec.class);
  }

  @Test
  void tpchQ5UsesOnlyHashJoins() {
    ExecutionPlan p = plan(Tpch.Q5);
    assertThat(all(p, HashJoinExec.class)).hasSize(5);
    assertThat(all(p, NestedLoopJoinExec.class)).isEmpty();
  }

  @Test
  void largeJoinsRepartitionBothSidesOnTheKeys() {
    // orders' 1.5 million rows are over this threshold (the default collects up to 2 million).
    ctx.sql("SET quiver.optimizer.hash_join_collect_build_threshold_rows = 1000000");
    ExecutionPlan p =
        plan("select o_orderdate, l_quantity from orders join lineitem on o_orderkey = l_orderkey");
    HashJoinExec join = all(p, HashJoinExec.class).get(0);
    for (ExecutionPlan side : join.children()) {
      assertThat(side).isInstanceOf(RepartitionExec.class);
      assertThat(side.outputPartitioning().kind()).isEqualTo(Partitioning.Kind.HASH);
    }
  }

  @Test
  void smallerInputBecomesTheBuildSideAndColumnsKeepTheirOrder() {
    ExecutionPlan p = plan("select * from lineitem join nation on l_suppkey = n_nationkey");
    assertThat(p).isInstanceOf(ProjectionExec.class);
    assertThat(p.schema().getFields().get(0).getName()).isEqualTo("l_orderkey");
    HashJoinExec join = all(p, HashJoinExec.class).get(0);
    ExecutionPlan build = join.children().get(0);
    assertThat(build.schema().getFields().get(0).getName()).isEqualTo("n_nationkey");
    // 25 rows is under the collect threshold: no repartition of the probe side.
    assertThat(join.children().get(1).outputPartitioning().kind())
        .isNotEqualTo(Partitioning.Kind.HASH);
    assertThat(build.partitionCount()).isEqualTo(1);
  }

  @Test
  void orderByLimitSortsPartitionsThenMergesWithTheFetch() {
    ExecutionPlan p = plan("select n_name from nation order by n_name limit 3");
    assertThat(p).isInstanceOf(SortPreservingMergeExec.class);
    assertThat(p.children().get(0)).isInstanceOf(SortExec.class);
    assertThat(p.partitionCount()).isEqualTo(1);
  }

  @Test
  void limitWithoutOrderCoalescesAndHintsTheScan() {
    ExecutionPlan p = plan("select n_name from nation limit 3");
    assertThat(p).isInstanceOf(LimitExec.class);
    assertThat(p.children().get(0)).isInstanceOf(CoalescePartitionsExec.class);
    StatsTable nation = (StatsTable) ctx.tableProvider("nation");
    assertThat(nation.lastRequest.get().limit()).hasValue(3);
  }

  @Test
  void scansReadOnlyNeededColumnsAndGetFilterHints() {
    plan("select l_quantity from lineitem where l_discount > 0.05");
    StatsTable lineitem = (StatsTable) ctx.tableProvider("lineitem");
    assertThat(lineitem.lastRequest.get().projection()).containsExactly(4, 6);
    assertThat(lineitem.lastRequest.get().filters()).hasSize(1);
    assertThat(lineitem.lastRequest.get().targetPartitions()).isEqualTo(4);
  }

  @Test
  void windowsRepartitionOnPartitionKeysThenSort() {
    ExecutionPlan p =
        plan(
            "select n_name, row_number() over (partition by n_regionkey order by n_name) from"
                + " nation");
    WindowExec window = all(p, WindowExec.class).get(0);
    ExecutionPlan sort = window.children().get(0);
    assertThat(sort).isInstanceOf(SortExec.class);
    assertThat(sort.children().get(0)).isInstanceOf(RepartitionExec.class);
  }

  @Test
  void unionDistinctAggregatesOverUnionAll() {
    ExecutionPlan all = plan("select n_name from nation union all select r_name from region");
    assertThat(all).isInstanceOf(UnionExec.class);
    ExecutionPlan distinct = plan("select n_name from nation union select r_name from region");
    assertThat(all(distinct, UnionExec.class)).hasSize(1);
    assertThat(all(distinct, HashAggregateExec.class)).isNotEmpty();
  }

  @Test
  void correlateLeftAfterDecorrelationIsAClearError() {
    try (SessionState state = new SessionState(new SessionConfig())) {
      Tpch.register(state);
      RelLogicalPlan plan =
          state.planning(
              () -> {
                RelBuilder b = state.pipeline().relBuilder();
                Holder<RexCorrelVariable> v = Holder.empty();
                RelNode rel =
                    b.scan("nation")
                        .variable(v::set)
                        .scan("region")
                        .filter(b.equals(b.field(v.get(), "n_regionkey"), b.field("r_regionkey")))
                        .correlate(JoinRelType.INNER, v.get().id)
                        .build();
                return new RelLogicalPlan(rel, name -> null);
              });
      assertThatThrownBy(() -> state.physicalPlan(plan))
          .isInstanceOf(QuiverException.class)
          .hasMessageContaining("correlated subquery");
    }
  }
}
