package dev.quiver.binding.unnest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.sql.SessionState;
import dev.quiver.binding.sql.SqlRows;
import dev.quiver.binding.sql.StatementRunner;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Correlated subqueries of every shape Quiver's unnesting handles, each checked against DuckDB on
 * the same data at one and three partitions (batches of three rows, so that exchanges and several
 * batches are involved), and checked to have been unnested by {@link Unnesting} itself, not by the
 * Calcite fallback.
 */
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnnestingTest {
  private static final List<String> SETUP =
      List.of(
          "create table o (k int, j int, g int)",
          "insert into o values (1, 0, 1), (2, 5, 1), (3, 1, 2), (null, 2, 2), (4, 3, 3), (1, 7,"
              + " 3)",
          "create table s (k int, v int, d int)",
          "insert into s values (1, 10, 1), (1, 20, 2), (2, 30, 1), (3, null, 5), (null, 40, 0),"
              + " (4, 50, 3), (5, 60, 7)",
          "create table u (w int, d int)",
          "insert into u values (10, 1), (30, 1), (40, 0), (null, 3)");

  /** Queries Quiver's unnesting must handle itself; each is compared with DuckDB. */
  static Stream<String> queries() {
    return Stream.of(
        // Scalar aggregates, with and without the COUNT bug.
        "select o.k, (select max(s.v) from s where s.k = o.k) from o",
        "select o.k, (select count(*) from s where s.k = o.k) from o",
        "select o.k, (select count(s.v) + 1 from s where s.k = o.k) from o",
        "select o.k, (select coalesce(sum(s.v), -1) from s where s.k = o.k and s.d < o.j) from o",
        "select o.k from o where o.j < (select count(*) from s where s.k = o.k)",
        "select o.k from o where 20 < (select min(s.v) from s where s.k = o.k)",
        // Correlation that is not an equality: the domain is joined.
        "select o.k, (select count(*) from s where s.v > o.j * 10) from o",
        "select o.k, (select max(s.v) from s where s.k <> o.k) from o",
        "select o.j, (select sum(s.v) from s where s.k is not distinct from o.k) from o",
        // Scalar subqueries without an aggregate (single-row check).
        "select o.j, (select s.v from s where s.k = o.k and s.d = o.g) from o",
        "select o.j, (select u.w from u where u.d = o.g - 1 and u.w is not null order by u.w limit"
            + " 1) from o",
        // EXISTS / IN / NOT IN / quantified, in SELECT and WHERE.
        "select o.k, exists (select 1 from s where s.k = o.k and s.v > 15) from o",
        "select o.j from o where o.k in (select s.k from s where s.d <> o.g)",
        "select o.j from o where o.k not in (select s.k from s where s.d > o.g)",
        "select o.j, o.g in (select s.d from s where s.k = o.k) from o",
        "select o.j from o where o.j < all (select s.d from s where s.k = o.k)",
        "select o.j from o where o.j > some (select s.d from s where s.v > o.j)",
        // Aggregates with GROUP BY, and HAVING, inside the subquery.
        "select o.k, (select count(*) from (select s.d from s where s.k = o.k group by s.d) t)"
            + " from o",
        "select o.j, (select count(*) from (select s.d, count(*) as c from s where s.k = o.k"
            + " group by s.d) t where t.c > o.g - 2) from o",
        "select o.j from o where exists (select s.d from s where s.k = o.k and s.d > o.g group by"
            + " s.d having count(*) > 0)",
        // Joins inside the subquery, correlated on either side or in the condition.
        "select o.k, (select count(*) from s join u on s.d = u.d where s.k = o.k) from o",
        "select o.k, (select count(*) from s left join u on s.d = u.d where u.w > o.j * 5 or"
            + " s.k = o.k) from o",
        "select o.k, (select max(u.w) from u left join s on s.d = u.d where s.k = o.k or s.k is"
            + " null) from o",
        "select o.k, (select count(*) from u right join s on s.d = u.d where s.k = o.k) from o",
        // Set operations.
        "select o.k, (select count(*) from (select s.v from s where s.k = o.k union all select"
            + " u.w from u where u.d = o.g) t) from o",
        "select o.k, (select count(*) from (select s.d from s where s.k = o.k union select u.d"
            + " from u) t) from o",
        "select o.k, (select count(*) from (select s.d from s where s.k = o.k except select u.d"
            + " from u where u.w > o.j) t) from o",
        // LIMIT / OFFSET / ORDER BY and window functions inside.
        "select o.k, (select max(t.v) from (select s.v from s where s.k = o.k order by s.v desc"
            + " limit 1 offset 1) t) from o",
        "select o.k, (select sum(t.v) from (select s.v from s where s.k <= o.k order by s.v"
            + " limit 2) t) from o",
        "select o.k, (select max(t.r) from (select row_number() over (order by s.v) as r from s"
            + " where s.k = o.k) t) from o",
        "select o.k, (select sum(t.c) from (select count(*) over (partition by s.d) as c from s"
            + " where s.v > o.j) t) from o",
        // Nested correlation, a subquery reading two levels out.
        "select o.k, (select count(*) from s where s.k = o.k and s.v > (select min(u.w) from u"
            + " where u.d = s.d)) from o",
        "select o.k, (select count(*) from s where (select sum(u.w) from u where u.d = o.g and"
            + " u.w > s.v) is null) from o",
        "select o.k from o where exists (select 1 from s where s.k = o.k and exists (select 1"
            + " from u where u.d = s.d and u.w > o.j))",
        // Correlated subqueries in HAVING and ORDER BY, and two in one select list.
        "select t.g, t.c from (select o.g, count(*) as c from o group by o.g) t where t.c >"
            + " (select count(*) from s where s.d = t.g)",
        "select o.k, o.j from o order by (select count(*) from s where s.v > o.j * 10), o.j",
        "select (select min(s.v) from s where s.k = o.k), (select max(u.w) from u where u.d ="
            + " o.g) from o");
  }

  private Connection duckdb;
  private SessionState one;
  private SessionState three;

  @BeforeAll
  void open() throws Exception {
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
    try (java.sql.Statement s = duckdb.createStatement()) {
      for (String sql : SETUP) {
        s.execute(sql);
      }
    }
    one = session(1);
    three = session(3);
  }

  @AfterAll
  void close() throws Exception {
    duckdb.close();
    one.close();
    three.close();
  }

  static Stream<Arguments> queriesAtPartitions() {
    return queries().flatMap(q -> Stream.of(Arguments.of(q, 1), Arguments.of(q, 3)));
  }

  @ParameterizedTest
  @MethodSource("queriesAtPartitions")
  void answersAsDuckDb(String query, int partitions) throws Exception {
    SessionState state = partitions == 1 ? one : three;
    assertThat(sorted(quiver(state, query))).as(query).isEqualTo(sorted(duckdb(query)));
  }

  @ParameterizedTest
  @MethodSource("queries")
  void unnestsWithoutFallingBack(String query) {
    // Throws UnsupportedShape where the pipeline would fall back to Calcite.
    one.planning(() -> Unnesting.apply(one.pipeline().correlated(one.pipeline().parse(query))));
  }

  @Test
  void aScalarSubqueryWithTwoRowsFailsOnlyForTheOuterRowsThatReadIt() throws Exception {
    // s.k = 1 has two rows: an error for the outer rows with k = 1, none for the others.
    assertThat(
            sorted(
                quiver(
                    three,
                    "select o.k, (select s.v from s where s.k = o.k) from o where" + " o.k > 1")))
        .containsExactly("2|30", "3|null", "4|50");
    assertThatThrownBy(
            () -> quiver(three, "select o.k, (select s.v from s where s.k = o.k) from o"))
        .hasMessageContaining("More than one row");
  }

  @Test
  void aShapeItRefusesIsPlannedByTheCalcitePath() {
    // A correlated FULL join: refused as a whole, so the query takes Calcite's decorrelator
    // instead of failing (DuckDB refuses it: "Unsupported join type for flattening").
    String query =
        "select o.k, (select count(*) from (select * from s where s.k = o.k) a full join u on"
            + " a.d = u.d) from o";
    assertThatThrownBy(
            () ->
                one.planning(
                    () -> Unnesting.apply(one.pipeline().correlated(one.pipeline().parse(query)))))
        .hasRootCauseInstanceOf(Unnesting.UnsupportedShape.class)
        .hasMessageContaining("correlated FULL join");
    assertThat(sorted(quiver(one, query)))
        .containsExactly("1|5", "1|5", "2|4", "3|5", "4|4", "null|4");
  }

  private static SessionState session(int partitions) {
    SessionState state =
        new SessionState(
            new SessionConfig()
                .withTargetPartitions(partitions)
                .withBatchSize(3)
                .set(BindingSettings.UNNESTING.key(), "quiver"));
    StatementRunner runner = new StatementRunner(state);
    for (String sql : SETUP) {
      runner.run(sql).collect().forEach(VectorSchemaRoot::close);
    }
    return state;
  }

  private static List<String> quiver(SessionState state, String sql) {
    return SqlRows.of(new StatementRunner(state).run(sql));
  }

  private List<String> duckdb(String sql) throws Exception {
    try (java.sql.Statement s = duckdb.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      int n = r.getMetaData().getColumnCount();
      List<String> out = new ArrayList<>();
      while (r.next()) {
        List<String> cells = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          Object o = r.getObject(i);
          cells.add(o == null ? "null" : o.toString());
        }
        out.add(String.join("|", cells));
      }
      return out;
    }
  }

  private static List<String> sorted(List<String> rows) {
    return rows.stream().sorted().toList();
  }
}
