package dev.quiver.binding.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.Range;
import com.google.common.collect.TreeRangeSet;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.UnknownFunctionException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.expr.ExprTestSupport;
import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.UdfExpr;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.fun.SqlTrimFunction;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RexTranslatorTest extends ExprTestSupport {
  private final RelDataTypeFactory types = new JavaTypeFactoryImpl();
  private final RexBuilder rex = new RexBuilder(types);
  private RelDataType row;
  private VectorSchemaRoot batch;
  private RexTranslator translator;

  @BeforeEach
  void setUp() {
    row =
        types
            .builder()
            .add(
                "qty",
                types.createTypeWithNullability(types.createSqlType(SqlTypeName.INTEGER), true))
            .add(
                "price",
                types.createTypeWithNullability(
                    types.createSqlType(SqlTypeName.DECIMAL, 12, 2), true))
            .add("disc", types.createSqlType(SqlTypeName.DECIMAL, 12, 2))
            .add(
                "mode",
                types.createTypeWithNullability(types.createSqlType(SqlTypeName.VARCHAR, 10), true))
            .add("ship", types.createSqlType(SqlTypeName.DATE))
            .build();
    batch =
        batch(
            col("qty", INT, 10L, 0L, null),
            col("price", decimal(12, 2), new BigDecimal("100.00"), new BigDecimal("20.50"), null),
            col(
                "disc",
                decimal(12, 2),
                new BigDecimal("0.10"),
                new BigDecimal("0.00"),
                new BigDecimal("0.05")),
            col("mode", UTF8, "MAIL", " SHIP ", null),
            col(
                "ship",
                DATE,
                LocalDate.of(1998, 9, 2),
                LocalDate.of(1996, 1, 31),
                LocalDate.of(1994, 12, 31)));
    translator =
        new RexTranslator(
            name ->
                name.equals("add2")
                    ? new dev.quiver.binding.physical.expr.DateAndMathTestUdf()
                    : null);
  }

  private RexNode ref(int i) {
    return rex.makeInputRef(row.getFieldList().get(i).getType(), i);
  }

  private List<Object> run(RexNode node) {
    PhysicalExpr e = translator.translate(node, row);
    assertThat(e.dataType()).isEqualTo(TypeMapping.toArrow(node.getType()));
    return eval(e, batch);
  }

  @Test
  void decimalArithmeticFollowsCalciteTypes() {
    RexNode oneMinusDisc =
        rex.makeCall(SqlStdOperatorTable.MINUS, rex.makeExactLiteral(BigDecimal.ONE), ref(2));
    RexNode revenue = rex.makeCall(SqlStdOperatorTable.MULTIPLY, ref(1), oneMinusDisc);
    assertThat(run(revenue))
        .isEqualTo(list(new BigDecimal("90.0000"), new BigDecimal("20.5000"), null));
    RexNode plusInt =
        rex.makeCall(SqlStdOperatorTable.PLUS, ref(0), rex.makeExactLiteral(BigDecimal.valueOf(5)));
    assertThat(run(plusInt)).isEqualTo(list(15L, 5L, null));
    RexNode intDiv =
        rex.makeCall(
            SqlStdOperatorTable.DIVIDE_INTEGER,
            ref(0),
            rex.makeExactLiteral(BigDecimal.valueOf(3)));
    assertThat(run(intDiv)).isEqualTo(list(3L, 0L, null));
    RexNode mixed =
        rex.makeCall(
            SqlStdOperatorTable.MULTIPLY, ref(1), rex.makeApproxLiteral(new BigDecimal("0.5")));
    assertThat(run(mixed)).isEqualTo(list(50.0, 10.25, null));
  }

  @Test
  void comparisonsWithDateAndStringLiterals() {
    RexNode shipped =
        rex.makeCall(
            SqlStdOperatorTable.LESS_THAN_OR_EQUAL,
            ref(4),
            rex.makeDateLiteral(new DateString(1996, 1, 31)));
    assertThat(run(shipped)).isEqualTo(list(false, true, true));
    RexNode mail = rex.makeCall(SqlStdOperatorTable.EQUALS, ref(3), rex.makeLiteral("MAIL"));
    assertThat(run(mail)).isEqualTo(list(true, false, null));
    RexNode and =
        rex.makeCall(
            SqlStdOperatorTable.AND, shipped, rex.makeCall(SqlStdOperatorTable.IS_NULL, ref(3)));
    assertThat(run(and)).isEqualTo(list(false, false, true));
  }

  @Test
  void searchWithPointsBecomesHashInList() {
    TreeRangeSet<NlsString> points = TreeRangeSet.create();
    points.add(
        Range.singleton(
            ((org.apache.calcite.rex.RexLiteral) rex.makeLiteral("MAIL"))
                .getValueAs(NlsString.class)));
    points.add(
        Range.singleton(
            ((org.apache.calcite.rex.RexLiteral) rex.makeLiteral("AIR"))
                .getValueAs(NlsString.class)));
    Sarg<NlsString> sarg = Sarg.of(RexUnknownAs.UNKNOWN, points);
    RexNode in =
        rex.makeCall(
            SqlStdOperatorTable.SEARCH,
            ref(3),
            rex.makeSearchArgumentLiteral(sarg, ref(3).getType()));
    assertThat(in.getKind()).isEqualTo(SqlKind.SEARCH);
    assertThat(translator.translate(in, row)).isInstanceOf(InListExpr.class);
    assertThat(run(in)).isEqualTo(list(true, false, null));
    RexNode notIn = rex.makeCall(SqlStdOperatorTable.NOT, in);
    assertThat(run(notIn)).isEqualTo(list(false, true, null));
    RexNode complemented =
        rex.makeCall(
            SqlStdOperatorTable.SEARCH,
            ref(3),
            rex.makeSearchArgumentLiteral(sarg.negate(), ref(3).getType()));
    assertThat(translator.translate(complemented, row)).isInstanceOf(InListExpr.class);
    assertThat(run(complemented)).isEqualTo(list(false, true, null));
    RexNode nullIsTrue =
        rex.makeCall(
            SqlStdOperatorTable.SEARCH,
            ref(3),
            rex.makeSearchArgumentLiteral(Sarg.of(RexUnknownAs.TRUE, points), ref(3).getType()));
    assertThat(run(nullIsTrue)).isEqualTo(list(true, false, true));
  }

  @Test
  void searchWithRangesExpands() {
    RexNode between =
        rex.makeBetween(
            ref(2),
            rex.makeExactLiteral(new BigDecimal("0.05")),
            rex.makeExactLiteral(new BigDecimal("0.07")));
    assertThat(run(between)).isEqualTo(list(false, false, true));
    RexNode qtyIn =
        rex.makeIn(
            ref(0),
            List.of(rex.makeExactLiteral(BigDecimal.TEN), rex.makeExactLiteral(BigDecimal.ONE)));
    assertThat(run(qtyIn)).isEqualTo(list(true, false, null));
  }

  @Test
  void likeTrimSubstringAndCase() {
    assertThat(run(rex.makeCall(SqlStdOperatorTable.LIKE, ref(3), rex.makeLiteral("%AI%"))))
        .isEqualTo(list(true, false, null));
    assertThat(
            run(
                rex.makeCall(
                    SqlStdOperatorTable.NOT,
                    rex.makeCall(SqlStdOperatorTable.LIKE, ref(3), rex.makeLiteral("M%")))))
        .isEqualTo(list(false, true, null));
    assertThat(
            run(
                rex.makeCall(
                    org.apache.calcite.sql.fun.SqlLibraryOperators.ILIKE,
                    ref(3),
                    rex.makeLiteral("%ship%"))))
        .isEqualTo(list(false, true, null));
    assertThat(
            run(
                rex.makeCall(
                    SqlStdOperatorTable.LIKE,
                    ref(3),
                    rex.makeLiteral("M!%%"),
                    rex.makeLiteral("!"))))
        .isEqualTo(list(false, false, null));
    RexNode trim =
        rex.makeCall(
            SqlStdOperatorTable.TRIM,
            rex.makeFlag(SqlTrimFunction.Flag.BOTH),
            rex.makeLiteral(" "),
            ref(3));
    assertThat(run(trim)).isEqualTo(list("MAIL", "SHIP", null));
    RexNode sub =
        rex.makeCall(
            SqlStdOperatorTable.SUBSTRING,
            ref(3),
            rex.makeExactLiteral(BigDecimal.valueOf(2)),
            rex.makeExactLiteral(BigDecimal.valueOf(2)));
    assertThat(run(sub)).isEqualTo(list("AI", "SH", null));
    RexNode upperConcat =
        rex.makeCall(
            SqlStdOperatorTable.CONCAT,
            rex.makeCall(SqlStdOperatorTable.LOWER, ref(3)),
            rex.makeLiteral("!"));
    assertThat(run(upperConcat)).isEqualTo(list("mail!", " ship !", null));
    RexNode caseExpr =
        rex.makeCall(
            SqlStdOperatorTable.CASE,
            rex.makeCall(
                SqlStdOperatorTable.GREATER_THAN, ref(0), rex.makeExactLiteral(BigDecimal.ZERO)),
            ref(1),
            rex.makeExactLiteral(BigDecimal.ZERO));
    assertThat(run(caseExpr))
        .isEqualTo(list(new BigDecimal("100.00"), new BigDecimal("0.00"), new BigDecimal("0.00")));
  }

  @Test
  void datesExtractTruncateAndIntervals() {
    RexNode year =
        rex.makeCall(SqlStdOperatorTable.EXTRACT, rex.makeFlag(TimeUnitRange.YEAR), ref(4));
    assertThat(run(year)).isEqualTo(list(1998L, 1996L, 1994L));
    RexNode month =
        rex.makeCall(SqlStdOperatorTable.FLOOR, ref(4), rex.makeFlag(TimeUnitRange.MONTH));
    assertThat(run(month))
        .isEqualTo(
            list(LocalDate.of(1998, 9, 1), LocalDate.of(1996, 1, 1), LocalDate.of(1994, 12, 1)));
    RexNode days =
        rex.makeIntervalLiteral(
            BigDecimal.valueOf(90L * 86_400_000L),
            new SqlIntervalQualifier(
                org.apache.calcite.avatica.util.TimeUnit.DAY, null, SqlParserPos.ZERO));
    RexNode minus =
        rex.makeCall(
            SqlStdOperatorTable.MINUS_DATE.getReturnTypeInference() == null
                ? SqlStdOperatorTable.MINUS
                : SqlStdOperatorTable.MINUS,
            ref(4),
            days);
    assertThat(run(minus))
        .isEqualTo(
            list(LocalDate.of(1998, 6, 4), LocalDate.of(1995, 11, 2), LocalDate.of(1994, 10, 2)));
    RexNode oneMonth =
        rex.makeIntervalLiteral(
            BigDecimal.ONE,
            new SqlIntervalQualifier(
                org.apache.calcite.avatica.util.TimeUnit.MONTH, null, SqlParserPos.ZERO));
    RexNode plus = rex.makeCall(SqlStdOperatorTable.DATETIME_PLUS, ref(4), oneMonth);
    assertThat(run(plus))
        .isEqualTo(
            list(LocalDate.of(1998, 10, 2), LocalDate.of(1996, 2, 29), LocalDate.of(1995, 1, 31)));
  }

  @Test
  void castsCoalesceAndNullLiterals() {
    RexNode cast = rex.makeCast(types.createSqlType(SqlTypeName.DECIMAL, 5, 1), ref(1));
    assertThat(run(cast)).isEqualTo(list(new BigDecimal("100.0"), new BigDecimal("20.5"), null));
    RexNode toInt = rex.makeCast(types.createSqlType(SqlTypeName.INTEGER), rex.makeLiteral("42"));
    assertThat(run(toInt)).isEqualTo(list(42L, 42L, 42L));
    RexNode coalesce =
        rex.makeCall(
            SqlStdOperatorTable.COALESCE, ref(0), rex.makeExactLiteral(BigDecimal.valueOf(-1)));
    assertThat(run(coalesce)).isEqualTo(list(10L, 0L, -1L));
    RexNode nullLit = rex.makeNullLiteral(types.createSqlType(SqlTypeName.VARCHAR));
    assertThat(run(rex.makeCall(SqlStdOperatorTable.IS_NULL, nullLit)))
        .isEqualTo(list(true, true, true));
    assertThatThrownBy(
            () ->
                translator.translate(
                    rex.makeCast(types.createSqlType(SqlTypeName.INTEGER), rex.makeLiteral("abc")),
                    row))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("'abc'");
  }

  @Test
  void mathFunctions() {
    RexNode round =
        rex.makeCall(SqlStdOperatorTable.ROUND, ref(1), rex.makeExactLiteral(BigDecimal.ZERO));
    assertThat(run(round)).isEqualTo(list(new BigDecimal("100.00"), new BigDecimal("21.00"), null));
    RexNode abs =
        rex.makeCall(
            SqlStdOperatorTable.ABS, rex.makeCall(SqlStdOperatorTable.UNARY_MINUS, ref(0)));
    assertThat(run(abs)).isEqualTo(list(10L, 0L, null));
    RexNode mod =
        rex.makeCall(SqlStdOperatorTable.MOD, ref(0), rex.makeExactLiteral(BigDecimal.valueOf(3)));
    assertThat(run(mod)).isEqualTo(list(1L, 0L, null));
    RexNode sqrt =
        rex.makeCall(SqlStdOperatorTable.SQRT, rex.makeExactLiteral(BigDecimal.valueOf(16)));
    assertThat(run(sqrt)).isEqualTo(list(4.0, 4.0, 4.0));
  }

  @Test
  void udfsResolveByNameAndUnknownFunctionsFail() {
    SqlFunction add2 =
        new SqlFunction(
            "ADD2",
            SqlKind.OTHER_FUNCTION,
            ReturnTypes.BIGINT_NULLABLE,
            null,
            OperandTypes.NUMERIC_NUMERIC,
            SqlFunctionCategory.USER_DEFINED_FUNCTION);
    RexNode call = rex.makeCall(add2, ref(0), rex.makeExactLiteral(BigDecimal.ONE));
    PhysicalExpr e = translator.translate(call, row);
    assertThat(e).isInstanceOf(UdfExpr.class);
    assertThat(eval(e, batch)).isEqualTo(list(11L, 1L, null));
    SqlFunction uper =
        new SqlFunction(
            "UPER",
            SqlKind.OTHER_FUNCTION,
            ReturnTypes.ARG0,
            null,
            OperandTypes.STRING,
            SqlFunctionCategory.STRING);
    assertThatThrownBy(() -> translator.translate(rex.makeCall(uper, ref(3)), row))
        .isInstanceOf(UnknownFunctionException.class)
        .hasMessageContaining("UPER")
        .hasMessageContaining("upper");
  }

  @Test
  void typesOfUnsupportedCallsAreNamed() {
    RexNode bad = rex.makeCall(SqlStdOperatorTable.PLUS, ref(3), ref(3));
    assertThatThrownBy(() -> translator.translate(bad, row))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("VARCHAR");
    assertThat(Map.of()).isEmpty();
  }
}
