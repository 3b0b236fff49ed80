package dev.quiver.binding.functions;

import static dev.quiver.binding.functions.Arguments.ints;
import static dev.quiver.binding.functions.Arguments.rowWise;
import static dev.quiver.binding.functions.Arguments.strings;
import static dev.quiver.binding.functions.ScalarFunction.documented;
import static dev.quiver.binding.functions.ScalarFunction.of;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.ScalarFunctionExpr;
import dev.quiver.binding.physical.expr.StringFunctionExpr;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlTrimFunction;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;

/** The string functions. */
final class StringFunctions {
  private StringFunctions() {}

  /** regexp_matches(s, pattern [, flags]): DuckDB's, whether the pattern occurs in s. */
  private static final SqlFunction REGEXP_MATCHES =
      new SqlFunction(
          "REGEXP_MATCHES",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.BOOLEAN_NULLABLE,
          null,
          OperandTypes.STRING_STRING_OPTIONAL_STRING,
          SqlFunctionCategory.STRING);

  /** btrim(s [, chars]): PostgreSQL's trim of both ends. */
  private static final SqlFunction BTRIM =
      new SqlFunction(
          "BTRIM",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.ARG0_NULLABLE_VARYING,
          null,
          OperandTypes.or(OperandTypes.STRING, OperandTypes.STRING_STRING),
          SqlFunctionCategory.STRING);

  /** hash(value, ...): a 64-bit hash, NULL hashed too. */
  private static final SqlFunction HASH =
      new SqlFunction(
          "HASH",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.BIGINT,
          null,
          OperandTypes.VARIADIC,
          SqlFunctionCategory.SYSTEM);

  private static ScalarFunction.Kernel string(StringFunctionExpr.Fn fn) {
    return c -> new StringFunctionExpr(fn, c.args(), c.type());
  }

