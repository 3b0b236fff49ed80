package dev.quiver.binding.functions;

import static dev.quiver.binding.functions.Arguments.coerce;
import static dev.quiver.binding.functions.Arguments.isNumeric;
import static dev.quiver.binding.functions.ScalarFunction.documented;
import static dev.quiver.binding.functions.ScalarFunction.of;

import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.expr.ArithmeticExpr;
import dev.quiver.binding.physical.expr.MathExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;

/** The numeric functions. */
final class NumericFunctions {
  private NumericFunctions() {}

  /**
   * ROUND of a decimal typed with the scale it rounds to, as DuckDB and PostgreSQL give it: {@code
   * ROUND(DECIMAL(p, s), d)} is {@code DECIMAL(p, max(d, 0))} for a literal {@code d < s} (and for
   * no {@code d}). Calcite's keeps the argument's type, so {@code CAST(ROUND(2.55, 1) AS VARCHAR)}
   * was '2.60' instead of '2.6'. {@code p} digits still hold the rounded value: it loses at least
   * one fractional digit and gains at most one integer digit.
   */
  private static final SqlFunction ROUND =
      new SqlFunction(
          "ROUND",
          SqlKind.OTHER_FUNCTION,
          NumericFunctions::roundType,
          null,
          OperandTypes.NUMERIC_OPTIONAL_INTEGER,
          SqlFunctionCategory.NUMERIC);

  private static RelDataType roundType(SqlOperatorBinding binding) {
    RelDataType arg = binding.getOperandType(0);
    if (arg.getSqlTypeName() == SqlTypeName.DECIMAL) {
      Integer digits =
          binding.getOperandCount() == 1
              ? Integer.valueOf(0)
              : binding.isOperandLiteral(1, false)
                  ? binding.getOperandLiteralValue(1, Integer.class)
                  : null;
      if (digits != null && digits < arg.getScale()) {
        RelDataTypeFactory types = binding.getTypeFactory();
        RelDataType rounded =
            types.createSqlType(SqlTypeName.DECIMAL, arg.getPrecision(), Math.max(digits, 0));
        boolean nullable =
            arg.isNullable()
                || (binding.getOperandCount() > 1 && binding.getOperandType(1).isNullable());
        return types.createTypeWithNullability(rounded, nullable);
      }
    }
    return ReturnTypes.ARG0_NULLABLE.inferReturnType(binding);
  }

  static final List<ScalarFunction> ALL =
      List.of(
          of(
              "abs",
              Group.NUMERIC,
              "abs(x)",
              "absolute value",
              "SELECT abs(-2)",
              c -> math(MathExpr.Fn.ABS, c)),
          of(
              "sign",
              Group.NUMERIC,
              "sign(x)",
              "sign (-1, 0, 1)",
              "SELECT sign(-2.5)",
              c -> math(MathExpr.Fn.SIGN, c)),
          of(
                  "round",
                  Group.NUMERIC,
                  "round(x [, digits])",
                  "x rounded half away from zero",
                  "SELECT round(2.345, 2), round(2.5)",
                  c -> math(MathExpr.Fn.ROUND, c))
              .declaring(ROUND),
          of(
                  "trunc, truncate",
                  Group.NUMERIC,
                  "trunc(x [, digits])",
                  "x cut towards zero",
                  "SELECT trunc(2.789, 1), truncate(-2.7)",
                  c -> math(MathExpr.Fn.TRUNCATE, c))
              .declaring(SqlLibraryOperators.TRUNC_BIG_QUERY),
          of(
              "sqrt",
              Group.NUMERIC,
              "sqrt(x)",
              "square root (DOUBLE)",
              "SELECT sqrt(16)",
              c -> doubleMath(MathExpr.Fn.SQRT, c)),
          of(
              "power",
              Group.NUMERIC,
              "power(x, y)",
              "x to the y (DOUBLE)",
              "SELECT power(2, 10)",
              c -> doubleMath(MathExpr.Fn.POWER, c)),
          of(
              "exp",
              Group.NUMERIC,
              "exp(x)",
              "e to the x (DOUBLE)",
              "SELECT exp(1)",
              c -> doubleMath(MathExpr.Fn.EXP, c)),
          of(
              "ln",
              Group.NUMERIC,
              "ln(x)",
              "natural logarithm",
              "SELECT ln(2.0)",
              c -> doubleMath(MathExpr.Fn.LN, c)),
          of(
              "log",
              Group.NUMERIC,
              "log(x), log(base, x)",
              "base-10 logarithm, or base-b with two arguments",
              "SELECT log(100), log(2, 8)",
              c -> doubleMath(c.arity() == 1 ? MathExpr.Fn.LOG10 : MathExpr.Fn.LOG, c)),
          of(
              "log10",
              Group.NUMERIC,
              "log10(x)",
              "base-10 logarithm",
              "SELECT log10(1000)",
              c -> doubleMath(MathExpr.Fn.LOG10, c)),
          of(
              "mod",
              Group.NUMERIC,
              "mod(a, b), a % b",
              "remainder (sign of a)",
              "SELECT mod(7, 3), -7 % 3",
              c -> Arguments.arithmetic(ArithmeticExpr.Op.MODULO, c.arg(0), c.arg(1), c.type())),
          // Calcite turns these into CASE expressions.
          documented(
              "greatest, least",
              Group.NUMERIC,
              "greatest(a, b, ...), least(a, b, ...)",
              "largest / smallest argument (NULLs skipped)",
              "SELECT greatest(1, 5, 3), least(1, 5, 3)"));

  /** A math kernel of the result type; a digits argument as INTEGER, text as the result type. */
  private static PhysicalExpr math(MathExpr.Fn fn, ScalarFunction.Call c) {
    List<PhysicalExpr> args = c.args();
    if (args.size() > 1) {
      args = List.of(args.get(0), coerce(args.get(1), new ArrowType.Int(32, true)));
    }
    if (args.get(0).dataType() instanceof ArrowType.Utf8) {
      List<PhysicalExpr> cast = new ArrayList<>(args);
      cast.set(0, coerce(args.get(0), c.type()));
      args = cast;
    }
    return new MathExpr(fn, args, c.type());
  }

  /** A DOUBLE math kernel: numbers as they are, anything else as DOUBLE. */
  private static PhysicalExpr doubleMath(MathExpr.Fn fn, ScalarFunction.Call c) {
    List<PhysicalExpr> args = new ArrayList<>();
    for (PhysicalExpr e : c.args()) {
      args.add(isNumeric(e.dataType()) ? e : coerce(e, TypeMapping.DOUBLE));
    }
    return new MathExpr(fn, args, c.type());
  }
}
