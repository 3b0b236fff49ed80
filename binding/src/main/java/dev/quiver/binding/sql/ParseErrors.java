package dev.quiver.binding.sql;

import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.statement.StatementParser;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.parser.babel.ParseException;
import org.apache.calcite.sql.parser.babel.Token;

/**
 * Calcite's parse errors in one line a user can act on: an unknown first word is named as an
 * unknown statement with the closest statement word ({@code SELEC}), and a statement that stops too
 * early or meets a wrong token says what may come there ("an expression") instead of Calcite's list
 * of 50 token kinds.
 */
final class ParseErrors {
  private ParseErrors() {}

  /** Words a statement may start with, Calcite's and {@link StatementParser}'s. */
  private static final List<String> STATEMENT_WORDS =
      List.of(
          "SELECT",
          "WITH",
          "VALUES",
          "TABLE",
          "FROM",
          "INSERT",
          "UPSERT",
          "UPDATE",
          "DELETE",
          "MERGE",
          "EXPLAIN",
          "DESCRIBE",
          "DESC",
          "SHOW",
          "SET",
          "RESET",
          "CREATE",
          "DROP",
          "ALTER",
          "TRUNCATE",
          "COPY",
          "ATTACH",
          "DETACH",
          "COMMIT",
          "ROLLBACK",
          "CALL",
          "PIVOT",
          "UNPIVOT");

  /**
   * The error for {@code e}, raised parsing {@code text} that starts at {@code line}, {@code
   * column} of the user's text.
   */
  static SqlParseException of(
      org.apache.calcite.sql.parser.SqlParseException e, String text, int line, int column) {
    String word = StatementParser.leadingWord(text);
    if (!word.isEmpty() && !STATEMENT_WORDS.contains(word)) {
      int[] at = position(text, StatementParser.leadingWordStart(text));
      return error(
          "unknown statement "
              + word
              + Suggestions.formatted(Suggestions.closest(word, STATEMENT_WORDS)),
          at[0],
          at[1],
          line,
          column,
          e);
    }
    SqlParserPos pos = e.getPos();
    int l = pos == null ? 1 : Math.max(1, pos.getLineNum());
    int c = pos == null ? 1 : Math.max(1, pos.getColumnNum());
    String message = firstLine(e.getMessage());
    if (e.getCause() instanceof ParseException pe
        && pe.currentToken != null
        && e.getExpectedTokenSequences() != null
        && message.startsWith("Encountered ")) {
      // The tokens Calcite's message shows: as many as its longest expected sequence.
      int shown = 1;
      for (int[] sequence : e.getExpectedTokenSequences()) {
        shown = Math.max(shown, sequence.length);
      }
      int n = 0;
      boolean ends = false;
      for (Token t = pe.currentToken.next; t != null && n < shown && !ends; t = t.next) {
        n++;
        ends = t.kind == 0;
      }
      if (ends) {
        String expected = expected(e, n);
        // At the end when nothing but the end was shown; else at the token shown before it
        // (WHERE a > points at >).
        int[] at = n == 1 ? position(text, text.stripTrailing().length()) : new int[] {l, c};
        return error(
            "the statement ends after '"
                + lastWords(text)
                + "'"
                + (expected == null ? "" : "; expected " + expected + " there"),
            at[0],
            at[1],
            line,
            column,
            e);
      }
      // One token shown: what was expected in its place (LenientParser may have moved the
      // error to another token, shown with the one after it).
      String expected = n == 1 && !message.matches("Encountered \".* .*\"") ? expected(e, 1) : null;
      if (expected != null) {
        return error(message + "; expected " + expected + " there", l, c, line, column, e);
      }
    }
    java.util.regex.Matcher keyword = LAST_KEYWORD.matcher(message);
    if (keyword.matches()
        && text.stripTrailing().toUpperCase(Locale.ROOT).endsWith(keyword.group(1))) {
      // Babel's reserved word where a name or expression should follow, at the end: the error
      // stays at the word.
      return error("the statement ends after '" + lastWords(text) + "'", l, c, line, column, e);
    }
    return error(message, l, c, line, column, e);
  }

  private static final java.util.regex.Pattern LAST_KEYWORD =
      java.util.regex.Pattern.compile("^Incorrect syntax near the keyword '(\\w+)'$");

  private static SqlParseException error(
      String message,
      int l,
      int c,
      int line,
      int column,
      org.apache.calcite.sql.parser.SqlParseException cause) {
    int absLine = line + l - 1;
    int absCol = l == 1 ? column + c - 1 : c;
    return new SqlParseException("SQL parse error: " + message, absLine, absCol, cause);
  }

  /**
   * What the parser would take as the {@code n}th token after the last one it accepted (where it
   * failed), summarized: "an expression", "a name", "')'", "an operator", or up to six keywords;
   * null when nothing short says it.
   */
  private static String expected(org.apache.calcite.sql.parser.SqlParseException e, int n) {
    int[][] sequences = e.getExpectedTokenSequences();
    String[] images = e.getTokenImages();
    if (sequences == null || images == null || n == 0) {
      return null;
    }
    Set<String> next = new LinkedHashSet<>();
    for (int[] sequence : sequences) {
      if (sequence.length == n) {
        next.add(images[sequence[n - 1]]);
      }
    }
    List<String> parts = new java.util.ArrayList<>();
    boolean names = next.contains("<IDENTIFIER>");
    if (names && next.contains("<UNSIGNED_INTEGER_LITERAL>")) {
      parts.add("an expression");
    } else if (names) {
      parts.add("a name");
    }
    if (next.contains("\")\"")) {
      parts.add("')'");
    }
    if (next.contains("\"+\"") && next.contains("\"=\"")) {
      parts.add("an operator");
    }
    if (parts.isEmpty()) {
      List<String> words =
          next.stream()
              .filter(s -> s.startsWith("\"") && !s.equals("\"<EOF>\""))
              .map(s -> "'" + s.substring(1, s.length() - 1) + "'")
              .toList();
      if (words.isEmpty() || words.size() > 6 || words.size() < next.size()) {
        return null;
      }
      return String.join(" or ", words);
    }
    return String.join(" or ", parts);
  }

  /** The last two words of the statement, as a user sees where it stops. */
  private static String lastWords(String text) {
    String[] words = text.strip().split("\\s+");
    int from = Math.max(0, words.length - 2);
    return String.join(" ", List.of(words).subList(from, words.length));
  }

  /** 1-based line and column of {@code offset} in {@code text}. */
  private static int[] position(String text, int offset) {
    int l = 1;
    int c = 1;
    for (int i = 0; i < offset && i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        l++;
        c = 1;
      } else {
        c++;
      }
    }
    return new int[] {l, c};
  }

  /** The first line of Calcite's message, without the position it repeats. */
  private static String firstLine(String message) {
    if (message == null) {
      return "invalid syntax";
    }
    String m = message.strip();
    int nl = m.indexOf('\n');
    String first = nl < 0 ? m : m.substring(0, nl);
    return first.replaceFirst(
        "^((?:Encountered|Incorrect syntax near) .*) at line \\d+, column \\d+\\.?$", "$1");
  }
}
