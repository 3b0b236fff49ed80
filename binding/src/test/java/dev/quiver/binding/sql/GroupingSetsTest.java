package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.settings.SessionConfig;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GROUPING SETS, ROLLUP, CUBE and GROUPING(...): one aggregate keyed by the grouping set, split
 * into partial and final aggregation over several partitions (results checked against what
 * PostgreSQL and DuckDB return).
 */
@Timeout(60)
class GroupingSetsTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
    ctx.sql("CREATE TABLE s(r VARCHAR, c VARCHAR, n INTEGER NOT NULL, f BOOLEAN)");
    ctx.sql(
        "INSERT INTO s VALUES ('east', 'a', 1, true), ('east', 'b', 2, false),"
            + " ('west', 'a', 3, true), ('west', 'a', 4, NULL), (NULL, 'b', 5, true)");
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private List<String> rows(String sql) {
    List<VectorSchemaRoot> batches = ctx.sql(sql).collect();
    List<String> out = new ArrayList<>();
    try {
      for (VectorSchemaRoot b : batches) {
        for (int i = 0; i < b.getRowCount(); i++) {
          List<String> cells = new ArrayList<>();
          for (FieldVector v : b.getFieldVectors()) {
            Object o = v.getObject(i);
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
  void rollupAddsSubtotalsAndAGrandTotal() {
    assertThat(
            rows(
                "SELECT r, c, sum(n) AS total, count(*) AS cnt FROM s GROUP BY ROLLUP(r, c)"
                    + " ORDER BY r NULLS LAST, c NULLS LAST, total"))
        .containsExactly(
            "east|a|1|1",
            "east|b|2|1",
            "east|null|3|2",
            "west|a|7|2",
            "west|null|7|2",
            // The group of r = NULL (a real NULL) and the grand total, told apart by GROUPING.
            "null|b|5|1",
            "null|null|5|1",
            "null|null|15|5");
  }

  @Test
  void groupingTellsSubtotalRowsFromNullKeys() {
    assertThat(
            rows(
                "SELECT r, GROUPING(r) AS g, sum(n) AS total FROM s GROUP BY ROLLUP(r)"
                    + " ORDER BY GROUPING(r), r NULLS LAST"))
        .containsExactly("east|0|3", "west|0|7", "null|0|5", "null|1|15");
    assertThat(
            rows(
                "SELECT r, c, GROUPING(r, c) AS g, GROUPING(c, r) AS h, count(*) AS k FROM s"
                    + " GROUP BY CUBE(r, c) HAVING GROUPING(r, c) > 0 ORDER BY g, r NULLS LAST,"
                    + " c NULLS LAST"))
        .containsExactly(
            "east|null|1|2|2",
            "west|null|1|2|2",
            "null|null|1|2|1",
            "null|a|2|1|3",
            "null|b|2|1|2",
            "null|null|3|3|5");
  }

  @Test
  void groupingSetsWithFiltersAndDistinct() {
    assertThat(
            rows(
                "SELECT r, c, count(*) FILTER (WHERE f) AS flagged, count(DISTINCT c) AS kinds,"
                    + " max(n) AS top FROM s GROUP BY GROUPING SETS ((r), (c), ())"
                    + " ORDER BY GROUPING(r), GROUPING(c), r NULLS LAST, c NULLS LAST"))
        .containsExactly(
            "east|null|1|2|2",
            "west|null|1|1|4",
            "null|null|1|1|5",
            "null|a|2|1|4",
            "null|b|1|1|5",
            "null|null|3|2|5");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT count(*) AS k, sum(n) AS t FROM s WHERE n > 100 GROUP BY ROLLUP(r)",
        "SELECT count(*) AS k, sum(n) AS t FROM s WHERE n > 100 GROUP BY CUBE(r, c)",
        "SELECT count(*) AS k, sum(n) AS t FROM s WHERE n > 100 GROUP BY GROUPING SETS ((r), ())"
      })
  void theGrandTotalHasARowOverNoInput(String sql) {
    assertThat(rows(sql)).containsExactly("0|null");
  }

  @Test
  void setsWithoutAGrandTotalHaveNoRowsOverNoInput() {
    assertThat(rows("SELECT count(*) FROM s WHERE n > 100 GROUP BY GROUPING SETS ((r), (c))"))
        .isEmpty();
  }

  @Test
  void repeatedGroupingSetsRepeatTheirRows() {
    assertThat(
            rows(
                "SELECT c, count(*) AS k FROM s GROUP BY GROUPING SETS ((c), (c), ())"
                    + " ORDER BY c NULLS LAST, k"))
        .containsExactly("a|3", "a|3", "b|2", "b|2", "null|5");
  }

  @Test
  void columnsKeepTheirNamesAndNullability() {
    var schema = ctx.sql("SELECT c, GROUPING(c), sum(n) FROM s GROUP BY ROLLUP(c)").schema();
    assertThat(schema.getFields().stream().map(Field::getName).toList())
        .containsExactly("c", "grouping(c)", "sum(n)");
    assertThat(schema.getFields().get(0).isNullable()).isTrue();
  }

  @Test
  void explainShowsOnePartialAndFinalAggregateKeyedByTheGroupingSet() {
    String plan = ctx.sql("SELECT r, sum(n) FROM s GROUP BY ROLLUP(r)").explain();
    assertThat(plan).contains("mode=PARTIAL").contains("mode=FINAL").contains("$gid");
  }
}
