package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Correlated subqueries whose correlation Calcite's sub-query rules or decorrelator lost: the plan
 * kept a {@code $cor} field ("cannot be evaluated here") or, worse, joined the subquery
 * uncorrelated. Random query generator, seed 20261204 (issue 13); every answer is DuckDB's on the
 * same data. Three partitions and batches of four rows, to run through exchanges.
 */
@Timeout(120)
class SubQueryCorrelationTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(4));
    ctx.sql("create table o (k int, j int, g int)");
    ctx.sql("insert into o values (1, 0, 1), (2, 5, 1), (3, 1, 2), (null, 2, 2), (4, 3, 3)");
    ctx.sql("create table s (k int, v int, d int)");
    ctx.sql(
        "insert into s values (1, 10, 1), (1, 20, 2), (2, 30, 1), (3, null, 5), (null, 40, 0),"
            + " (4, 50, 3)");
    ctx.sql("create table u (w int)");
    ctx.sql("insert into u values (10), (30), (40)");
  }

  @AfterEach
  void tearDown() {
    assertThat(ctx.allocator().getChildAllocators()).noneMatch(a -> a.getName().contains("query-"));
    ctx.close();
  }

  private List<String> rows(String sql) {
    List<VectorSchemaRoot> batches = ctx.sql(sql).collect();
    List<String> out = new ArrayList<>();
    try {
      for (VectorSchemaRoot b : batches) {
        for (int r = 0; r < b.getRowCount(); r++) {
          List<String> cells = new ArrayList<>();
          for (FieldVector v : b.getFieldVectors()) {
            Object o = v.getObject(r);
            cells.add(o == null ? "null" : o.toString());
          }
          out.add(String.join("|", cells));
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    return out;
  }

  @Test
  void aCorrelatedScalarSubqueryOnTheLeftOfInIsRewrittenFirst() {
    // The IN was rewritten first and its left operand landed in a join condition where nothing
    // defined o's variable: "$cor0.k cannot be evaluated here" (queries 10956, 62871, 67737). With
    // the IN correlated too, every u row was counted for every o row (25 rows instead of 5).
    assertThat(
            rows(
                "select o.k, (select min(s.v) from s where s.k = o.k) in (select w from u) from o"
                    + " order by 1"))
        .containsExactly("1|true", "2|true", "3|null", "4|false", "null|null");
    assertThat(
            rows(
                "select o.k from o where (select max(s.v) from s where s.k = o.k) in (select w"
                    + " from u) order by 1"))
        .containsExactly("2");
    assertThat(
            rows(
                "select o.k, (select min(s.v) from s where s.k = o.k) not in (select w from u"
                    + " where w > o.j * 10) from o order by 1"))
        .containsExactly("1|false", "2|true", "3|null", "4|true", "null|null");
  }

  @Test
  void everySubqueryOfASelectListKeepsItsCorrelation() {
    // After rewriting one subquery of the list, the projection lost its variables, so the next
    // correlated one was joined uncorrelated: a $cor left in the plan (queries 14504, 27928), or
    // with two correlated scalar subqueries every s row for every o row (20 rows instead of 5).
    assertThat(
            rows(
                "select o.k, (select max(w) from u), (select sum(s.v) from s where s.k = o.k)"
                    + " from o order by 1"))
        .containsExactly("1|40|30", "2|40|30", "3|40|null", "4|40|50", "null|40|null");
    assertThat(
            rows(
                "select o.k, (select min(s.v) from s where s.k = o.k), (select max(s.d) from s"
                    + " where s.k = o.j) from o order by 1"))
        .containsExactly("1|10|null", "2|30|null", "3|null|2", "4|50|5", "null|null|1");
    assertThat(
            rows(
                "select o.k, (select count(*) from u), o.k in (select s.k from s where s.d >"
                    + " o.j) from o order by 1"))
        .containsExactly("1|3|true", "2|3|false", "3|3|true", "4|3|false", "null|3|null");
  }

  @Test
  void aSubqueryInHavingIsCorrelatedByTheHavingFilter() {
    // The converter declares a HAVING subquery's variable on the projection above the filter (or,
    // with a correlated subquery in the select list, nowhere), so the EXISTS was joined
    // uncorrelated: a $cor left in the plan (queries 15323, 91718 and other HAVING queries), or
    // each group four times.
    assertThat(
            rows(
                "select g from o group by g having count(*) > (select count(*) from u where w >"
                    + " 100) and not (not exists (select 1 from s where s.d = o.g)) order by 1"))
        .containsExactly("1", "2", "3");
    assertThat(
            rows(
                "select g from o group by g having max(j) > (select min(w) from u) / 10 and"
                    + " (exists (select 1 from s where s.k = o.g and s.v > 15)) is not true"
                    + " order by 1"))
        .containsExactly("3");
    assertThat(
            rows(
                "select g, (select count(*) from s where s.d = o.g) from o group by g having"
                    + " (select max(w) from u) > 0 and not (not exists (select 1 from s where"
                    + " s.k = o.g)) order by 1"))
        .containsExactly("1|2", "2|1", "3|1");
  }

  @Test
  void aScalarAggregateCorrelatedBelowItsFilterIsDecorrelatedWhole() {
    // Calcite's scalar-aggregate rule turned the top filter's correlation into a join condition
    // and left the derived table's w.j behind, unbound (queries 88349, 96609, 30446).
    assertThat(
            rows(
                "select w.k, (select coalesce(min(x.v), -1) from (select * from s where s.k <>"
                    + " w.j) x join u on x.v = u.w where x.d = w.g) from (select k, j, g from o"
                    + " order by k limit 1) w"))
        .containsExactly("1|10");
    assertThat(
            rows(
                "select w.k from (select k, j, g from o order by k limit 1) w where w.k <"
                    + " (select coalesce(sum(x.v), 0) from (select * from s where s.k <> w.j) x"
                    + " join u on x.v = u.w where x.d = w.g)"))
        .containsExactly("1");
    assertThat(
            rows(
                "select w.k, (select coalesce(min(x.v), -1) from (select * from s where s.k <>"
                    + " w.j) x join u on x.v = u.w where x.d = w.g) from (select k, j, g from o"
                    + " order by k desc nulls last limit 1) w"))
        .containsExactly("4|-1");
  }
}