  static final List<ScalarFunction> ALL =
      List.of(
          of(
              "upper",
              Group.STRING,
              "upper(s)",
              "s in upper case",
              "SELECT upper('ab')",
              string(StringFunctionExpr.Fn.UPPER)),
          of(
              "lower",
              Group.STRING,
              "lower(s)",
              "s in lower case",
              "SELECT lower('AB')",
              string(StringFunctionExpr.Fn.LOWER)),
          of(
              "length, char_length, character_length",
              Group.STRING,
              "length(s)",
              "number of characters",
              "SELECT length('abc'), char_length('ab'), character_length('a')",
              string(StringFunctionExpr.Fn.CHAR_LENGTH)),
          of(
              "substring, substr",
              Group.STRING,
              "substring(s, from [, count]), substring(s FROM a FOR b)",
              "part of s (1-based)",
              "SELECT substring('abcdef', 2, 3), substr('abcdef', 2)",
              c ->
                  new StringFunctionExpr(
                      StringFunctionExpr.Fn.SUBSTRING, ints(c.args(), 1), c.type())),
          of(
              "concat",
              Group.STRING,
              "concat(a, b, ...), a || b",
              "concatenation; concat skips NULLs, || gives NULL",
              "SELECT concat('a', NULL, 'b'), 'a' || 'b'",
              c ->
                  new StringFunctionExpr(
                      c.rex().getOperator() == SqlLibraryOperators.CONCAT_FUNCTION_WITH_NULL
                          ? StringFunctionExpr.Fn.CONCAT_WS_NULLS
                          : StringFunctionExpr.Fn.CONCAT,
                      strings(c.args()),
                      c.type())),
          of(
              "trim",
              Group.STRING,
              "trim([BOTH|LEADING|TRAILING] [chars] FROM s)",
              "s without leading and/or trailing chars (default ' ')",
              "SELECT trim('  a  '), trim(LEADING 'x' FROM 'xax')",
              StringFunctions::trim),
          of(
                  "btrim",
                  Group.STRING,
                  "btrim(s [, chars])",
                  "s without leading and trailing chars (default ' ')",
                  "SELECT btrim('xax', 'x')",
                  string(StringFunctionExpr.Fn.BTRIM))
              .declaring(BTRIM),
          of(
              "ltrim",
              Group.STRING,
              "ltrim(s)",
              "s without leading spaces",
              "SELECT ltrim('  a')",
              string(StringFunctionExpr.Fn.LTRIM)),
          of(
              "rtrim",
              Group.STRING,
              "rtrim(s)",
              "s without trailing spaces",
              "SELECT rtrim('a  ')",
              string(StringFunctionExpr.Fn.RTRIM)),
          of(
              "position, strpos",
              Group.STRING,
              "position(sub IN s), strpos(s, sub)",
              "1-based index of sub in s, 0 if absent",
              "SELECT position('c' IN 'abc'), strpos('abc', 'c')",
              StringFunctions::position),
          of(
              "replace",
              Group.STRING,
              "replace(s, from, to)",
              "every from in s replaced by to",
              "SELECT replace('abcb', 'b', 'x')",
              string(StringFunctionExpr.Fn.REPLACE)),
          of(
              "left",
              Group.STRING,
              "left(s, n)",
              "first n characters (negative n: all but the last -n)",
              "SELECT left('abc', 2)",
              c -> new StringFunctionExpr(StringFunctionExpr.Fn.LEFT, ints(c.args(), 1), c.type())),
          of(
              "right",
              Group.STRING,
              "right(s, n)",
              "last n characters (negative n: all but the first -n)",
              "SELECT right('abc', 2)",
              c ->
                  new StringFunctionExpr(StringFunctionExpr.Fn.RIGHT, ints(c.args(), 1), c.type())),
          of(
                  "reverse",
                  Group.STRING,
                  "reverse(s)",
                  "s backwards",
                  "SELECT reverse('abc')",
                  string(StringFunctionExpr.Fn.REVERSE))
              .declaring(SqlLibraryOperators.REVERSE),
          of(
              "split_part",
              Group.STRING,
              "split_part(s, delimiter, n)",
              "n-th field of s split at delimiter (negative n counts from the end; '' past the end)",
              "SELECT split_part('a,b,c', ',', 2)",
              c -> rowWise(ScalarFunctionExpr.Fn.SPLIT_PART, c, 2)),
          of(
              "starts_with",
              Group.STRING,
              "starts_with(s, prefix)",
              "whether s starts with prefix",
              "SELECT starts_with('abc', 'ab')",
              c -> rowWise(ScalarFunctionExpr.Fn.STARTS_WITH, c, -1)),
          of(
                  "ends_with",
                  Group.STRING,
                  "ends_with(s, suffix)",
                  "whether s ends with suffix",
                  "SELECT ends_with('abc', 'bc')",
                  c -> rowWise(ScalarFunctionExpr.Fn.ENDS_WITH, c, -1))
              .declaring(SqlLibraryOperators.ENDS_WITH),
          of(
              "lpad",
              Group.STRING,
              "lpad(s, n [, fill])",
              "s padded on the left with fill (default ' ') or cut to n characters",
              "SELECT lpad('7', 3, '0')",
              c -> rowWise(ScalarFunctionExpr.Fn.LPAD, c, 1)),
          of(
              "rpad",
              Group.STRING,
              "rpad(s, n [, fill])",
              "s padded on the right with fill (default ' ') or cut to n characters",
              "SELECT rpad('ab', 4, '.')",
              c -> rowWise(ScalarFunctionExpr.Fn.RPAD, c, 1)),
          of(
              "regexp_replace",
              Group.STRING,
              "regexp_replace(s, pattern, replacement [, flags])",
              "first match replaced (all with flag 'g'; 'i' ignores case); \\1 refers to a group",
              "SELECT regexp_replace('a1b22', '[0-9]+', '#', 'g')",
              c -> rowWise(ScalarFunctionExpr.Fn.REGEXP_REPLACE, c, -1)),
          of(
                  "regexp_matches, regexp_like",
                  Group.STRING,
                  "regexp_matches(s, pattern [, flags])",
                  "whether the pattern occurs in s",
                  "SELECT regexp_matches('abc', 'b.'), regexp_like('abc', '^a')",
                  c -> rowWise(ScalarFunctionExpr.Fn.REGEXP_MATCHES, c, -1))
              .declaring(REGEXP_MATCHES),
          documented(
              "like, ilike, similar to",
              Group.STRING,
              "s [NOT] LIKE p [ESCAPE e], s ILIKE p, s SIMILAR TO p",
              "pattern matches (% and _; SIMILAR TO: SQL regular expressions)",
              "SELECT 'abc' LIKE 'a%', 'ABC' ILIKE 'a%', 'abc' SIMILAR TO 'a(b|x)c'"),
          of(
              "chr",
              Group.STRING,
              "chr(n)",
              "the character of Unicode code point n",
              "SELECT chr(65)",
              c -> rowWise(ScalarFunctionExpr.Fn.CHR, c, ArrowType.Utf8.INSTANCE, 0)),
          of(
              "md5",
              Group.STRING,
              "md5(s)",
              "MD5 digest of s as 32 hex digits",
              "SELECT md5('abc')",
              c -> rowWise(ScalarFunctionExpr.Fn.MD5, c, -1)),
          of(
                  "hash",
                  Group.STRING,
                  "hash(value, ...)",
                  "a 64-bit BIGINT hash of the values (NULL hashed too)",
                  "SELECT hash('abc', 1)",
                  c -> new ScalarFunctionExpr(ScalarFunctionExpr.Fn.HASH, c.args(), c.type()))
              .declaring(HASH));

  /** TRIM's first operand is its flag, the second the characters, the third the string. */
  private static PhysicalExpr trim(ScalarFunction.Call c) {
    SqlTrimFunction.Flag flag =
        ((RexLiteral) c.rex().getOperands().get(0)).getValueAs(SqlTrimFunction.Flag.class);
    PhysicalExpr chars = c.arg(1);
    PhysicalExpr s = c.arg(2);
    StringFunctionExpr.Fn fn =
        flag == SqlTrimFunction.Flag.LEADING
            ? StringFunctionExpr.Fn.LTRIM
            : flag == SqlTrimFunction.Flag.TRAILING
                ? StringFunctionExpr.Fn.RTRIM
                : StringFunctionExpr.Fn.BTRIM;
    return new StringFunctionExpr(fn, List.of(s, chars), c.type());
  }

  private static PhysicalExpr position(ScalarFunction.Call c) {
    if (c.arity() != 2) {
      throw new QueryTypeException("POSITION with a FROM start is not supported: " + c.rex());
    }
    return new StringFunctionExpr(StringFunctionExpr.Fn.POSITION, c.args(), c.type());
  }
}
