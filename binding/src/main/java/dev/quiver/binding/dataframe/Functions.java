package dev.quiver.binding.dataframe;

import dev.quiver.binding.dataframe.ExprTranslator.Category;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownFunctionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.fun.SqlTrimFunction;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.FamilyOperandTypeChecker;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlNameMatchers;
import org.apache.calcite.tools.RelBuilder;

/**
 * Translates scalar function calls by name: a few built-ins get the forms the SQL front end gives
 * them (COALESCE and NULLIF as CASE, EXTRACT with a time-unit flag, TRIM with flags); other names
 * are looked up in Calcite's standard operator table, then in the session's UDFs.
 */
final class Functions {
  /** DataFrame spellings of standard functions whose SQL name differs. */
  private static final Map<String, String> ALIASES =
      Map.of(
          "pow", "power",
          "ceiling", "ceil",
          "length", "char_length",
          "character_length", "char_length",
          "substr", "substring",
          "btrim", "trim");

  /** Names translated here rather than looked up. */
  private static final List<String> SPECIAL =
      List.of(
          "coalesce",
          "nullif",
          "extract",
          "date_part",
          "substring",
          "concat",
          "trim",
          "ltrim",
          "rtrim",
          "current_date",
          "current_timestamp");

  private Functions() {}

  static RexNode call(ExprTranslator t, Expr.Function f) {
    String name = ALIASES.getOrDefault(f.name(), f.name());
    RelBuilder b = t.builder();
    switch (name) {
      case "coalesce":
        return coalesce(t, f);
      case "nullif":
        {
          arity(f, 2, 2);
          RexNode a = t.translate(f.args().get(0));
          RexNode x = t.translate(f.args().get(1));
          RexNode eq = t.compare(f, SqlStdOperatorTable.EQUALS, a, x);
          RelDataType type = b.getTypeFactory().createTypeWithNullability(a.getType(), true);
          return b.getRexBuilder()
              .makeCall(
                  SqlStdOperatorTable.CASE,
                  List.of(eq, b.getRexBuilder().makeNullLiteral(type), t.coerce(type, a)));
        }
      case "extract":
      case "date_part":
        {
          arity(f, 2, 2);
          if (!(f.args().get(0) instanceof Expr.Literal unit && unit.value() instanceof String u)) {
            throw new QuiverException(
                "The first argument of "
                    + f.name()
                    + " must be a time unit string, as in "
                    + f.name()
                    + "('year', d)");
          }
          TimeUnitRange range;
          try {
            range = TimeUnitRange.valueOf(u.toUpperCase(Locale.ROOT));
          } catch (IllegalArgumentException e) {
            throw new QueryTypeException("Unknown time unit '" + u + "' in '" + f + "'", e);
          }
          RexNode source = t.translate(f.args().get(1));
          Category c = ExprTranslator.category(source.getType());
          if (c != Category.DATETIME && c != Category.NULL) {
            throw ExprTranslator.typeError(f, source.getType());
          }
          return b.call(SqlStdOperatorTable.EXTRACT, b.literal(range), source);
        }
      case "substring":
        {
          arity(f, 2, 3);
          List<RexNode> args = translateAll(t, f);
          if (!ExprTranslator.charOrNull(args.get(0))) {
            throw ExprTranslator.typeError(f, types(args));
          }
          for (RexNode a : args.subList(1, args.size())) {
            Category c = ExprTranslator.category(a.getType());
            if (c != Category.NUMERIC && c != Category.NULL) {
              throw ExprTranslator.typeError(f, types(args));
            }
          }
          return b.call(SqlStdOperatorTable.SUBSTRING, args);
        }
      case "concat":
        {
          arity(f, 1, Integer.MAX_VALUE);
          RelDataTypeFactory tf = b.getTypeFactory();
          RexNode acc = null;
          for (RexNode a : translateAll(t, f)) {
            if (ExprTranslator.category(a.getType()) != Category.CHAR) {
              a =
                  b.getRexBuilder()
                      .makeCast(
                          tf.createTypeWithNullability(
                              tf.createSqlType(SqlTypeName.VARCHAR), a.getType().isNullable()),
                          a);
            }
            acc = acc == null ? a : b.call(SqlStdOperatorTable.CONCAT, acc, a);
          }
          return acc;
        }
      case "trim":
      case "ltrim":
      case "rtrim":
        {
          arity(f, 1, 1);
          RexNode s = t.translate(f.args().get(0));
          if (!ExprTranslator.charOrNull(s)) {
            throw ExprTranslator.typeError(f, s.getType());
          }
          SqlTrimFunction.Flag flag =
              name.equals("trim")
                  ? SqlTrimFunction.Flag.BOTH
                  : name.equals("ltrim")
                      ? SqlTrimFunction.Flag.LEADING
                      : SqlTrimFunction.Flag.TRAILING;
          return b.call(SqlStdOperatorTable.TRIM, b.literal(flag), t.literal(" "), s);
        }
      case "current_date":
        arity(f, 0, 0);
        return b.call(SqlStdOperatorTable.CURRENT_DATE);
      case "current_timestamp":
        arity(f, 0, 0);
        return b.call(SqlStdOperatorTable.CURRENT_TIMESTAMP);
      default:
        return generic(t, f, name);
    }
  }

