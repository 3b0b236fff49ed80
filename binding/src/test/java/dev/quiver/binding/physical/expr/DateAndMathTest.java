package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.udf.ScalarUdf;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DateAndMathTest extends ExprTestSupport {
  static final ArrowType DAY_TIME = new ArrowType.Interval(IntervalUnit.DAY_TIME);
  static final ArrowType MONTHS = new ArrowType.Interval(IntervalUnit.YEAR_MONTH);
  static final long DAY_MICROS = 86_400_000_000L;

  @Test
  void extractFieldsFromDatesAndTimestamps() {
    LocalDate d = LocalDate.of(1996, 2, 29); // Thursday, ISO week 9
    long ts = d.toEpochDay() * DAY_MICROS + (13 * 3600 + 14 * 60 + 15) * 1_000_000L;
    VectorSchemaRoot b =
        batch(
            col("d", DATE, d, null, LocalDate.of(1969, 12, 31)), col("t", TIMESTAMP, ts, ts, -1L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.YEAR, column(b, 0), BIGINT), b))
        .isEqualTo(list(1996L, null, 1969L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.QUARTER, column(b, 0), BIGINT), b))
        .isEqualTo(list(1L, null, 4L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.MONTH, column(b, 0), BIGINT), b))
        .isEqualTo(list(2L, null, 12L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.DAY, column(b, 0), BIGINT), b))
        .isEqualTo(list(29L, null, 31L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.WEEK, column(b, 0), BIGINT), b))
        .isEqualTo(list(9L, null, 1L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.DOW, column(b, 0), BIGINT), b))
        .isEqualTo(list(4L, null, 3L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.DOY, column(b, 0), BIGINT), b))
        .isEqualTo(list(60L, null, 365L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.HOUR, column(b, 1), BIGINT), b))
        .isEqualTo(list(13L, 13L, 23L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.MINUTE, column(b, 1), BIGINT), b))
        .isEqualTo(list(14L, 14L, 59L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.SECOND, column(b, 1), BIGINT), b))
        .isEqualTo(list(15L, 15L, 59L));
    assertThat(eval(new ExtractExpr(ExtractExpr.Field.YEAR, column(b, 1), BIGINT), b))
        .isEqualTo(list(1996L, 1996L, 1969L));
  }

  @Test
  void dateTruncOnDatesAndTimestamps() {
    VectorSchemaRoot b =
        batch(col("d", DATE, LocalDate.of(1996, 8, 29), LocalDate.of(2024, 1, 1), null));
    assertThat(eval(new DateTruncExpr(DateTruncExpr.Unit.MONTH, column(b, 0), false, DATE), b))
        .isEqualTo(list(LocalDate.of(1996, 8, 1), LocalDate.of(2024, 1, 1), null));
    assertThat(eval(new DateTruncExpr(DateTruncExpr.Unit.QUARTER, column(b, 0), false, DATE), b))
        .isEqualTo(list(LocalDate.of(1996, 7, 1), LocalDate.of(2024, 1, 1), null));
    assertThat(eval(new DateTruncExpr(DateTruncExpr.Unit.YEAR, column(b, 0), false, DATE), b))
        .isEqualTo(list(LocalDate.of(1996, 1, 1), LocalDate.of(2024, 1, 1), null));
    assertThat(eval(new DateTruncExpr(DateTruncExpr.Unit.WEEK, column(b, 0), false, DATE), b))
        .isEqualTo(list(LocalDate.of(1996, 8, 26), LocalDate.of(2024, 1, 1), null));
    assertThat(eval(new DateTruncExpr(DateTruncExpr.Unit.MONTH, column(b, 0), true, DATE), b))
        .isEqualTo(list(LocalDate.of(1996, 9, 1), LocalDate.of(2024, 1, 1), null));
    assertThat(
            eval(new DateTruncExpr(DateTruncExpr.Unit.MONTH, column(b, 0), false, TIMESTAMP), b)
                .get(0))
        .isEqualTo(LocalDate.of(1996, 8, 1).toEpochDay() * DAY_MICROS);
    VectorSchemaRoot t = batch(col("t", TIMESTAMP, 3 * DAY_MICROS + 3_723_000_000L));
    assertThat(eval(new DateTruncExpr(DateTruncExpr.Unit.HOUR, column(t, 0), false, TIMESTAMP), t))
        .isEqualTo(list(3 * DAY_MICROS + 3_600_000_000L));
  }

  @Test
  void intervalsAddDaysAndClampMonths() {
    VectorSchemaRoot b =
        batch(col("d", DATE, LocalDate.of(1998, 12, 1), LocalDate.of(2000, 1, 31), null));
    assertThat(
            eval(
                new DateArithmeticExpr(
                    DateArithmeticExpr.Op.MINUS,
                    column(b, 0),
                    lit(90L * 86_400_000L, DAY_TIME),
                    DATE),
                b))
        .isEqualTo(list(LocalDate.of(1998, 9, 2), LocalDate.of(1999, 11, 2), null));
    assertThat(
            eval(
                new DateArithmeticExpr(
                    DateArithmeticExpr.Op.PLUS, column(b, 0), lit(1L, MONTHS), DATE),
                b))
        .isEqualTo(list(LocalDate.of(1999, 1, 1), LocalDate.of(2000, 2, 29), null));
    assertThat(
            eval(
                new DateArithmeticExpr(
                    DateArithmeticExpr.Op.PLUS, column(b, 0), lit(13L, MONTHS), DATE),
                b))
        .isEqualTo(list(LocalDate.of(2000, 1, 1), LocalDate.of(2001, 2, 28), null));
    assertThat(
            eval(
                new DateArithmeticExpr(
                    DateArithmeticExpr.Op.MINUS, column(b, 0), lit(12L, MONTHS), DATE),
                b))
        .isEqualTo(list(LocalDate.of(1997, 12, 1), LocalDate.of(1999, 1, 31), null));
    assertThat(
            eval(
                    new DateArithmeticExpr(
                        DateArithmeticExpr.Op.PLUS,
                        column(b, 0),
                        lit(3_600_000L, DAY_TIME),
                        TIMESTAMP),
                    b)
                .get(0))
        .isEqualTo(LocalDate.of(1998, 12, 1).toEpochDay() * DAY_MICROS + 3_600_000_000L);
  }

  @Test
  void dateMinusDateCountsDays() {
    VectorSchemaRoot b =
        batch(
            col("a", DATE, LocalDate.of(2000, 3, 1), null),
            col("b", DATE, LocalDate.of(2000, 2, 1), LocalDate.of(2000, 1, 1)));
    assertThat(
            eval(
                new DateArithmeticExpr(DateArithmeticExpr.Op.DIFF, column(b, 0), column(b, 1), INT),
                b))
        .isEqualTo(list(29L, null));
    assertThat(
            eval(
                new DateArithmeticExpr(
                    DateArithmeticExpr.Op.DIFF, column(b, 0), column(b, 1), DAY_TIME),
                b))
        .isEqualTo(list(29L * 86_400_000L, null));
  }

  @Test
  void exactMathOnDecimalsAndIntegers() {
    VectorSchemaRoot b =
        batch(col("d", decimal(10, 3), new BigDecimal("-2.555"), new BigDecimal("2.545"), null));
    assertThat(eval(new MathExpr(MathExpr.Fn.ABS, List.of(column(b, 0)), decimal(10, 3)), b))
        .isEqualTo(list(new BigDecimal("2.555"), new BigDecimal("2.545"), null));
    assertThat(
            eval(
                new MathExpr(
                    MathExpr.Fn.ROUND, List.of(column(b, 0), lit(2L, INT)), decimal(10, 3)),
                b))
        .isEqualTo(list(new BigDecimal("-2.560"), new BigDecimal("2.550"), null));
    assertThat(eval(new MathExpr(MathExpr.Fn.ROUND, List.of(column(b, 0)), decimal(10, 0)), b))
        .isEqualTo(list(new BigDecimal("-3"), new BigDecimal("3"), null));
    assertThat(eval(new MathExpr(MathExpr.Fn.FLOOR, List.of(column(b, 0)), decimal(10, 0)), b))
        .isEqualTo(list(new BigDecimal("-3"), new BigDecimal("2"), null));
    assertThat(eval(new MathExpr(MathExpr.Fn.CEIL, List.of(column(b, 0)), decimal(10, 0)), b))
        .isEqualTo(list(new BigDecimal("-2"), new BigDecimal("3"), null));
    assertThat(eval(new MathExpr(MathExpr.Fn.SIGN, List.of(column(b, 0)), decimal(10, 3)), b))
        .isEqualTo(list(new BigDecimal("-1.000"), new BigDecimal("1.000"), null));
    VectorSchemaRoot i = batch(col("i", INT, -5L, 1234L));
    assertThat(eval(new MathExpr(MathExpr.Fn.ABS, List.of(column(i, 0)), INT), i))
        .isEqualTo(list(5L, 1234L));
    assertThat(eval(new MathExpr(MathExpr.Fn.ROUND, List.of(column(i, 0), lit(-2L, INT)), INT), i))
        .isEqualTo(list(0L, 1200L));
  }

  @Test
  void doubleMath() {
    VectorSchemaRoot b = batch(col("x", DOUBLE, 4.0, 2.5, -2.5, null));
    assertThat(eval(new MathExpr(MathExpr.Fn.ROUND, List.of(column(b, 0)), DOUBLE), b))
        .isEqualTo(list(4.0, 3.0, -3.0, null));
    assertThat(
            eval(
                new MathExpr(MathExpr.Fn.POWER, List.of(column(b, 0), lit(2.0, DOUBLE)), DOUBLE),
                b))
        .isEqualTo(list(16.0, 6.25, 6.25, null));
    assertThat(eval(new MathExpr(MathExpr.Fn.FLOOR, List.of(column(b, 0)), DOUBLE), b))
        .isEqualTo(list(4.0, 2.0, -3.0, null));
    assertThat(eval(new MathExpr(MathExpr.Fn.EXP, List.of(lit(0.0, DOUBLE)), DOUBLE), b))
        .isEqualTo(list(1.0, 1.0, 1.0, 1.0));
    assertThat(
            (Double)
                eval(new MathExpr(MathExpr.Fn.LN, List.of(lit(Math.E, DOUBLE)), DOUBLE), b).get(0))
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-12));
    assertThatThrownBy(() -> eval(new MathExpr(MathExpr.Fn.SQRT, List.of(column(b, 0)), DOUBLE), b))
        .isInstanceOf(QuiverException.class)
        .hasMessageContaining("-2.5");
    VectorSchemaRoot p = batch(col("x", DOUBLE, 9.0));
    assertThat(eval(new MathExpr(MathExpr.Fn.SQRT, List.of(column(p, 0)), DOUBLE), p))
        .isEqualTo(list(3.0));
    assertThatThrownBy(
            () -> eval(new MathExpr(MathExpr.Fn.LN, List.of(lit(0.0, DOUBLE)), DOUBLE), p))
        .hasMessageContaining("zero");
  }

  /** Adds its two BIGINT arguments. */
  static final class AddUdf implements ScalarUdf {
    @Override
    public String name() {
      return "add2";
    }

    @Override
    public List<ArrowType> argumentTypes() {
      return List.of(BIGINT, BIGINT);
    }

    @Override
    public ArrowType returnType() {
      return BIGINT;
    }

    @Override
    public FieldVector invoke(
        List<FieldVector> arguments, int rowCount, BufferAllocator allocator) {
      BigIntVector a = (BigIntVector) arguments.get(0);
      BigIntVector b = (BigIntVector) arguments.get(1);
      BigIntVector out = new BigIntVector("add2", allocator);
      out.allocateNew(rowCount);
      for (int i = 0; i < rowCount; i++) {
        if (a.isNull(i) || b.isNull(i)) {
          out.setNull(i);
        } else {
          out.set(i, a.get(i) + b.get(i));
        }
      }
      out.setValueCount(rowCount);
      return out;
    }
  }

  @Test
  void udfIsInvokedOnWholeBatches() {
    VectorSchemaRoot b = batch(col("a", BIGINT, 1L, null, 3L));
    UdfExpr e = new UdfExpr(new AddUdf(), List.of(column(b, 0), lit(10L, BIGINT)));
    assertThat(e.dataType()).isEqualTo(BIGINT);
    assertThat(eval(e, b)).isEqualTo(list(11L, null, 13L));
  }
}
