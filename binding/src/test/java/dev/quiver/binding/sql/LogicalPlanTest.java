package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class LogicalPlanTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext();
    Tpch.register(ctx);
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private String plan(String sql) {
    return ctx.sql(sql).logicalPlan().explain();
  }

  @ParameterizedTest
  @ValueSource(strings = {"Q2", "Q5", "Q7", "Q8", "Q9"})
  void multiTableJoinsAreReorderedWithoutCrossProducts(String query) throws Exception {
    String sql = (String) Tpch.class.getDeclaredField(query).get(null);
    String plan = plan(sql);
    assertThat(plan).contains("LogicalJoin").doesNotContain("condition=[true]");
    assertThat(plan).doesNotContain("Correlate").doesNotContain("MultiJoin");
  }

  @Test
  void onlyNeededColumnsAreScannedAndFiltersBecomeHints() {
    String plan = plan("select l_quantity from lineitem where l_discount > 0.05");
    assertThat(plan).contains("QuiverScan").contains("projection=[[4, 6]]").contains("filters=");
  }

  @Test
  void filterConditionsAndJoinKeysDoNotTravelAboveTheirNodes() {
    String plan =
        plan(
            "select o_orderpriority, l_quantity from orders join lineitem on o_orderkey ="
                + " l_orderkey where l_commitdate < l_receiptdate");
    // The dates stop at the filter: the join reads only the key and the quantity.
    assertThat(plan)
        .containsPattern(
            "LogicalProject\\(l_orderkey=\\[\\$0\\], l_quantity=\\[\\$1\\]\\)\n\\s+LogicalFilter");
  }

  @Test
  void constantsAreFolded() {
    String plan = plan(Tpch.Q1);
    assertThat(plan).contains("1998-09-02").doesNotContain("INTERVAL");
  }

  @Test
  void countDistinctNeedsNoDistinctAggregate() {
    String plan =
        plan("select n_regionkey, count(distinct n_name) from nation group by n_regionkey");
    // The output column is named count(DISTINCT n_name); no aggregate call is DISTINCT.
    assertThat(plan).doesNotContain("COUNT(DISTINCT");
  }

  @Test
  void intersectAndExceptBecomeAggregates() {
    String plan =
        plan(
            "select n_nationkey from nation intersect select s_nationkey from supplier "
                + "except select c_nationkey from customer");
    assertThat(plan).doesNotContain("LogicalIntersect").doesNotContain("LogicalMinus");
  }

  @Test
  void intersectAndExceptAllNumberTheCopiesOfEachRow() {
    String plan =
        plan(
            "select n_regionkey from nation intersect all select s_nationkey from supplier "
                + "except all select c_nationkey from customer");
    assertThat(plan)
        .doesNotContain("LogicalIntersect")
        .doesNotContain("LogicalMinus")
        .contains("ROW_NUMBER()");
  }

  @Test
  void decimalDivisionAndAverageAreDouble() {
    var schema =
        ctx.sql(
                "select sum(l_quantity) / sum(l_extendedprice) as r, avg(l_tax) as a,"
                    + " sum(l_quantity) as s from lineitem")
            .schema();
    ArrowType dbl = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    assertThat(schema.findField("r").getType()).isEqualTo(dbl);
    assertThat(schema.findField("a").getType()).isEqualTo(dbl);
    assertThat(schema.findField("s").getType()).isEqualTo(new ArrowType.Decimal(38, 2, 128));
  }

  @Test
  void unquotedIdentifiersAreCaseInsensitive() {
    var schema = ctx.sql("SELECT N_NAME AS Name FROM NATION").schema();
    assertThat(schema.getFields().get(0).getName()).isEqualTo("name");
  }

  @Test
  void correlatedSubqueriesAreDecorrelated() {
    String plan =
        plan(
            "select o_orderkey from orders where exists (select * from lineitem "
                + "where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)");
    assertThat(plan).doesNotContain("Correlate").contains("LogicalJoin");
  }

  @Test
  void aggregateJoinedOnItsGroupKeyIsComputedOnlyForTheKeysTheJoinCanMatch() {
    // TPC-H Q17: the average per part is needed only for the parts of one brand and container.
    String plan =
        plan(
            "select sum(l_extendedprice) / 7.0 from lineitem, part where p_partkey = l_partkey"
                + " and p_brand = 'Brand#23' and p_container = 'MED BOX' and l_quantity < ("
                + "select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)");
    assertThat(plan)
        .containsPattern(
            "LogicalAggregate\\(group=\\[\\{0}], agg#0=\\[AVG\\(\\$1\\)]\\)\\n\\s+"
                + "LogicalJoin\\(condition=\\[=\\(\\$0, \\$2\\)], joinType=\\[semi]\\)")
        .contains("LogicalProject(p_partkey=[$0])");
  }

  @Test
  void aggregateOnThePreservedSideOfAnOuterJoinKeepsAllItsGroups() {
    String plan =
        plan(
            "select t.l_partkey, t.total, p.p_name from (select l_partkey, sum(l_quantity) as"
                + " total from lineitem group by l_partkey) t left join part p"
                + " on p.p_partkey = t.l_partkey and p.p_size = 7");
    assertThat(plan).doesNotContain("semi");
  }

  @Test
  void aggregateJoinedWithAnUnfilteredTableIsNotReduced() {
    String plan =
        plan(
            "select p_name, t.total from part join (select l_partkey, sum(l_quantity) as total"
                + " from lineitem group by l_partkey) t on p_partkey = t.l_partkey");
    assertThat(plan).doesNotContain("semi");
  }
}
