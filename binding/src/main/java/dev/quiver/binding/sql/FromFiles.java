package dev.quiver.binding.sql;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * DuckDB's {@code FROM 'path/to/file.parquet'}: a string literal right after FROM or JOIN is a file
 * read where a table stands. Calcite's grammar has no such FROM item, so the literal becomes a call
 * of {@code read_csv} (paths naming .csv or .tsv files) or {@code read_parquet} (everything else:
 * Parquet files, folders, globs), which {@link FileTables} resolves.
 */
final class FromFiles {
  private FromFiles() {}

  /** Where to rewrite: {@code [start, end)} of the text becomes {@code text}. */
  record Rewrite(int start, int end, String text) {}

  /**
   * The first string literal standing after a FROM clause's FROM (or a JOIN), as a call, or null. A
   * FROM inside an expression is left alone: {@code IS DISTINCT FROM 'a'}, and every FROM within
   * parentheses that do not open a query ({@code substring(s FROM 'x')}, {@code trim(LEADING FROM
   * 'x')}, {@code extract(year FROM '...')}).
   */
  static Rewrite first(CharSequence text) {
    String sql = text.toString();
    int n = sql.length();
    int i = 0;
    String lastWord = "";
    String wordBefore = "";
    // Per open parenthesis: whether it opens a query (its first word is SELECT, WITH or VALUES);
    // null until that first token is seen.
    Deque<Boolean> parens = new ArrayDeque<>();
    boolean firstTokenPending = false;
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
        continue;
      }
      if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        continue;
      }
      boolean inQuery = parens.isEmpty() || Boolean.TRUE.equals(parens.peek());
      if (c == '\'') {
        int end = endOfLiteral(sql, i);
        if ((lastWord.equals("from") && !wordBefore.equals("distinct") || lastWord.equals("join"))
            && inQuery
            && !firstTokenPending) {
          String literal = sql.substring(i, end);
          String lower = literal.toLowerCase(Locale.ROOT);
          String function =
              lower.contains(".csv") || lower.contains(".tsv") ? "read_csv" : "read_parquet";
          return new Rewrite(i, end, function + "(" + literal + ")");
        }
        settle(parens, firstTokenPending, false);
        firstTokenPending = false;
        wordBefore = lastWord;
        lastWord = "";
        i = end;
      } else if (c == '"') {
        int end = sql.indexOf('"', i + 1);
        i = end < 0 ? n : end + 1;
        settle(parens, firstTokenPending, false);
        firstTokenPending = false;
        wordBefore = lastWord;
        lastWord = "";
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
          i++;
        }
        String word = sql.substring(start, i).toLowerCase(Locale.ROOT);
        settle(
            parens,
            firstTokenPending,
            word.equals("select") || word.equals("with") || word.equals("values"));
        firstTokenPending = false;
        boolean qualified = start > 0 && sql.charAt(start - 1) == '.';
        wordBefore = lastWord;
        lastWord = qualified ? "" : word;
      } else {
        if (c == '(') {
          settle(parens, firstTokenPending, false);
          parens.push(Boolean.FALSE);
          firstTokenPending = true;
        } else {
          settle(parens, firstTokenPending, false);
          firstTokenPending = false;
          if (c == ')' && !parens.isEmpty()) {
            parens.pop();
          }
        }
        wordBefore = lastWord;
        lastWord = "";
        i++;
      }
    }
    return null;
  }

  /** Decides, at the first token after an open parenthesis, whether it opens a query. */
  private static void settle(Deque<Boolean> parens, boolean pending, boolean query) {
    if (pending && !parens.isEmpty()) {
      parens.pop();
      parens.push(query);
    }
  }

  private static int endOfLiteral(String sql, int open) {
    int end = sql.indexOf('\'', open + 1);
    while (end >= 0 && end + 1 < sql.length() && sql.charAt(end + 1) == '\'') {
      end = sql.indexOf('\'', end + 2);
    }
    return end < 0 ? sql.length() : end + 1;
  }
}
