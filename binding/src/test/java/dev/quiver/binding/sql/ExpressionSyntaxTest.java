package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
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

/**
 * The expressions DuckDB and PostgreSQL users write: {@code x::type}, TRY_CAST, {@code INTERVAL '7
 * days'}, {@code SELECT * EXCLUDE / REPLACE}, SIMILAR TO, and one rule for division by zero.
 */
@Timeout(60)
class ExpressionSyntaxTest {
  private SessionContext ctx;

  @BeforeEach
  void setUp() {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(3).withBatchSize(2));
    ctx.sql("CREATE TABLE t(a INTEGER, b VARCHAR, q DECIMAL(15, 2), f DOUBLE, d DATE)");
    ctx.sql(
        "INSERT INTO t VALUES (1, '10', 1.50, 0.5, DATE '2024-01-31'), (2, 'x', 2.50, 0.0,"
            + " DATE '2024-02-29'), (0, NULL, 0.00, 2.0, DATE '2023-12-01')");
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
        for (int r = 0; r < b.getRowCount(); r++) {
          List<String> cells = new ArrayList<>();
          for (FieldVector v : b.getFieldVectors()) {
            Object o = v.getObject(r);
            if (o != null && v instanceof org.apache.arrow.vector.DateDayVector) {
              o = java.time.LocalDate.ofEpochDay((Integer) o);
            }
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

  private List<String> names(String sql) {
    return ctx.sql(sql).schema().getFields().stream().map(Field::getName).toList();
  }

  @Test
  void infixCastBindsTighterThanEveryOperator() {
    assertThat(rows("SELECT a FROM t WHERE d < '2024-02-01'::DATE ORDER BY a"))
        .containsExactly("0", "1");
    assertThat(rows("SELECT a + b::INTEGER * 2 FROM t WHERE a = 1")).containsExactly("21");
    assertThat(rows("SELECT -a::BIGINT, (a + 1)::VARCHAR || 'x', t.a::DOUBLE FROM t WHERE a = 2"))
        .containsExactly("-2|3x|2.0");
    assertThat(rows("SELECT b::VARCHAR::INTEGER + 1 FROM t WHERE a = 1")).containsExactly("11");
    assertThat(rows("SELECT abs(a - 5)::DOUBLE, DATE '2024-01-02'::VARCHAR FROM t WHERE a = 1"))
        .containsExactly("4.0|2024-01-02");
    assertThat(rows("SELECT q::DECIMAL(10, 1), '1.5'::DOUBLE PRECISION FROM t WHERE a = 2"))
        .containsExactly("2.5|1.5");
    // '::' inside a string or a comment is text.
    assertThat(rows("SELECT 'a::b' /* x::int */ FROM t WHERE a = 1")).containsExactly("a::b");
    // Named as DuckDB names it.
    assertThat(names("SELECT a::BIGINT FROM t")).containsExactly("CAST(a AS BIGINT)");
  }

  @Test
  void infixCastErrorsPointIntoTheCallersText() {
    assertThatThrownBy(() -> ctx.sql("SELECT a::BIGINT FROM t WHERE"))
        .isInstanceOf(SqlParseException.class)
        .satisfies(e -> assertThat(((SqlParseException) e).line()).isEqualTo(1));
    assertThatThrownBy(() -> ctx.sql("SELECT a:: FROM t")).isInstanceOf(SqlParseException.class);
  }

  @Test
  void tryCastGivesNullWhereCastFails() {
    assertThat(rows("SELECT a, TRY_CAST(b AS INTEGER) FROM t ORDER BY a"))
        .containsExactly("0|null", "1|10", "2|null");
    assertThat(rows("SELECT TRY_CAST('2024-02-30' AS DATE), TRY_CAST('2024-02-28' AS DATE)"))
        .containsExactly("null|2024-02-28");
    assertThat(rows("SELECT TRY_CAST(a * 100000 AS SMALLINT) FROM t ORDER BY a"))
        .containsExactly("0", "null", "null");
    assertThat(rows("SELECT TRY_CAST(b AS DECIMAL(4, 1)) FROM t WHERE a = 1"))
        .containsExactly("10.0");
    assertThat(
            ctx.sql("SELECT TRY_CAST(a AS VARCHAR) FROM t")
                .schema()
                .getFields()
                .get(0)
                .isNullable())
        .isTrue();
    // CAST still fails, naming the value.
    assertThatThrownBy(() -> rows("SELECT CAST(b AS INTEGER) FROM t"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("x");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "d + INTERVAL '7 days'|2024-02-07",
        "d + INTERVAL '1 week'|2024-02-07",
        "d + INTERVAL '1 month'|2024-02-29",
        "d - INTERVAL '1 year'|2023-01-31",
        "d + INTERVAL '1 year 1 month'|2025-02-28",
        "d + INTERVAL '100 days'|2024-05-10",
        "d + INTERVAL '-1 day'|2024-01-30",
        "d + INTERVAL '7' DAY|2024-02-07",
        "CAST(d AS TIMESTAMP) + INTERVAL '1 day 2 hours 30 minutes'|2024-02-01T02:30",
        "CAST(d AS TIMESTAMP) - INTERVAL '90 seconds'|2024-01-30T23:58:30",
        "CAST(d AS TIMESTAMP) + INTERVAL '1.5 seconds'|2024-01-31T00:00:01.500",
        "CAST(d AS TIMESTAMP) + INTERVAL '36 hours'|2024-02-01T12:00",
      })
  void intervalLiteralsWithTheUnitInTheString(String expr, String expected) {
    assertThat(rows("SELECT " + expr + " FROM t WHERE a = 1")).containsExactly(expected);
  }

  @Test
  void intervalsMixingMonthsAndDaysAreRefusedClearly() {
    assertThatThrownBy(() -> ctx.sql("SELECT d + INTERVAL '1 month 2 days' FROM t"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("INTERVAL '1 month' + INTERVAL '2 days'");
    // Text that is no interval is left for the parser to report.
    assertThatThrownBy(() -> ctx.sql("SELECT d + INTERVAL '7 fortnights' FROM t"))
        .isInstanceOf(SqlParseException.class);
    // A literal in a string stays a literal.
    assertThat(rows("SELECT 'INTERVAL ''7 days''' FROM t WHERE a = 1"))
        .containsExactly("INTERVAL '7 days'");
  }

  @Test
  void starExcludeAndReplace() {
    assertThat(names("SELECT * EXCLUDE (b, f) FROM t")).containsExactly("a", "q", "d");
    assertThat(names("SELECT x.* EXCLUDE (b), 1 AS one FROM t x"))
        .containsExactly("a", "q", "f", "d", "one");
    assertThat(rows("SELECT * REPLACE (a * 10 AS a, upper(b) AS b) FROM t WHERE a = 2"))
        .containsExactly("20|X|2.50|0.0|2024-02-29");
    assertThat(names("SELECT * REPLACE (a * 10 AS a) FROM t"))
        .containsExactly("a", "b", "q", "f", "d");
    assertThatThrownBy(() -> ctx.sql("SELECT * EXCLUDE (nope) FROM t"))
        .isInstanceOf(QuiverException.class);
  }

  @Test
  void similarToTakesSqlRegularExpressions() {
    assertThat(
            rows(
                "SELECT 'abc' SIMILAR TO 'a%', 'abc' SIMILAR TO 'a_c', 'abc' SIMILAR TO '(x|a)bc',"
                    + " 'abc' SIMILAR TO 'a.c', 'a.c' SIMILAR TO 'a.c', 'abbbc' SIMILAR TO 'ab+c',"
                    + " 'ac' SIMILAR TO 'ab*c', 'abc' SIMILAR TO '[a-c]{3}', 'abc' NOT SIMILAR TO 'b%',"
                    + " 'a%' SIMILAR TO 'a\\%', 'a%' SIMILAR TO 'a!%' ESCAPE '!', 'abc' SIMILAR TO 'b'"))
        .containsExactly("true|true|true|false|true|true|true|true|true|true|true|false");
    assertThat(rows("SELECT a FROM t WHERE b SIMILAR TO '[0-9]+' ORDER BY a")).containsExactly("1");
    assertThat(rows("SELECT b SIMILAR TO '%' FROM t WHERE a = 0")).containsExactly("null");
    assertThatThrownBy(() -> rows("SELECT b SIMILAR TO '[a-' FROM t"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("SIMILAR TO");
  }

  @Test
  void similarToRegexQuotesEverythingElse() {
    assertThat(rows("SELECT 'a+b' SIMILAR TO 'a\\+b', '$^' SIMILAR TO '$^'"))
        .containsExactly("true|true");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "a / 0",
        "a % 0",
        "MOD(a, 0)",
        "q / 0",
        "q % 0.00",
        "f / 0",
        "f / f",
        "f % 0",
        "a / (a - a)",
      })
  void divisionByZeroIsAnErrorForEveryTypeByDefault(String expr) {
    assertThatThrownBy(() -> rows("SELECT " + expr + " FROM t"))
        .isInstanceOf(QuiverException.class)
        .hasMessageStartingWith("Division by zero")
        .hasMessageContaining("quiver.sql.division_by_zero");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "a / 0",
        "a % 0",
        "MOD(a, 0)",
        "q / 0",
        "q % 0.00",
        "f / 0",
        "f % 0",
        "a / (a - a)",
      })
  void divisionByZeroIsNullBehindTheSetting(String expr) {
    ctx.sql("SET quiver.sql.division_by_zero = 'null'");
    assertThat(rows("SELECT " + expr + " FROM t")).containsExactly("null", "null", "null");
    assertThat(ctx.sql("SELECT " + expr + " FROM t").schema().getFields().get(0).isNullable())
        .isTrue();
    // IS NULL on a NOT NULL column divided by zero is not folded away.
    assertThat(rows("SELECT count(*) FROM t WHERE (" + expr + ") IS NULL")).containsExactly("3");
    ctx.sql("SET quiver.sql.division_by_zero = 'error'");
    assertThatThrownBy(() -> rows("SELECT " + expr + " FROM t"))
        .hasMessageStartingWith("Division by zero");
  }

  @Test
  void divisionByZeroSettingKeepsOtherRowsAndViews() {
    ctx.sql("SET quiver.sql.division_by_zero = 'null'");
    assertThat(rows("SELECT f / a FROM t ORDER BY a")).containsExactly("null", "0.5", "0.0");
    ctx.sql("CREATE VIEW v AS SELECT 10 / a AS r FROM t");
    assertThat(rows("SELECT r FROM v ORDER BY r")).containsExactly("5", "10", "null");
    assertThatThrownBy(() -> ctx.sql("SET quiver.sql.division_by_zero = 'nan'"))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("error, null");
  }
}
