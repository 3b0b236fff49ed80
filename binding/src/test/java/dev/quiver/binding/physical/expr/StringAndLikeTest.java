package dev.quiver.binding.physical.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QueryTypeException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StringAndLikeTest extends ExprTestSupport {

  private List<Object> like(
      VectorSchemaRoot b, String pattern, String escape, boolean ci, boolean negated) {
    return eval(new LikeExpr(column(b, 0), lit(pattern, UTF8), escape, ci, negated), b);
  }

  @Test
  void specializedLikePatterns() {
    VectorSchemaRoot b =
        batch(col("s", UTF8, "PROMO BRUSHED", "special requests", "xx", "", null, "a%b"));
    assertThat(like(b, "PROMO%", null, false, false))
        .isEqualTo(list(true, false, false, false, null, false));
    assertThat(like(b, "%requests", null, false, false))
        .isEqualTo(list(false, true, false, false, null, false));
    assertThat(like(b, "%RUSH%", null, false, false))
        .isEqualTo(list(true, false, false, false, null, false));
    assertThat(like(b, "%special%requests%", null, false, false))
        .isEqualTo(list(false, true, false, false, null, false));
    assertThat(like(b, "xx", null, false, false))
        .isEqualTo(list(false, false, true, false, null, false));
    assertThat(like(b, "%", null, false, false))
        .isEqualTo(list(true, true, true, true, null, true));
    assertThat(like(b, "PROMO%", null, false, true))
        .isEqualTo(list(false, true, true, true, null, true));
  }

  @Test
  void literalPatternsOverABatchMatchTheRegularExpressionRowByRow() {
    // The batch matcher reuses a segment's next occurrence across rows: random rows over a small
    // alphabet (so segments recur, overlap and straddle row ends) and multi-byte characters,
    // checked against java.util.regex on each row.
    java.util.Random r = new java.util.Random(11);
    String alphabet = "aab\u00e9\u20ac";
    int n = 3000;
    Object[] values = new Object[n];
    for (int i = 0; i < n; i++) {
      if (r.nextInt(20) == 0) {
        continue; // NULL
      }
      StringBuilder v = new StringBuilder();
      int len = r.nextInt(12);
      for (int k = 0; k < len; k++) {
        v.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      values[i] = v.toString();
    }
    VectorSchemaRoot b = batch(col("s", UTF8, values));
    List<String> patterns =
        List.of(
            "%aa%aa%",
            "%ab%",
            "a%b",
            "%\u00e9a%",
            "%b%%b%",
            "aa",
            "",
            "%",
            "%%",
            "b%\u20ac%",
            "%\u20ac",
            "%a%b%a%b%",
            "%ba\u00e9%");
    for (String pattern : patterns) {
      java.util.regex.Pattern regex =
          java.util.regex.Pattern.compile(
              java.util.Arrays.stream(pattern.split("%", -1))
                  .map(java.util.regex.Pattern::quote)
                  .collect(java.util.stream.Collectors.joining(".*")),
              java.util.regex.Pattern.DOTALL);
      for (boolean negated : new boolean[] {false, true}) {
        List<Object> want = new java.util.ArrayList<>();
        for (Object v : values) {
          want.add(v == null ? null : regex.matcher((String) v).matches() != negated);
        }
        assertThat(like(b, pattern, null, false, negated))
            .as("%s LIKE '%s'", negated ? "NOT" : "", pattern)
            .isEqualTo(want);
      }
    }
  }

  @Test
  void underscoreEscapeAndIlike() {
    VectorSchemaRoot b = batch(col("s", UTF8, "a%b", "axb", "ab", "ÄBC", null));
    assertThat(like(b, "a_b", null, false, false)).isEqualTo(list(true, true, false, false, null));
    assertThat(like(b, "a!%b", "!", false, false)).isEqualTo(list(true, false, false, false, null));
    assertThat(like(b, "%!%%", "!", false, false)).isEqualTo(list(true, false, false, false, null));
    assertThat(like(b, "äb%", null, true, false)).isEqualTo(list(false, false, false, true, null));
    assertThat(like(b, "A_B", null, true, true)).isEqualTo(list(false, false, true, true, null));
    assertThatThrownBy(() -> like(b, "abc!", "!", false, false))
        .isInstanceOf(QueryTypeException.class);
  }

  @Test
  void likeWithPatternColumn() {
    VectorSchemaRoot b =
        batch(col("s", UTF8, "abc", "abc", "xyz"), col("p", UTF8, "a%", "%d", null));
    assertThat(eval(new LikeExpr(column(b, 0), column(b, 1), null, false, false), b))
        .isEqualTo(list(true, false, null));
  }

  private List<Object> fn(StringFunctionExpr.Fn f, VectorSchemaRoot b, PhysicalExpr... args) {
    boolean ints = f == StringFunctionExpr.Fn.CHAR_LENGTH || f == StringFunctionExpr.Fn.POSITION;
    return eval(new StringFunctionExpr(f, List.of(args), ints ? INT : UTF8), b);
  }

  @Test
  void caseMappingAndLength() {
    VectorSchemaRoot b = batch(col("s", UTF8, "Hello", "straße", "", null));
    assertThat(fn(StringFunctionExpr.Fn.UPPER, b, column(b, 0)))
        .isEqualTo(list("HELLO", "STRASSE", "", null));
    assertThat(fn(StringFunctionExpr.Fn.LOWER, b, column(b, 0)))
        .isEqualTo(list("hello", "straße", "", null));
    assertThat(fn(StringFunctionExpr.Fn.CHAR_LENGTH, b, column(b, 0)))
        .isEqualTo(list(5L, 6L, 0L, null));
    assertThat(fn(StringFunctionExpr.Fn.REVERSE, b, column(b, 0)))
        .isEqualTo(list("olleH", "eßarts", "", null));
  }

  @Test
  void substringFollowsSqlRules() {
    VectorSchemaRoot b = batch(col("s", UTF8, "abcdef", "héllo", null));
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(2L, INT), lit(3L, INT)))
        .isEqualTo(list("bcd", "éll", null));
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(4L, INT)))
        .isEqualTo(list("def", "lo", null));
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(0L, INT), lit(3L, INT)))
        .isEqualTo(list("ab", "hé", null));
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(10L, INT)))
        .isEqualTo(list("", "", null));
    assertThatThrownBy(
            () -> fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(1L, INT), lit(-1L, INT)))
        .isInstanceOf(QueryTypeException.class);
  }

  @Test
  void substringWithConstantBoundsWalksCodePointsLikeThePerRowPath() {
    // Constant bounds take the byte-level path; bounds from a column take the per-row one.
    VectorSchemaRoot b =
        batch(
            col("s", UTF8, "a😀bç", "", "xyz", null, "😀😀"),
            col("from", INT, -1L, -1L, -1L, -1L, -1L),
            col("len", INT, 3L, 3L, 3L, 3L, 3L));
    List<Object> constant =
        fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(-1L, INT), lit(3L, INT));
    assertThat(constant).isEqualTo(list("a", "", "x", null, "😀"));
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), column(b, 1), column(b, 2)))
        .isEqualTo(constant);
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(2L, INT), lit(2L, INT)))
        .isEqualTo(list("😀b", "", "yz", null, "😀"));
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(3L, INT)))
        .isEqualTo(list("bç", "", "z", null, ""));
    assertThat(fn(StringFunctionExpr.Fn.SUBSTRING, b, column(b, 0), lit(1L, INT), lit(0L, INT)))
        .isEqualTo(list("", "", "", null, ""));
  }

  @Test
  void trimConcatPositionReplaceLeftRight() {
    VectorSchemaRoot b =
        batch(col("s", UTF8, "  ab  ", "xxabxx", null), col("t", UTF8, "c", null, "d"));
    assertThat(fn(StringFunctionExpr.Fn.BTRIM, b, column(b, 0)))
        .isEqualTo(list("ab", "xxabxx", null));
    assertThat(fn(StringFunctionExpr.Fn.LTRIM, b, column(b, 0), lit("x ", UTF8)))
        .isEqualTo(list("ab  ", "abxx", null));
    assertThat(fn(StringFunctionExpr.Fn.RTRIM, b, column(b, 0), lit("x", UTF8)))
        .isEqualTo(list("  ab  ", "xxab", null));
    assertThat(fn(StringFunctionExpr.Fn.CONCAT, b, column(b, 0), lit("|", UTF8), column(b, 1)))
        .isEqualTo(list("  ab  |c", null, null));
    assertThat(fn(StringFunctionExpr.Fn.CONCAT_WS_NULLS, b, column(b, 0), column(b, 1)))
        .isEqualTo(list("  ab  c", "xxabxx", "d"));
    assertThat(fn(StringFunctionExpr.Fn.POSITION, b, lit("ab", UTF8), column(b, 0)))
        .isEqualTo(list(3L, 3L, null));
    assertThat(fn(StringFunctionExpr.Fn.POSITION, b, lit("q", UTF8), column(b, 0)))
        .isEqualTo(list(0L, 0L, null));
    assertThat(fn(StringFunctionExpr.Fn.REPLACE, b, column(b, 0), lit("x", UTF8), lit("-", UTF8)))
        .isEqualTo(list("  ab  ", "--ab--", null));
    assertThat(fn(StringFunctionExpr.Fn.LEFT, b, column(b, 0), lit(3L, INT)))
        .isEqualTo(list("  a", "xxa", null));
    assertThat(fn(StringFunctionExpr.Fn.RIGHT, b, column(b, 0), lit(2L, INT)))
        .isEqualTo(list("  ", "xx", null));
    assertThat(fn(StringFunctionExpr.Fn.LEFT, b, column(b, 0), lit(-4L, INT)))
        .isEqualTo(list("  ", "xx", null));
  }
}
