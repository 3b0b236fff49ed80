package dev.quiver.binding.sql;

import java.util.Locale;
import java.util.Set;

/**
 * DuckDB's {@code date_diff('day', start, end)} and {@code datediff('day', ...)} with the unit as a
 * string. Babel's grammar has its own productions for both names (BigQuery's {@code DATE_DIFF(a, b,
 * DAY)}, SQL Server's {@code DATEDIFF(DAY, a, b)}) and rejects a string unit; quoting the name
 * makes the call an ordinary function call, which resolves to Quiver's function of that name (the
 * date_diff function). Calls with a bare unit are left to the grammar.
 */
final class DateDiffCalls {
  private static final Set<String> NAMES = Set.of("date_diff", "datediff");

  private DateDiffCalls() {}

  /** Where to quote: {@code [start, end)} of the text becomes {@code text}. */
  record Rewrite(int start, int end, String text) {}

  /** The first unquoted date_diff/datediff call with a string first argument, or null. */
  static Rewrite first(CharSequence text) {
    String sql = text.toString();
    int n = sql.length();
    int i = 0;
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = sql.indexOf(c, i + 1);
        while (end >= 0 && end + 1 < n && sql.charAt(end + 1) == c) {
          end = sql.indexOf(c, end + 2);
        }
        i = end < 0 ? n : end + 1;
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
          i++;
        }
        String word = sql.substring(start, i).toLowerCase(Locale.ROOT);
        if (!NAMES.contains(word) || (start > 0 && sql.charAt(start - 1) == '.')) {
          continue;
        }
        int paren = skipSpace(sql, i);
        if (paren < n && sql.charAt(paren) == '(') {
          int arg = skipSpace(sql, paren + 1);
          if (arg < n && sql.charAt(arg) == '\'') {
            return new Rewrite(start, i, "\"" + word + "\"");
          }
        }
      } else {
        i++;
      }
    }
    return null;
  }

  private static int skipSpace(String sql, int i) {
    while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
      i++;
    }
    return i;
  }
}
