package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QueryTypeException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CastExprTest extends ExprTestSupport {

  private Object castOne(Object value, ArrowType from, ArrowType to) {
    VectorSchemaRoot b = batch(col("v", from, value));
    return eval(new CastExpr(column(b, 0), to), b).get(0);
  }

  @Test
  void decimalRescaleRoundsHalfAwayFromZero() {
    VectorSchemaRoot b =
        batch(
            col(
                "d",
                decimal(10, 3),
                new BigDecimal("1.005"),
                new BigDecimal("-1.005"),
                new BigDecimal("2.004"),
                null));
    assertThat(eval(new CastExpr(column(b, 0), decimal(10, 2)), b))
        .isEqualTo(
            list(new BigDecimal("1.01"), new BigDecimal("-1.01"), new BigDecimal("2.00"), null));
    assertThat(eval(new CastExpr(column(b, 0), decimal(12, 5)), b))
        .isEqualTo(
            list(
                new BigDecimal("1.00500"),
                new BigDecimal("-1.00500"),
                new BigDecimal("2.00400"),
                null));
    assertThatThrownBy(() -> castOne(new BigDecimal("123.456"), decimal(10, 3), decimal(4, 2)))
        .isInstanceOf(dev.quiver.binding.errors.QuiverException.class)
        .hasMessageContaining("DECIMAL(4, 2)");
  }

  @Test
  void decimalToIntegerRoundsHalfAwayAndDoubleToIntegerRoundsToEven() {
    VectorSchemaRoot b =
        batch(
            col(
                "d",
                decimal(10, 1),
                new BigDecimal("2.5"),
                new BigDecimal("-2.5"),
                new BigDecimal("2.4")));
    assertThat(eval(new CastExpr(column(b, 0), INT), b)).isEqualTo(list(3L, -3L, 2L));
    VectorSchemaRoot f = batch(col("x", DOUBLE, 2.5, 3.5, -0.7));
    assertThat(eval(new CastExpr(column(f, 0), BIGINT), f)).isEqualTo(list(2L, 4L, -1L));
    assertThatThrownBy(() -> castOne(1e30, DOUBLE, BIGINT))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> castOne(300L, INT, new ArrowType.Int(8, true)))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("300")
        .hasMessageContaining("TINYINT");
  }

  @Test
  void numbersToDecimalAndDouble() {
    assertThat(castOne(42L, INT, decimal(5, 2))).isEqualTo(new BigDecimal("42.00"));
    assertThat(castOne(0.125, DOUBLE, decimal(5, 2))).isEqualTo(new BigDecimal("0.13"));
    assertThat(castOne(new BigDecimal("12.34"), decimal(4, 2), DOUBLE)).isEqualTo(12.34);
    assertThat(castOne(7L, INT, DOUBLE)).isEqualTo(7.0);
    assertThatThrownBy(() -> castOne(1000L, INT, decimal(4, 2)))
        .isInstanceOf(dev.quiver.binding.errors.QuiverException.class);
  }

  @Test
  void stringsParseIntoEveryType() {
    assertThat(castOne(" 42 ", UTF8, INT)).isEqualTo(42L);
    assertThat(castOne("1.5", UTF8, DOUBLE)).isEqualTo(1.5);
    assertThat(castOne("-0.015", UTF8, decimal(5, 2))).isEqualTo(new BigDecimal("-0.02"));
    assertThat(castOne("1998-12-01", UTF8, DATE)).isEqualTo(LocalDate.of(1998, 12, 1));
    assertThat(castOne("true", UTF8, BOOL)).isEqualTo(true);
    assertThat(castOne("2020-02-29 12:30:00.5", UTF8, TIMESTAMP))
        .isEqualTo(
            LocalDate.of(2020, 2, 29).toEpochDay() * 86_400_000_000L
                + (12 * 3600 + 30 * 60) * 1_000_000L
                + 500_000L);
  }

  @Test
  void badStringsRaiseATypedErrorNamingTheValue() {
    assertThatThrownBy(() -> castOne("abc", UTF8, INT))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("'abc'")
        .hasMessageContaining("INTEGER");
    assertThatThrownBy(() -> castOne("2020-13-01", UTF8, DATE))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("2020-13-01");
    assertThatThrownBy(() -> castOne("maybe", UTF8, BOOL)).isInstanceOf(QueryTypeException.class);
  }

  @Test
  void valuesFormatAsText() {
    assertThat(castOne(new BigDecimal("-0.50"), decimal(5, 2), UTF8)).isEqualTo("-0.50");
    assertThat(castOne(LocalDate.of(1995, 3, 15), DATE, UTF8)).isEqualTo("1995-03-15");
    assertThat(castOne(86_400_000_000L + 1_500_000L, TIMESTAMP, UTF8))
        .isEqualTo("1970-01-02 00:00:01.5");
    assertThat(castOne(12L, BIGINT, UTF8)).isEqualTo("12");
    assertThat(castOne(true, BOOL, UTF8)).isEqualTo("true");
  }

  @Test
  void datesAndTimestampsConvert() {
    assertThat(castOne(LocalDate.of(1970, 1, 3), DATE, TIMESTAMP)).isEqualTo(2 * 86_400_000_000L);
    assertThat(castOne(-1L, TIMESTAMP, DATE)).isEqualTo(LocalDate.of(1969, 12, 31));
  }

  @Test
  void literalsAndNullsCast() {
    VectorSchemaRoot b = rows(2);
    assertThat(eval(new CastExpr(lit("7", UTF8), INT), b)).isEqualTo(list(7L, 7L));
    assertThat(eval(new CastExpr(LiteralExpr.nullOf(ArrowType.Null.INSTANCE), decimal(5, 1)), b))
        .isEqualTo(list(null, null));
    assertThatThrownBy(() -> new CastExpr(lit(LocalDate.of(2000, 1, 1), DATE), BOOL))
        .isInstanceOf(QueryTypeException.class);
  }
}
