package dev.quiver.binding;

import static dev.quiver.binding.dataframe.Expr.col;
import static dev.quiver.binding.dataframe.Expr.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.dataframe.Expr;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import java.math.BigDecimal;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ExprTest {
  @Test
  void rendersSqlLikeText() {
    assertThat(col("a").add(1).mul(col("b")).toString()).isEqualTo("(a + 1) * b");
    assertThat(col("a").gt(lit(2.5)).and(col("s").like("x%").not()).toString())
        .isEqualTo("(a > 2.5) AND NOT (s LIKE 'x%')");
    assertThat(col("s").eq("it's").toString()).isEqualTo("s = 'it''s'");
    assertThat(
            col("d")
                .between(Expr.date("1994-01-01"), Expr.date("1995-01-01").sub(Expr.intervalDays(1)))
                .toString())
        .isEqualTo("d BETWEEN DATE '1994-01-01' AND (DATE '1995-01-01' - INTERVAL '1' DAY)");
    assertThat(col("d").add(Expr.intervalMonths(3)).toString()).isEqualTo("d + INTERVAL '3' MONTH");
    assertThat(col("k").in(1, 2L, "x").toString()).isEqualTo("k IN (1, 2, 'x')");
    assertThat(col("a").isNull().or(col("a").isNotNull()).toString())
        .isEqualTo("a IS NULL OR a IS NOT NULL");
    assertThat(col("a").neg().toString()).isEqualTo("-a");
    assertThat(col("p").cast(new ArrowType.Decimal(10, 2, 128)).toString())
        .isEqualTo("CAST(p AS DECIMAL(10, 2))");
    assertThat(
            Expr.when(col("a").gt(0), "pos")
                .when(col("a").lt(0), "neg")
                .otherwise(lit(null))
                .toString())
        .isEqualTo("CASE WHEN a > 0 THEN 'pos' WHEN a < 0 THEN 'neg' ELSE NULL END");
    assertThat(Expr.when(col("a").gt(0), 1).end().toString())
        .isEqualTo("CASE WHEN a > 0 THEN 1 END");
    assertThat(Expr.coalesce(col("a"), 0).toString()).isEqualTo("coalesce(a, 0)");
    assertThat(Expr.nullIf(col("a"), 0).toString()).isEqualTo("nullif(a, 0)");
    assertThat(Expr.fn("UPPER", col("s")).toString()).isEqualTo("upper(s)");
    assertThat(Expr.extract("Year", col("d")).toString()).isEqualTo("EXTRACT(YEAR FROM d)");
    assertThat(Expr.substring(col("s"), 1, 2).toString()).isEqualTo("substring(s, 1, 2)");
    assertThat(Expr.sum(col("x").mul(lit(new BigDecimal("1.50")))).alias("total").toString())
        .isEqualTo("sum(x * 1.50) AS total");
    assertThat(Expr.countStar().toString()).isEqualTo("count(*)");
    assertThat(Expr.countDistinct(col("x")).toString()).isEqualTo("count(DISTINCT x)");
    assertThat(Expr.avg(col("x")).toString()).isEqualTo("avg(x)");
    assertThat(Expr.timestamp("1994-01-01T10:00:00").toString())
        .isEqualTo("TIMESTAMP '1994-01-01T10:00'");
    assertThat(lit(true).toString()).isEqualTo("TRUE");
  }

  @Test
  void sortKeysCombineDirectionAndNulls() {
    assertThat(col("a").asc().toString()).isEqualTo("a ASC");
    assertThat(col("a").desc().nullsLast().toString()).isEqualTo("a DESC NULLS LAST");
    assertThat(col("a").nullsFirst().desc().toString()).isEqualTo("a DESC NULLS FIRST");
    Expr.SortKey k = (Expr.SortKey) col("a").desc();
    assertThat(k.ascending()).isFalse();
    assertThat(k.isNullsFirst()).isFalse();
    assertThat(k.nullsExplicit()).isFalse();
    assertThat(((Expr.SortKey) col("a").asc()).isNullsFirst()).isFalse();
  }

  @Test
  void aliasReplacesAnEarlierAlias() {
    assertThat(col("a").alias("x").alias("y")).isEqualTo(col("a").alias("y"));
  }

  @Test
  void expressionsAreValuesWithStructure() {
    assertThat(col("a").add(1)).isEqualTo(col("a").add(lit(1))).hasSameHashCodeAs(col("a").add(1));
    assertThat(col("a").add(1)).isNotEqualTo(col("a").add(1L));
    Expr.Operator op = (Expr.Operator) col("a").lt(5);
    assertThat(op.op()).isEqualTo(Expr.Op.LT);
    assertThat(op.operands()).containsExactly(col("a"), lit(5));
    assertThat(((Expr.Literal) lit((short) 3)).value()).isEqualTo(3);
    assertThat(((Expr.Literal) lit(1.5f)).value()).isEqualTo(1.5);
  }

  @Test
  void badInputsAreRejectedWithClearErrors() {
    assertThatThrownBy(() -> Expr.date("01/02/1994"))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("yyyy-MM-dd");
    assertThatThrownBy(() -> lit(new Object()))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("Unsupported literal");
    assertThatThrownBy(() -> lit(new BigDecimal("1" + "0".repeat(40))))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("38 digits");
    assertThatThrownBy(() -> Expr.extract("fortnight", col("d")))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("fortnight");
    assertThatThrownBy(() -> col("a").in()).isInstanceOf(QuiverException.class);
  }
}
