package dev.quiver.binding.planner;

import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;

/**
 * {@code $CAST_TO_TEXT(value)}: {@code CAST(value AS VARCHAR)} (or {@code CHAR}) in a form
 * Calcite's expression simplifier leaves alone. The text of a value depends on its type ({@code
 * 3.00} as DECIMAL(20, 2), {@code 3.0} as DOUBLE, {@code 3} as INTEGER), but Calcite treats a cast
 * inside a cast to text as removable when the inner cast loses nothing: {@code CAST(CAST(x AS
 * DECIMAL(20, 2)) AS VARCHAR)} became {@code CAST(x AS VARCHAR)} and gave {@code 3} instead of
 * {@code 3.00} (and {@code CAST(x * 1.00 AS VARCHAR)} the same). Only the planner writes it, with
 * the cast's own type; it runs as the cast it stands for.
 */
public final class TextCastFunction {
  private TextCastFunction() {}

  public static final SqlFunction INSTANCE =
      new SqlFunction(
          "$CAST_TO_TEXT",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.explicit(SqlTypeName.VARCHAR).andThen(SqlTypeTransforms.TO_NULLABLE),
          null,
          OperandTypes.ANY,
          SqlFunctionCategory.SYSTEM);
}
