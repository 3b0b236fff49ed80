package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QueryTypeException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ComparisonAndLogicTest extends ExprTestSupport {

  private List<Object> cmp(
      ComparisonExpr.Op op, PhysicalExpr l, PhysicalExpr r, VectorSchemaRoot b) {
    return eval(new ComparisonExpr(op, l, r), b);
  }

  @Test
  void integerComparisonsWithColumnsAndLiterals() {
    VectorSchemaRoot b = batch(col("a", INT, 1L, 5L, null, 7L), col("b", BIGINT, 1L, 3L, 2L, 9L));
    ColumnExpr a = column(b, 0);
    ColumnExpr c = column(b, 1);
    assertThat(cmp(ComparisonExpr.Op.EQ, a, c, b)).isEqualTo(list(true, false, null, false));
    assertThat(cmp(ComparisonExpr.Op.NE, a, c, b)).isEqualTo(list(false, true, null, true));
    assertThat(cmp(ComparisonExpr.Op.LT, a, c, b)).isEqualTo(list(false, false, null, true));
    assertThat(cmp(ComparisonExpr.Op.GE, a, lit(5L, INT), b))
        .isEqualTo(list(false, true, null, true));
    // Literal on the left is flipped, not materialized.
    assertThat(cmp(ComparisonExpr.Op.GT, lit(5L, INT), a, b))
        .isEqualTo(list(true, false, null, false));
    assertThat(cmp(ComparisonExpr.Op.LE, a, LiteralExpr.nullOf(INT), b))
        .isEqualTo(list(null, null, null, null));
  }

  @Test
  void stringsCompareByteWiseInUtf8() {
    VectorSchemaRoot b =
        batch(
            col("s", UTF8, "apple", "banana", "é", "", null),
            col("t", UTF8, "apple", "apricot", "z", "a", "x"));
    assertThat(cmp(ComparisonExpr.Op.EQ, column(b, 0), column(b, 1), b))
        .isEqualTo(list(true, false, false, false, null));
    assertThat(cmp(ComparisonExpr.Op.LT, column(b, 0), column(b, 1), b))
        .isEqualTo(list(false, false, false, true, null));
    // 'é' (0xC3 0xA9) sorts after 'z' (0x7A) byte-wise.
    assertThat(cmp(ComparisonExpr.Op.GT, column(b, 0), lit("z", UTF8), b))
        .isEqualTo(list(false, false, true, false, null));
    assertThat(cmp(ComparisonExpr.Op.EQ, column(b, 0), lit("banana", UTF8), b))
        .isEqualTo(list(false, true, false, false, null));
  }

  @Test
  void stringColumnsAgainstConstantsMatchJavasUnsignedByteOrder() {
    // Lengths around the 8-byte words the comparison reads, equal prefixes, bytes above 0x7F.
    java.util.Random r = new java.util.Random(7);
    String alphabet = "ab\u00e9z";
    List<String> pool = new java.util.ArrayList<>();
    for (int i = 0; i < 400; i++) {
      StringBuilder b = new StringBuilder();
      int len = r.nextInt(20);
      for (int k = 0; k < len; k++) {
        b.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      pool.add(b.toString());
    }
    Object[] values = new Object[pool.size() + 1];
    for (int i = 0; i < pool.size(); i++) {
      values[i] = pool.get(i);
    }
    VectorSchemaRoot b = batch(col("s", UTF8, values)); // the last row is NULL
    List<String> constants =
        List.of(
            "",
            "a",
            "ab",
            "abababab",
            "abababa",
            "ababababa",
            "z\u00e9",
            pool.get(3),
            pool.get(3) + "a",
            "\u00e9\u00e9\u00e9\u00e9\u00e9");
    for (String c : constants) {
      byte[] cb = c.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      for (ComparisonExpr.Op op : ComparisonExpr.Op.values()) {
        List<Object> want = new java.util.ArrayList<>();
        for (String v : pool) {
          int cmp =
              java.util.Arrays.compareUnsigned(
                  v.getBytes(java.nio.charset.StandardCharsets.UTF_8), cb);
          want.add(
              switch (op) {
                case EQ -> cmp == 0;
                case NE -> cmp != 0;
                case LT -> cmp < 0;
                case LE -> cmp <= 0;
                case GT -> cmp > 0;
                case GE -> cmp >= 0;
              });
        }
        want.add(null);
        assertThat(cmp(op, column(b, 0), lit(c, UTF8), b)).as("s %s '%s'", op, c).isEqualTo(want);
      }
    }
  }

  @Test
  void decimalsOfDifferentScalesCompareByValue() {
    VectorSchemaRoot b =
        batch(
            col(
                "a",
                decimal(10, 2),
                new BigDecimal("1.50"),
                new BigDecimal("2.00"),
                new BigDecimal("-0.01")),
            col(
                "b",
                decimal(10, 3),
                new BigDecimal("1.500"),
                new BigDecimal("1.999"),
                new BigDecimal("0.000")));
    assertThat(cmp(ComparisonExpr.Op.EQ, column(b, 0), column(b, 1), b))
        .isEqualTo(list(true, false, false));
    assertThat(cmp(ComparisonExpr.Op.GT, column(b, 0), column(b, 1), b))
        .isEqualTo(list(false, true, false));
    assertThat(cmp(ComparisonExpr.Op.LT, column(b, 0), lit(2L, INT), b))
        .isEqualTo(list(true, false, true));
    assertThat(cmp(ComparisonExpr.Op.LT, column(b, 0), lit(1.6, DOUBLE), b))
        .isEqualTo(list(true, false, true));
  }

  @Test
  void datesTimestampsAndBooleans() {
    VectorSchemaRoot b =
        batch(
            col("d", DATE, LocalDate.of(1998, 9, 2), LocalDate.of(1998, 12, 1)),
            col("t", TIMESTAMP, LocalDate.of(1998, 9, 2).toEpochDay() * 86_400_000_000L, 0L),
            col("f", BOOL, true, false));
    assertThat(cmp(ComparisonExpr.Op.LE, column(b, 0), lit(LocalDate.of(1998, 9, 2), DATE), b))
        .isEqualTo(list(true, false));
    assertThat(cmp(ComparisonExpr.Op.EQ, column(b, 0), column(b, 1), b))
        .isEqualTo(list(true, false));
    assertThat(cmp(ComparisonExpr.Op.GT, column(b, 2), lit(false, BOOL), b))
        .isEqualTo(list(true, false));
  }

  @Test
  void incomparableTypesAreRejected() {
    VectorSchemaRoot b = batch(col("d", DATE, LocalDate.of(2000, 1, 1)));
    assertThatThrownBy(() -> new ComparisonExpr(ComparisonExpr.Op.EQ, column(b, 0), lit(1L, INT)))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("DATE")
        .hasMessageContaining("INTEGER");
  }

  @Test
  void threeValuedAndOrNotTruthTables() {
    // All 9 combinations of (true, false, null) x (true, false, null).
    Object[] xs = {true, true, true, false, false, false, null, null, null};
    Object[] ys = {true, false, null, true, false, null, true, false, null};
    VectorSchemaRoot b = batch(col("x", BOOL, xs), col("y", BOOL, ys));
    List<PhysicalExpr> xy = List.of(column(b, 0), column(b, 1));
    assertThat(eval(new LogicalExpr(LogicalExpr.Op.AND, xy), b))
        .isEqualTo(list(true, false, null, false, false, false, null, false, null));
    assertThat(eval(new LogicalExpr(LogicalExpr.Op.OR, xy), b))
        .isEqualTo(list(true, true, true, true, false, null, true, null, null));
    assertThat(eval(new NotExpr(column(b, 0)), b))
        .isEqualTo(list(false, false, false, true, true, true, null, null, null));
    assertThat(eval(new IsTruthExpr(column(b, 1), IsTruthExpr.Test.IS_TRUE), b))
        .isEqualTo(list(true, false, false, true, false, false, true, false, false));
    assertThat(eval(new IsTruthExpr(column(b, 1), IsTruthExpr.Test.IS_NOT_TRUE), b))
        .isEqualTo(list(false, true, true, false, true, true, false, true, true));
    assertThat(eval(new IsTruthExpr(column(b, 1), IsTruthExpr.Test.IS_FALSE), b))
        .isEqualTo(list(false, true, false, false, true, false, false, true, false));
    assertThat(eval(new IsTruthExpr(column(b, 1), IsTruthExpr.Test.IS_NOT_FALSE), b))
        .isEqualTo(list(true, false, true, true, false, true, true, false, true));
    assertThat(eval(new IsNullExpr(column(b, 0), false), b))
        .isEqualTo(list(false, false, false, false, false, false, true, true, true));
    assertThat(eval(new IsNullExpr(column(b, 0), true), b))
        .isEqualTo(list(true, true, true, true, true, true, false, false, false));
    assertThat(eval(new IsDistinctFromExpr(column(b, 0), column(b, 1), false), b))
        .isEqualTo(list(false, true, true, true, false, true, true, true, false));
    assertThat(eval(new IsDistinctFromExpr(column(b, 0), column(b, 1), true), b))
        .isEqualTo(list(true, false, false, false, true, false, false, false, true));
  }

  @Test
  void andWithLiteralsAndManyOperands() {
    VectorSchemaRoot b = batch(col("a", INT, 1L, 2L, 3L, null));
    PhysicalExpr gt1 = new ComparisonExpr(ComparisonExpr.Op.GT, column(b, 0), lit(1L, INT));
    PhysicalExpr lt3 = new ComparisonExpr(ComparisonExpr.Op.LT, column(b, 0), lit(3L, INT));
    assertThat(eval(new LogicalExpr(LogicalExpr.Op.AND, List.of(gt1, lt3, lit(true, BOOL))), b))
        .isEqualTo(list(false, true, false, null));
    assertThat(eval(new LogicalExpr(LogicalExpr.Op.OR, List.of(gt1, LiteralExpr.nullOf(BOOL))), b))
        .isEqualTo(list(null, true, true, null));
  }

  @Test
  void andDoesNotFailOnRowsAnEarlierOperandRejected() {
    // x <> 0 AND 10 / x > 1: the division must not see x = 0.
    VectorSchemaRoot b = batch(col("x", INT, 0L, 5L, 20L, null));
    PhysicalExpr nonZero = new ComparisonExpr(ComparisonExpr.Op.NE, column(b, 0), lit(0L, INT));
    PhysicalExpr ratio =
        new ComparisonExpr(
            ComparisonExpr.Op.GT,
            new ArithmeticExpr(ArithmeticExpr.Op.DIVIDE, lit(10L, INT), column(b, 0), INT),
            lit(1L, INT));
    assertThat(eval(new LogicalExpr(LogicalExpr.Op.AND, List.of(nonZero, ratio)), b))
        .isEqualTo(list(false, true, false, null));
  }

  @Test
  void caseEvaluatesBranchesOnlyWhereChosen() {
    VectorSchemaRoot b = batch(col("x", INT, 0L, 4L, null, -2L));
    PhysicalExpr isZero = new ComparisonExpr(ComparisonExpr.Op.EQ, column(b, 0), lit(0L, INT));
    PhysicalExpr negative = new ComparisonExpr(ComparisonExpr.Op.LT, column(b, 0), lit(0L, INT));
    PhysicalExpr div =
        new ArithmeticExpr(ArithmeticExpr.Op.DIVIDE, lit(8L, INT), column(b, 0), INT);
    CaseExpr c =
        new CaseExpr(List.of(isZero, negative), List.of(lit(-1L, INT), lit(-2L, INT)), div, INT);
    assertThat(eval(c, b)).isEqualTo(list(-1L, 2L, null, -2L));
    CaseExpr noElse = new CaseExpr(List.of(isZero), List.of(lit("zero", UTF8)), null, UTF8);
    assertThat(eval(noElse, b)).isEqualTo(list("zero", null, null, null));
  }

  @Test
  void coalesceAndNullIf() {
    VectorSchemaRoot b = batch(col("a", UTF8, null, "x", null), col("b", UTF8, "b1", "b2", null));
    assertThat(eval(new CoalesceExpr(List.of(column(b, 0), column(b, 1), lit("z", UTF8)), UTF8), b))
        .isEqualTo(list("b1", "x", "z"));
    VectorSchemaRoot n = batch(col("a", INT, 1L, 2L, null), col("b", INT, 1L, 3L, 3L));
    assertThat(eval(new NullIfExpr(column(n, 0), column(n, 1)), n)).isEqualTo(list(null, 2L, null));
    assertThat(eval(new NullIfExpr(column(n, 0), lit(2L, INT)), n)).isEqualTo(list(1L, null, null));
  }

  @Test
  void inListWithLiteralsUsesSqlNullSemantics() {
    VectorSchemaRoot b = batch(col("a", INT, 1L, 2L, 5L, null));
    List<PhysicalExpr> items = List.of(lit(1L, BIGINT), lit(5L, INT));
    assertThat(eval(new InListExpr(column(b, 0), items, false), b))
        .isEqualTo(list(true, false, true, null));
    assertThat(eval(new InListExpr(column(b, 0), items, true), b))
        .isEqualTo(list(false, true, false, null));
    List<PhysicalExpr> withNull = List.of(lit(1L, INT), LiteralExpr.nullOf(INT));
    assertThat(eval(new InListExpr(column(b, 0), withNull, false), b))
        .isEqualTo(list(true, null, null, null));
    assertThat(eval(new InListExpr(column(b, 0), withNull, true), b))
        .isEqualTo(list(false, null, null, null));
  }

  @Test
  void inListOfStringsDecimalsAndExpressions() {
    VectorSchemaRoot b =
        batch(
            col("s", UTF8, "MAIL", "SHIP", "AIR", null),
            col(
                "d",
                decimal(10, 2),
                new BigDecimal("0.05"),
                new BigDecimal("0.06"),
                new BigDecimal("1.00"),
                null),
            col("other", UTF8, "x", "x", "AIR", "y"));
    assertThat(
            eval(
                new InListExpr(column(b, 0), List.of(lit("MAIL", UTF8), lit("SHIP", UTF8)), false),
                b))
        .isEqualTo(list(true, true, false, null));
    assertThat(
            eval(
                new InListExpr(
                    column(b, 1),
                    List.of(lit(new BigDecimal("0.050"), decimal(4, 3)), lit(1L, INT)),
                    false),
                b))
        .isEqualTo(list(true, false, true, null));
    assertThat(
            eval(new InListExpr(column(b, 0), List.of(column(b, 2), lit("MAIL", UTF8)), false), b))
        .isEqualTo(list(true, false, true, null));
  }

  @Test
  void int32ColumnsCompareInPlaceWithEveryOperator() {
    // INT against INT, INT against an int literal, a literal beyond int range, DATE against DATE.
    VectorSchemaRoot b =
        batch(
            col("a", INT, 1L, 5L, null, -7L, 2147483647L),
            col("b", INT, 1L, 3L, 2L, 9L, -2147483648L),
            col(
                "d",
                DATE,
                LocalDate.of(1994, 1, 1),
                LocalDate.of(1995, 6, 1),
                null,
                LocalDate.of(1993, 1, 1),
                LocalDate.of(1994, 1, 1)),
            col(
                "e",
                DATE,
                LocalDate.of(1994, 1, 2),
                LocalDate.of(1995, 6, 1),
                LocalDate.of(1994, 1, 1),
                LocalDate.of(1992, 1, 1),
                null));
    ColumnExpr a = column(b, 0);
    ColumnExpr c = column(b, 1);
    assertThat(cmp(ComparisonExpr.Op.EQ, a, c, b)).isEqualTo(list(true, false, null, false, false));
    assertThat(cmp(ComparisonExpr.Op.LT, a, c, b)).isEqualTo(list(false, false, null, true, false));
    assertThat(cmp(ComparisonExpr.Op.LE, a, c, b)).isEqualTo(list(true, false, null, true, false));
    assertThat(cmp(ComparisonExpr.Op.GT, a, c, b)).isEqualTo(list(false, true, null, false, true));
    assertThat(cmp(ComparisonExpr.Op.GE, a, c, b)).isEqualTo(list(true, true, null, false, true));
    assertThat(cmp(ComparisonExpr.Op.NE, a, c, b)).isEqualTo(list(false, true, null, true, true));
    assertThat(cmp(ComparisonExpr.Op.LE, a, lit(1L, INT), b))
        .isEqualTo(list(true, false, null, true, false));
    assertThat(cmp(ComparisonExpr.Op.EQ, a, lit(5L, BIGINT), b))
        .isEqualTo(list(false, true, null, false, false));
    assertThat(cmp(ComparisonExpr.Op.LT, a, lit(3_000_000_000L, BIGINT), b))
        .isEqualTo(list(true, true, null, true, true));
    assertThat(cmp(ComparisonExpr.Op.LT, column(b, 2), column(b, 3), b))
        .isEqualTo(list(true, false, null, false, null));
    assertThat(cmp(ComparisonExpr.Op.GE, column(b, 2), lit(LocalDate.of(1994, 1, 1), DATE), b))
        .isEqualTo(list(true, true, null, false, true));
  }

  @Test
  void inListOfManyStringsIsHashedAndMatchesExactBytes() {
    List<PhysicalExpr> items = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      items.add(lit("v" + i, UTF8));
    }
    items.add(lit("v7", UTF8));
    items.add(lit("ünï", UTF8));
    items.add(lit("", UTF8));
    items.add(lit("a-string-longer-than-sixty-three-bytes-for-the-length-filter-check!", UTF8));
    VectorSchemaRoot b =
        batch(
            col(
                "s",
                UTF8,
                "v0",
                "v39",
                "v40",
                "v7",
                "ünï",
                "uni",
                "",
                null,
                "V1",
                "a-string-longer-than-sixty-three-bytes-for-the-length-filter-check!",
                "a-string-longer-than-sixty-three-bytes-for-the-length-filter-check?"));
    assertThat(eval(new InListExpr(column(b, 0), items, false), b))
        .isEqualTo(list(true, true, false, true, true, false, true, null, false, true, false));
    // A short list is scanned rather than hashed: duplicates and lengths must not matter.
    List<PhysicalExpr> few = List.of(lit("v7", UTF8), lit("v7", UTF8), lit("", UTF8));
    assertThat(eval(new InListExpr(column(b, 0), few, true), b))
        .isEqualTo(list(true, true, true, false, true, true, false, null, true, true, true));
  }
}
