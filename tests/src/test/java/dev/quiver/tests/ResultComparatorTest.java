package dev.quiver.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.examples.tpch.TpchQueries;
import dev.quiver.examples.tpch.TpchQuery;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ResultComparatorTest {
  private static QueryResult result(List<Boolean> floating, Object[]... rows) {
    List<String> cols = new ArrayList<>();
    for (int i = 0; i < floating.size(); i++) {
      cols.add("c" + i);
    }
    List<List<Object>> list = new ArrayList<>();
    for (Object[] r : rows) {
      list.add(Arrays.asList(r));
    }
    return new QueryResult(cols, floating, list);
  }

  private static Object[] row(Object... values) {
    return values;
  }

  @Test
  void floatsMatchWithinRelativeToleranceOnly() {
    QueryResult e = result(List.of(false, true), row(1L, 1000.0));
    assertThat(
            ResultComparator.compare(
                e, result(List.of(false, true), row(1L, 1000.0 + 1e-7)), SortSpec.UNORDERED))
        .isNull();
    assertThat(
            ResultComparator.compare(
                e, result(List.of(false, true), row(1L, 1000.001)), SortSpec.UNORDERED))
        .contains("missing")
        .contains("1000.001");
    // A decimal against a double is compared as doubles.
    assertThat(
            ResultComparator.compare(
                e,
                result(List.of(false, false), row(1L, new BigDecimal("1000.0000000001"))),
                SortSpec.UNORDERED))
        .isNull();
  }

  @Test
  void decimalsAreExactAndIndependentOfScale() {
    QueryResult e = result(List.of(false), row(new BigDecimal("12.50")));
    assertThat(
            ResultComparator.compare(
                e, result(List.of(false), row(new BigDecimal("12.5"))), SortSpec.UNORDERED))
        .isNull();
    assertThat(
            ResultComparator.compare(
                e, result(List.of(false), row(new BigDecimal("12.51"))), SortSpec.UNORDERED))
        .isNotNull();
    assertThat(
            ResultComparator.compare(
                result(List.of(false), row(5L)),
                result(List.of(false), row(new BigDecimal("5.00"))),
                SortSpec.UNORDERED))
        .isNull();
  }

  @Test
  void nullsStringsAndDates() {
    QueryResult e = result(List.of(false, false, false), row(null, "a", LocalDate.of(1995, 3, 15)));
    assertThat(
            ResultComparator.compare(
                e,
                result(List.of(false, false, false), row(null, "a", LocalDate.of(1995, 3, 15))),
                SortSpec.UNORDERED))
        .isNull();
    assertThat(
            ResultComparator.compare(
                e,
                result(List.of(false, false, false), row(0L, "a", LocalDate.of(1995, 3, 15))),
                SortSpec.UNORDERED))
        .isNotNull();
    assertThat(
            ResultComparator.compare(
                e,
                result(List.of(false, false, false), row(null, "a", LocalDate.of(1995, 3, 16))),
                SortSpec.UNORDERED))
        .isNotNull();
  }

  @Test
  void unorderedResultsAreMultisets() {
    QueryResult e = result(List.of(false), row(1L), row(2L), row(2L));
    assertThat(
            ResultComparator.compare(
                e, result(List.of(false), row(2L), row(1L), row(2L)), SortSpec.UNORDERED))
        .isNull();
    String diff =
        ResultComparator.compare(
            e, result(List.of(false), row(2L), row(1L), row(1L)), SortSpec.UNORDERED);
    assertThat(diff).contains("missing: [2]").contains("unexpected: [1]");
    assertThat(
            ResultComparator.compare(
                e, result(List.of(false), row(1L), row(2L)), SortSpec.UNORDERED))
        .startsWith("expected 3 rows, got 2");
  }

  @Test
  void orderedResultsAllowPermutationsOnlyWithinTies() {
    SortSpec byFirst = new SortSpec(true, List.of(0));
    QueryResult e =
        result(List.of(false, false), row(1L, "x"), row(2L, "a"), row(2L, "b"), row(3L, "z"));
    assertThat(
            ResultComparator.compare(
                e,
                result(
                    List.of(false, false), row(1L, "x"), row(2L, "b"), row(2L, "a"), row(3L, "z")),
                byFirst))
        .isNull();
    String diff =
        ResultComparator.compare(
            e,
            result(List.of(false, false), row(3L, "z"), row(2L, "a"), row(2L, "b"), row(1L, "x")),
            byFirst);
    assertThat(diff).contains("first differing row in order: #0").contains("[1, x]");
    // Ordered with no known key columns: the whole result is one tie group.
    assertThat(
            ResultComparator.compare(
                e,
                result(
                    List.of(false, false), row(3L, "z"), row(2L, "a"), row(2L, "b"), row(1L, "x")),
                new SortSpec(true, List.of())))
        .isNull();
  }

  @Test
  void manyRowsWithFloatNoise() {
    List<Object[]> exp = new ArrayList<>();
    List<Object[]> act = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      exp.add(row((long) (i % 7), i * 0.1));
      act.add(row((long) (i % 7), i * 0.1 * (1 + 1e-12)));
    }
    Collections.reverse(act);
    assertThat(
            ResultComparator.compare(
                result(List.of(false, true), exp.toArray(new Object[0][])),
                result(List.of(false, true), act.toArray(new Object[0][])),
                SortSpec.UNORDERED))
        .isNull();
  }

  @Test
  void sortSpecFindsTopLevelOrderByOnly() {
    List<String> cols = List.of("a", "b", "total");
    assertThat(SortSpec.of("select a, b, sum(x) as total from t group by a, b", cols).ordered())
        .isFalse();
    assertThat(
            SortSpec.of("select a, row_number() over (partition by a order by b) from t", cols)
                .ordered())
        .isFalse();
    assertThat(
            SortSpec.of("select a, b, total from (select * from t order by a) s", cols).ordered())
        .isFalse();
    assertThat(
            SortSpec.of("select a, b, total from t order by t.b desc nulls last, 1 limit 5", cols))
        .isEqualTo(new SortSpec(true, List.of(1, 0)));
    assertThat(SortSpec.of("select a, b, total from t order by a + 1, b", cols))
        .isEqualTo(new SortSpec(true, List.of()));
    assertThat(
            SortSpec.of("select a from t union select b from u order by 1 -- done", List.of("a")))
        .isEqualTo(new SortSpec(true, List.of(0)));
    assertThat(SortSpec.of("select 'order by x' as a, b, total from t", cols).ordered()).isFalse();
  }

  @Test
  void tpchOrderingColumnsAgreeWithTheirSql() {
    for (TpchQuery q : TpchQueries.all()) {
      List<String> items = SortSpec.topLevelOrderByItems(q.sql());
      if (q.ordered()) {
        assertThat(items).as(q.name()).isNotNull();
        assertThat(items).as(q.name()).containsExactlyElementsOf(q.orderBy());
      } else {
        assertThat(items).as(q.name()).isNull();
      }
    }
  }
}
