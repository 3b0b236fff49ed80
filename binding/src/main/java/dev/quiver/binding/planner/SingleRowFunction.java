package dev.quiver.binding.planner;

import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;

/**
 * {@code $SINGLE_ROW(value, rows, anchor)}: a decorrelated scalar subquery's value for an outer
 * row, failing when the subquery had {@code rows} > 1 rows for it. {@code anchor}, a column of the
 * outer side, is not evaluated: it ties the call to both sides of the join so that the optimizer
 * keeps it above the join. Only the planner writes it (after decorrelation); it runs as {@link
 * dev.quiver.binding.physical.expr.SingleRowExpr}.
 */
public final class SingleRowFunction {
  private SingleRowFunction() {}

  public static final SqlFunction INSTANCE =
      new SqlFunction(
          "$SINGLE_ROW",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.ARG0_FORCE_NULLABLE,
          null,
          OperandTypes.family(SqlTypeFamily.ANY, SqlTypeFamily.INTEGER, SqlTypeFamily.ANY),
          SqlFunctionCategory.SYSTEM);
}
