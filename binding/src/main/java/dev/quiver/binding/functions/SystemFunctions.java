package dev.quiver.binding.functions;

import static dev.quiver.binding.functions.Arguments.coerce;
import static dev.quiver.binding.functions.ScalarFunction.documented;
import static dev.quiver.binding.functions.ScalarFunction.of;

import dev.quiver.binding.physical.expr.CoalesceExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.NullIfExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;

/** The system functions, conditionals and casts. */
final class SystemFunctions {
  private SystemFunctions() {}

  private static final SqlFunction VERSION =
      new SqlFunction(
          "VERSION",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.explicit(SqlTypeName.VARCHAR),
          null,
          OperandTypes.NILADIC,
          SqlFunctionCategory.SYSTEM);

  static final List<ScalarFunction> ALL =
      List.of(
          of(
                  "version",
                  Group.SYSTEM,
                  "version()",
                  "Quiver and its version, e.g. 'Quiver 0.1.0'",
                  "SELECT version()",
                  c -> new LiteralExpr(versionText(), c.type()))
              .declaring(VERSION),
          // The SQL layer replaces the call by the setting's text (CurrentSettings).
          documented(
              "current_setting",
              Group.SYSTEM,
              "current_setting('name')",
              "the session's value of a setting, as text (as SHOW name shows it)",
              "SELECT current_setting('batch_size')"),
          of(
              "coalesce",
              Group.SYSTEM,
              "coalesce(a, b, ...)",
              "first non-NULL argument",
              "SELECT coalesce(NULL, 2)",
              SystemFunctions::coalesce),
          of(
              "nullif",
              Group.SYSTEM,
              "nullif(a, b)",
              "NULL when a = b, else a",
              "SELECT nullif(1, 1), nullif(1, 2)",
              c -> {
                PhysicalExpr[] p = Arguments.comparable(c.arg(0), c.arg(1));
                return new NullIfExpr(p[0], p[1]);
              }),
          documented(
              "case",
              Group.SYSTEM,
              "CASE [x] WHEN ... THEN ... [ELSE ...] END",
              "conditional value",
              "SELECT CASE WHEN 1 > 0 THEN 'y' ELSE 'n' END"),
          documented(
              "cast, try_cast",
              Group.SYSTEM,
              "CAST(x AS type), x::type, TRY_CAST(x AS type)",
              "conversion; TRY_CAST gives NULL where it fails",
              "SELECT CAST('1' AS INTEGER), '2'::BIGINT, TRY_CAST('x' AS INTEGER)"));

  private static PhysicalExpr coalesce(ScalarFunction.Call c) {
    List<PhysicalExpr> args = new ArrayList<>();
    for (PhysicalExpr e : c.args()) {
      args.add(coerce(e, c.type()));
    }
    return new CoalesceExpr(args, c.type());
  }

  /** The text of {@code version()}: {@code Quiver 0.1.0} (or {@code Quiver dev} unpackaged). */
  static String versionText() {
    return "Quiver "
        + Objects.requireNonNullElse(
            SystemFunctions.class.getPackage().getImplementationVersion(), "dev");
  }
}
