package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.errors.SqlParseException;
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
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Everyday words as names (Calcite reserves many of them) and readable names for unaliased
 * expressions, as DuckDB gives them, instead of Calcite's {@code EXPR$0}.
 */
@Timeout(60)
class NamesTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
    ctx.sql("CREATE TABLE t(a INTEGER, b VARCHAR, q DECIMAL(15, 2), d DATE)");
    ctx.sql(
        "INSERT INTO t VALUES (1, 'x', 1.50, DATE '2024-01-01'), (2, 'y', 2.50, DATE '2024-02-01'),"
            + " (2, 'x', 3.00, DATE '2024-03-01')");
  }

  @AfterEach
  void tearDown() {
    ctx.close();
  }

  private static List<String> names(DataFrame df) {
    return df.schema().getFields().stream().map(Field::getName).toList();
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

  @ParameterizedTest
  @ValueSource(
      strings = {
        "year", "date", "day", "hour", "count", "rank", "position", "user", "prev", "next",
        "value", "first", "last", "running", "at", "month", "time", "timestamp", "key", "type"
      })
  void everydayWordsAreNames(String word) {
    assertThat(names(ctx.sql("SELECT a AS " + word + " FROM t"))).containsExactly(word);
    ctx.sql("CREATE TABLE w(" + word + " INTEGER, other INTEGER)");
    ctx.sql("INSERT INTO w VALUES (1, 10), (2, 20), (3, 30)");
    assertThat(names(ctx.sql("SELECT * FROM w"))).containsExactly(word, "other");
    assertThat(
            rows("SELECT w." + word + ", other FROM w WHERE w." + word + " > 1 ORDER BY w." + word))
        .containsExactly("2|20", "3|30");
    assertThat(
            rows(
                "SELECT x."
                    + word
                    + " AS v, count(*) AS n FROM (SELECT a AS "
                    + word
                    + " FROM t) x GROUP BY x."
                    + word
                    + " ORDER BY x."
                    + word))
        .containsExactly("1|1", "2|2");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "year",
        "date",
        "day",
        "hour",
        "count",
        "rank",
        "position",
        "prev",
        "next",
        "value",
        "first",
        "last",
        "at"
      })
  void everydayWordsAsBareColumnReferences(String word) {
    ctx.sql("CREATE TABLE w(" + word + " INTEGER, other INTEGER)");
    ctx.sql("INSERT INTO w VALUES (1, 10), (2, 20), (3, 30)");
    assertThat(
            rows(
                "SELECT "
                    + word
                    + ", "
                    + word
                    + " * 2 AS twice FROM w WHERE "
                    + word
                    + " >= 2 ORDER BY "
                    + word))
        .containsExactly("2|4", "3|6");
  }

  @Test
  void keywordsKeepTheirMeaningWhereTheGrammarTakesThem() {
    assertThat(
            rows(
                "SELECT EXTRACT(YEAR FROM d) AS year, CAST('2024-01-01' AS DATE) = d AS date,"
                    + " DATE '2024-01-02' > d AS day FROM t WHERE a = 1"))
        .containsExactly("2024|true|true");
    assertThat(rows("SELECT a AS next FROM t ORDER BY a FETCH NEXT 1 ROWS ONLY"))
        .containsExactly("1");
    assertThat(rows("SELECT count(*) AS count FROM t")).containsExactly("3");
  }

  @Test
  void parseErrorsKeepTheirPositionsAfterNamesAreQuoted() {
    // "date" is quoted before the error is found; the position is still the caller's.
    assertThatThrownBy(() -> ctx.sql("SELECT a AS date, b AS next FROM t WHERE"))
        .isInstanceOf(SqlParseException.class)
        .satisfies(
            e -> {
              SqlParseException p = (SqlParseException) e;
              assertThat(p.line()).isEqualTo(1);
              assertThat(p.column()).isEqualTo(36);
            });
    // The error stands at the word where no rule goes on, past punctuation the parser looked at.
    assertThatThrownBy(() -> ctx.sql("SELECT a\nFROM t\nWHERE AND 1"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            p -> assertThat(List.of(p.line(), p.column())).containsExactly(3, 7));
    assertThatThrownBy(() -> ctx.sql("SELECT a,\n  FROM t"))
        .isInstanceOfSatisfying(
            SqlParseException.class,
            p -> assertThat(List.of(p.line(), p.column())).containsExactly(2, 3));
    assertThatThrownBy(() -> ctx.sql("SELECT a AS date\nFROM t WHERE a >"))
        .isInstanceOf(SqlParseException.class)
        .satisfies(
            e -> {
              SqlParseException p = (SqlParseException) e;
              assertThat(p.line()).isEqualTo(2);
              assertThat(p.column()).isEqualTo(16);
            });
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      quoteCharacter = '`',
      value = {
        "count(*)#count(*)",
        "COUNT(*)#count(*)",
        "count(a)#count(a)",
        "count(DISTINCT a)#count(DISTINCT a)",
        "sum(q)#sum(q)",
        "SUM( Q )#sum(q)",
        "a + 1#(a + 1)",
        "(a + 1) * 2#((a + 1) * 2)",
        "a + 1 * 2#(a + (1 * 2))",
        "-a#-(a)",
        "1#1",
        "1.5#1.5",
        "'x'#'x'",
        "'it''s'#'it''s'",
        "CAST(a AS BIGINT)#CAST(a AS BIGINT)",
        "upper(b)#upper(b)",
        "a BETWEEN 1 AND 2#(a BETWEEN 1 AND 2)",
        "a IS NULL#(a IS NULL)",
        "b LIKE 'x%'#(b LIKE 'x%')",
        "coalesce(a, 0)#coalesce(a, 0)",
        "a IN (1, 2)#(a IN (1, 2))",
        "b || 'q'#(b || 'q')",
        "max(a) FILTER (WHERE a > 1)#max(a) FILTER (WHERE (a > 1))",
        "CASE WHEN a > 1 THEN 1 ELSE 0 END#CASE WHEN (a > 1) THEN 1 ELSE 0 END",
        "avg(a) * 2#(avg(a) * 2)",
        "t.a + 1#(t.a + 1)",
        "round(q, 1)#round(q, 1)",
        "a % 2#(a % 2)",
        "NULL#NULL",
        "true#true"
      })
  void unaliasedExpressionsAreNamedAfterTheirText(String expr, String name) {
    String sql =
        expr.matches("(?i).*(count|sum|avg|max)\\(.*")
            ? "SELECT " + expr + " FROM t"
            : "SELECT " + expr + " FROM t WHERE a = 1";
    assertThat(names(ctx.sql(sql))).containsExactly(name);
  }

  @Test
  void derivedNamesShowEverywhereAndCanBeReferenced() {
    DataFrame df = ctx.sql("SELECT b, count(*), sum(q) FROM t GROUP BY b");
    assertThat(names(df)).containsExactly("b", "count(*)", "sum(q)");
    List<VectorSchemaRoot> batches = df.collect();
    try {
      for (VectorSchemaRoot root : batches) {
        assertThat(root.getSchema().getFields().stream().map(Field::getName).toList())
            .containsExactly("b", "count(*)", "sum(q)");
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    assertThat(
            rows(
                "SELECT \"count(*)\" FROM (SELECT b, count(*) FROM t GROUP BY b) s"
                    + " ORDER BY \"count(*)\""))
        .containsExactly("1", "2");
    ctx.sql("CREATE VIEW v AS SELECT a, sum(q) FROM t GROUP BY a");
    assertThat(names(ctx.sql("SELECT * FROM v"))).containsExactly("a", "sum(q)");
    assertThat(names(ctx.sql("SELECT a + 1, a + 1 FROM t"))).doesNotContain("EXPR$0");
    // VALUES columns are col0, col1, ... as in DuckDB.
    assertThat(names(ctx.sql("SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v")))
        .containsExactly("col0", "col1");
    assertThat(names(ctx.sql("SELECT * FROM (VALUES (1, 'a')) v(x, y)"))).containsExactly("x", "y");
    assertThat(names(ctx.sql("VALUES (1, 'a'), (2, 'b')"))).containsExactly("col0", "col1");
    assertThat(rows("SELECT col1 FROM (VALUES (1, 'a'), (2, 'b')) v WHERE col0 = 2"))
        .containsExactly("b");
  }

  @Test
  void groupByAllGroupsByEveryItemThatIsNotAnAggregate() {
    assertThat(rows("SELECT a, b, count(*) AS n FROM t GROUP BY ALL ORDER BY a, b"))
        .containsExactly("1|x|1", "2|x|1", "2|y|1");
    assertThat(rows("SELECT a + 1 AS k, sum(q) AS s FROM t GROUP BY ALL ORDER BY k"))
        .containsExactly("2|1.50", "3|5.50");
    assertThat(rows("SELECT count(*) AS n, max(a) AS m FROM t group by all"))
        .containsExactly("3|2");
    assertThat(rows("SELECT b, count(*) FILTER (WHERE a > 1) AS n FROM t GROUP BY ALL ORDER BY b"))
        .containsExactly("x|1", "y|1");
    // "all" in a name or string is left alone.
    assertThat(rows("SELECT 'group by all' AS s FROM t WHERE a = 1"))
        .containsExactly("group by all");
  }
}