  private static RexNode coalesce(ExprTranslator t, Expr.Function f) {
    arity(f, 1, Integer.MAX_VALUE);
    List<RexNode> args = translateAll(t, f);
    if (args.size() == 1) {
      return args.get(0);
    }
    RelDataType type = t.commonType(f, args);
    RelBuilder b = t.builder();
    List<RexNode> operands = new ArrayList<>();
    for (int i = 0; i < args.size() - 1; i++) {
      operands.add(b.isNotNull(args.get(i)));
      operands.add(t.coerce(type, args.get(i)));
    }
    operands.add(t.coerce(type, args.get(args.size() - 1)));
    return b.getRexBuilder().makeCall(SqlStdOperatorTable.CASE, operands);
  }

  private static RexNode generic(ExprTranslator t, Expr.Function f, String name) {
    SqlOperator op = standard(name);
    if (op == null) {
      op = t.udfs().resolve(name);
    }
    if (op == null) {
      TreeSet<String> candidates = new TreeSet<>(SPECIAL);
      candidates.addAll(ALIASES.keySet());
      for (SqlOperator std : SqlStdOperatorTable.instance().getOperatorList()) {
        if (std.getSyntax() == SqlSyntax.FUNCTION && !std.isAggregator()) {
          candidates.add(std.getName().toLowerCase(Locale.ROOT));
        }
      }
      candidates.addAll(t.udfs().names());
      throw new UnknownFunctionException(f.name(), Suggestions.closest(f.name(), candidates));
    }
    if (op.isAggregator()) {
      throw new QuiverException(
          "'"
              + f.name()
              + "' is an aggregate function; use Expr.sum/avg/min/max/count inside aggregate(...)");
    }
    if (!op.getOperandCountRange().isValidCount(f.args().size())) {
      throw new QuiverException(
          "Function '"
              + f.name()
              + "' does not take "
              + f.args().size()
              + " argument(s) (it takes "
              + op.getOperandCountRange().getMin()
              + (op.getOperandCountRange().getMax() == op.getOperandCountRange().getMin()
                  ? ""
                  : " to " + op.getOperandCountRange().getMax())
              + ") in '"
              + f
              + "'");
    }
    List<RexNode> args = translateAll(t, f);
    checkFamilies(f, op, args);
    return t.builder().call(op, args);
  }

  /** The standard (non-aggregate or aggregate) function named {@code name}, or null. */
  private static SqlOperator standard(String name) {
    List<SqlOperator> found = new ArrayList<>();
    SqlStdOperatorTable.instance()
        .lookupOperatorOverloads(
            new SqlIdentifier(name.toUpperCase(Locale.ROOT), SqlParserPos.ZERO),
            null,
            SqlSyntax.FUNCTION,
            found,
            SqlNameMatchers.withCaseSensitive(false));
    for (SqlOperator op : found) {
      if (op.getSyntax() == SqlSyntax.FUNCTION) {
        return op;
      }
    }
    return null;
  }

  /**
   * Rejects arguments outside the operand families an operator declares, when it declares them
   * simply.
   */
  private static void checkFamilies(Expr.Function f, SqlOperator op, List<RexNode> args) {
    SqlOperandTypeChecker checker = op.getOperandTypeChecker();
    if (!(checker instanceof FamilyOperandTypeChecker families)) {
      return;
    }
    for (int i = 0; i < args.size(); i++) {
      SqlTypeFamily family;
      try {
        family = families.getOperandSqlTypeFamily(i);
      } catch (RuntimeException e) {
        return;
      }
      SqlTypeName type = args.get(i).getType().getSqlTypeName();
      if (family != null
          && family != SqlTypeFamily.ANY
          && type != SqlTypeName.NULL
          && !family.getTypeNames().contains(type)) {
        throw ExprTranslator.typeError(f, types(args));
      }
    }
  }

  private static void arity(Expr.Function f, int min, int max) {
    int n = f.args().size();
    if (n < min || n > max) {
      String expected =
          min == max
              ? String.valueOf(min)
              : max == Integer.MAX_VALUE ? min + " or more" : min + " to " + max;
      throw new QuiverException(
          "Function '"
              + f.name()
              + "' takes "
              + expected
              + " argument(s), got "
              + n
              + " in '"
              + f
              + "'");
    }
  }

  private static List<RexNode> translateAll(ExprTranslator t, Expr.Function f) {
    List<RexNode> out = new ArrayList<>();
    for (Expr a : f.args()) {
      out.add(t.translate(a));
    }
    return out;
  }

  private static RelDataType[] types(List<RexNode> args) {
    RelDataType[] out = new RelDataType[args.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = args.get(i).getType();
    }
    return out;
  }
}
