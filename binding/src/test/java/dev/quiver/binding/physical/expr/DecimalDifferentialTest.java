package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Random decimals (small and beyond 64 bits) against a BigDecimal reference. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DecimalDifferentialTest extends ExprTestSupport {

  private static BigDecimal random(Random r, int digits, int scale) {
    if (r.nextInt(10) == 0) {
      return null;
    }
    BigInteger u = new BigInteger(digits * 10 / 3, r).mod(BigInteger.TEN.pow(digits));
    if (r.nextBoolean()) {
      u = u.negate();
    }
    return new BigDecimal(u, scale);
  }

  @Test
  void arithmeticAndComparisonsMatchBigDecimal() {
    Random r = new Random(42);
    int n = 700;
    for (int digits : new int[] {9, 17, 19, 30}) {
      Object[] a = new Object[n];
      Object[] b = new Object[n];
      for (int i = 0; i < n; i++) {
        a[i] = random(r, digits, 2);
        b[i] = random(r, digits, 3);
      }
      ArrowType ta = decimal(digits, 2);
      ArrowType tb = decimal(digits, 3);
      VectorSchemaRoot batch = batch(col("a", ta, a), col("b", tb, b));
      ArrowType sumType = decimal(Math.min(38, digits + 2), 3);
      ArrowType prodType = decimal(Math.min(38, 2 * digits), 5);
      ArrowType quotType = decimal(38, 6);
      List<Object> sum =
          eval(
              new ArithmeticExpr(
                  ArithmeticExpr.Op.ADD, column(batch, 0), column(batch, 1), sumType),
              batch);
      List<Object> prod =
          2 * digits > 38
              ? null
              : eval(
                  new ArithmeticExpr(
                      ArithmeticExpr.Op.MULTIPLY, column(batch, 0), column(batch, 1), prodType),
                  batch);
      List<Object> lt =
          eval(new ComparisonExpr(ComparisonExpr.Op.LT, column(batch, 0), column(batch, 1)), batch);
      boolean anyZero = false;
      for (Object x : b) {
        anyZero |= x != null && ((BigDecimal) x).signum() == 0;
      }
      List<Object> quot =
          anyZero || digits > 20
              ? null
              : eval(
                  new ArithmeticExpr(
                      ArithmeticExpr.Op.DIVIDE, column(batch, 0), column(batch, 1), quotType),
                  batch);
      for (int i = 0; i < n; i++) {
        BigDecimal x = (BigDecimal) a[i];
        BigDecimal y = (BigDecimal) b[i];
        if (x == null || y == null) {
          assertThat(sum.get(i)).isNull();
          assertThat(lt.get(i)).isNull();
          continue;
        }
        assertThat(sum.get(i)).isEqualTo(x.add(y).setScale(3));
        if (prod != null) {
          assertThat(prod.get(i)).isEqualTo(x.multiply(y).setScale(5));
        }
        assertThat(lt.get(i)).isEqualTo(x.compareTo(y) < 0);
        if (quot != null) {
          assertThat(quot.get(i))
              .as("%s / %s", x, y)
              .isEqualTo(x.divide(y, 6, RoundingMode.HALF_UP));
        }
      }
    }
  }

  @Test
  void constantsOnEitherSideAndEveryOperatorMatchBigDecimal() {
    // 1 - l_discount, l_extendedprice * (1 - l_discount), x + 0.5: a constant on either side.
    Random r = new Random(43);
    int n = 500;
    for (int digits : new int[] {6, 15, 18}) {
      Object[] a = new Object[n];
      for (int i = 0; i < n; i++) {
        a[i] = random(r, digits, 2);
      }
      ArrowType ta = decimal(digits, 2);
      VectorSchemaRoot batch = batch(col("a", ta, a));
      BigDecimal c = new BigDecimal("1.5");
      LiteralExpr lc = lit(c, decimal(2, 1));
      LiteralExpr one = lit(1L, INT);
      ArrowType wide = decimal(Math.min(38, digits + 3), 2);
      ArrowType prod = decimal(Math.min(38, digits + 2), 3);
      List<Object> oneMinus =
          eval(new ArithmeticExpr(ArithmeticExpr.Op.SUBTRACT, one, column(batch, 0), wide), batch);
      List<Object> minusOne =
          eval(new ArithmeticExpr(ArithmeticExpr.Op.SUBTRACT, column(batch, 0), one, wide), batch);
      List<Object> plusC =
          eval(new ArithmeticExpr(ArithmeticExpr.Op.ADD, lc, column(batch, 0), wide), batch);
      List<Object> timesC =
          eval(new ArithmeticExpr(ArithmeticExpr.Op.MULTIPLY, column(batch, 0), lc, prod), batch);
      for (int i = 0; i < n; i++) {
        BigDecimal x = (BigDecimal) a[i];
        if (x == null) {
          assertThat(oneMinus.get(i)).isNull();
          assertThat(timesC.get(i)).isNull();
          continue;
        }
        assertThat(oneMinus.get(i)).isEqualTo(BigDecimal.ONE.subtract(x).setScale(2));
        assertThat(minusOne.get(i)).isEqualTo(x.subtract(BigDecimal.ONE).setScale(2));
        assertThat(plusC.get(i)).isEqualTo(x.add(c).setScale(2));
        assertThat(timesC.get(i)).isEqualTo(x.multiply(c).setScale(3));
      }
    }
  }

  @Test
  void aResultBeyondItsPrecisionStillFailsAsOverflow() {
    VectorSchemaRoot batch =
        batch(col("a", decimal(4, 2), new BigDecimal("99.99"), new BigDecimal("1.00")));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                eval(
                    new ArithmeticExpr(
                        ArithmeticExpr.Op.ADD, column(batch, 0), column(batch, 0), decimal(4, 2)),
                    batch))
        .isInstanceOf(dev.quiver.binding.errors.QuiverException.class)
        .hasMessageContaining("DECIMAL(4, 2)");
  }
}
