package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import java.math.BigDecimal;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ArithmeticExprTest extends ExprTestSupport {

  @Test
  void integerArithmeticPropagatesNulls() {
    VectorSchemaRoot b = batch(col("a", INT, 1L, 2L, null, 7L), col("b", INT, 10L, null, 3L, -2L));
    ColumnExpr a = column(b, 0);
    ColumnExpr c = column(b, 1);
    assertThat(eval(new ArithmeticExpr(ArithmeticExpr.Op.ADD, a, c, INT), b))
        .isEqualTo(list(11L, null, null, 5L));
    assertThat(eval(new ArithmeticExpr(ArithmeticExpr.Op.SUBTRACT, a, c, INT), b))
        .isEqualTo(list(-9L, null, null, 9L));
    assertThat(eval(new ArithmeticExpr(ArithmeticExpr.Op.MULTIPLY, a, c, BIGINT), b))
        .isEqualTo(list(10L, null, null, -14L));
    assertThat(eval(new ArithmeticExpr(ArithmeticExpr.Op.DIVIDE, a, c, INT), b))
        .isEqualTo(list(0L, null, null, -3L));
    assertThat(eval(new ArithmeticExpr(ArithmeticExpr.Op.MODULO, a, c, INT), b))
        .isEqualTo(list(1L, null, null, 1L));
  }

  @Test
  void literalOperandsAreNotMaterialized() {
    VectorSchemaRoot b = batch(col("a", BIGINT, 1L, 2L, null));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.MULTIPLY, column(b, 0), lit(3L, BIGINT), BIGINT),
                b))
        .isEqualTo(list(3L, 6L, null));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.SUBTRACT, lit(10L, BIGINT), column(b, 0), BIGINT),
                b))
        .isEqualTo(list(9L, 8L, null));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.ADD, column(b, 0), LiteralExpr.nullOf(BIGINT), BIGINT),
                b))
        .isEqualTo(list(null, null, null));
  }

  @Test
  void integerOverflowIsAnError() {
    VectorSchemaRoot b = batch(col("a", INT, 2_000_000_000L, 1L));
    assertThatThrownBy(
            () ->
                eval(new ArithmeticExpr(ArithmeticExpr.Op.ADD, column(b, 0), column(b, 0), INT), b))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("overflow")
        .hasMessageContaining("INTEGER");
    VectorSchemaRoot big = batch(col("a", BIGINT, Long.MAX_VALUE));
    assertThatThrownBy(
            () ->
                eval(
                    new ArithmeticExpr(
                        ArithmeticExpr.Op.MULTIPLY, column(big, 0), lit(2L, BIGINT), BIGINT),
                    big))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("overflow");
  }

  @Test
  void divisionByZeroIsAnErrorUnlessTheRowIsNull() {
    VectorSchemaRoot b = batch(col("a", INT, 1L, 2L), col("b", INT, 1L, 0L));
    assertThatThrownBy(
            () ->
                eval(
                    new ArithmeticExpr(ArithmeticExpr.Op.DIVIDE, column(b, 0), column(b, 1), INT),
                    b))
        .isInstanceOf(QuiverException.class)
        .hasMessageStartingWith("Division by zero");
    assertThatThrownBy(
            () ->
                eval(
                    new ArithmeticExpr(ArithmeticExpr.Op.MODULO, column(b, 0), column(b, 1), INT),
                    b))
        .hasMessageStartingWith("Division by zero");
    // The zero under a null dividend is never divided.
    VectorSchemaRoot n = batch(col("a", INT, 4L, null), col("b", INT, 2L, 0L));
    assertThat(
            eval(new ArithmeticExpr(ArithmeticExpr.Op.DIVIDE, column(n, 0), column(n, 1), INT), n))
        .isEqualTo(list(2L, null));
    VectorSchemaRoot d =
        batch(
            col("a", decimal(10, 2), new BigDecimal("1.00")),
            col("b", decimal(10, 2), new BigDecimal("0.00")));
    assertThatThrownBy(
            () ->
                eval(
                    new ArithmeticExpr(
                        ArithmeticExpr.Op.DIVIDE, column(d, 0), column(d, 1), decimal(20, 6)),
                    d))
        .hasMessageStartingWith("Division by zero");
  }

  @Test
  void decimalAdditionAlignsScalesExactly() {
    VectorSchemaRoot b =
        batch(
            col("a", decimal(12, 2), new BigDecimal("0.10"), new BigDecimal("-5.55"), null),
            col(
                "b",
                decimal(12, 4),
                new BigDecimal("0.2000"),
                new BigDecimal("0.0001"),
                new BigDecimal("1.0000")));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.ADD, column(b, 0), column(b, 1), decimal(13, 4)),
                b))
        .isEqualTo(list(new BigDecimal("0.3000"), new BigDecimal("-5.5499"), null));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.SUBTRACT, column(b, 0), column(b, 1), decimal(13, 4)),
                b))
        .isEqualTo(list(new BigDecimal("-0.1000"), new BigDecimal("-5.5501"), null));
  }

  @Test
  void decimalMultiplyAndDivideRoundHalfAwayFromZero() {
    VectorSchemaRoot b =
        batch(
            col(
                "price",
                decimal(15, 2),
                new BigDecimal("100.00"),
                new BigDecimal("2.00"),
                new BigDecimal("-1.00")),
            col(
                "disc",
                decimal(15, 2),
                new BigDecimal("0.05"),
                new BigDecimal("3.00"),
                new BigDecimal("3.00")));
    // price * (1 - disc) with the TPC-H style literal.
    ArithmeticExpr oneMinus =
        new ArithmeticExpr(ArithmeticExpr.Op.SUBTRACT, lit(1L, INT), column(b, 1), decimal(16, 2));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.MULTIPLY, column(b, 0), oneMinus, decimal(31, 4)),
                b))
        .isEqualTo(
            list(new BigDecimal("95.0000"), new BigDecimal("-4.0000"), new BigDecimal("2.0000")));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.DIVIDE, column(b, 0), column(b, 1), decimal(20, 3)),
                b))
        .isEqualTo(
            list(new BigDecimal("2000.000"), new BigDecimal("0.667"), new BigDecimal("-0.333")));
    // A result scale that needs more than 64 bits takes the exact BigInteger path.
    assertThat(
            eval(
                    new ArithmeticExpr(
                        ArithmeticExpr.Op.DIVIDE, column(b, 0), column(b, 1), decimal(38, 20)),
                    b)
                .get(1))
        .isEqualTo(new BigDecimal("0.66666666666666666667"));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.MODULO, column(b, 0), column(b, 1), decimal(15, 2)),
                b))
        .isEqualTo(list(new BigDecimal("0.00"), new BigDecimal("2.00"), new BigDecimal("-1.00")));
  }

  @Test
  void decimalOverflowIsAnError() {
    VectorSchemaRoot b = batch(col("a", decimal(5, 2), new BigDecimal("999.99")));
    assertThatThrownBy(
            () ->
                eval(
                    new ArithmeticExpr(
                        ArithmeticExpr.Op.ADD, column(b, 0), column(b, 0), decimal(5, 2)),
                    b))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("DECIMAL(5, 2)");
  }

  @Test
  void largeDecimalsBeyondLongRangeStayExact() {
    BigDecimal big = new BigDecimal("12345678901234567890123.45");
    VectorSchemaRoot b = batch(col("a", decimal(38, 2), big, new BigDecimal("1.00")));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.ADD,
                    column(b, 0),
                    lit(new BigDecimal("0.01"), decimal(3, 2)),
                    decimal(38, 2)),
                b))
        .isEqualTo(list(new BigDecimal("12345678901234567890123.46"), new BigDecimal("1.01")));
    assertThat(eval(new NegativeExpr(column(b, 0)), b))
        .isEqualTo(list(big.negate(), new BigDecimal("-1.00")));
  }

  @Test
  void doubleArithmeticAndMixedOperands() {
    VectorSchemaRoot b = batch(col("x", DOUBLE, 1.5, null, -2.0), col("i", INT, 2L, 3L, 4L));
    assertThat(
            eval(
                new ArithmeticExpr(ArithmeticExpr.Op.MULTIPLY, column(b, 0), column(b, 1), DOUBLE),
                b))
        .isEqualTo(list(3.0, null, -8.0));
    // A zero divisor is an error for floating point too (PostgreSQL's rule, as for integers).
    assertThatThrownBy(
            () ->
                eval(
                    new ArithmeticExpr(
                        ArithmeticExpr.Op.DIVIDE, column(b, 0), lit(0L, INT), DOUBLE),
                    b))
        .hasMessageStartingWith("Division by zero");
    VectorSchemaRoot zeroUnderNull = batch(col("x", DOUBLE, null, 1.0), col("y", DOUBLE, 0.0, 2.0));
    assertThat(
            eval(
                new ArithmeticExpr(
                    ArithmeticExpr.Op.DIVIDE,
                    column(zeroUnderNull, 0),
                    column(zeroUnderNull, 1),
                    DOUBLE),
                zeroUnderNull))
        .isEqualTo(list(null, 0.5));
    assertThat(eval(new NegativeExpr(column(b, 0)), b)).isEqualTo(list(-1.5, null, 2.0));
  }

  @Test
  void negatingTheMinimumIntegerOverflows() {
    VectorSchemaRoot b = batch(col("a", INT, (long) Integer.MIN_VALUE));
    assertThatThrownBy(() -> eval(new NegativeExpr(column(b, 0)), b))
        .hasMessageContaining("overflow");
  }

  @Test
  void largeBatchesCrossWordBoundaries() {
    Object[] vals = new Object[200];
    for (int i = 0; i < vals.length; i++) {
      vals[i] = i % 7 == 0 ? null : (long) i;
    }
    VectorSchemaRoot b = batch(col("a", BIGINT, vals));
    var out =
        eval(new ArithmeticExpr(ArithmeticExpr.Op.ADD, column(b, 0), lit(1L, BIGINT), BIGINT), b);
    for (int i = 0; i < vals.length; i++) {
      assertThat(out.get(i)).isEqualTo(i % 7 == 0 ? null : (long) i + 1);
    }
  }
}
