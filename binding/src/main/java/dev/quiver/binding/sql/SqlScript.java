package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into statements at the semicolons that stand outside string literals, quoted
 * names and comments; tells whether typed text ends a statement (for the shell's multi-line input).
 */
public final class SqlScript {
  private SqlScript() {}

  /** The statements of {@code text}, in order, without their semicolons; blank ones are dropped. */
  public static List<String> split(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int end : terminators(text)) {
      add(out, text.substring(start, end));
      start = end + 1;
    }
    add(out, text.substring(start));
    return out;
  }

  /**
   * The statements of {@code text} as {@link #split} finds them, each preceded by blanks standing
   * for the text before it (a newline per line, a space per column), so that the line and column of
   * an error in a statement are those of {@code text}, a script's, not the statement's.
   */
  public static List<String> splitInPlace(String text) {
    List<String> out = new ArrayList<>();
    int start = 0;
    List<Integer> ends = new ArrayList<>(terminators(text));
    ends.add(text.length());
    for (int end : ends) {
      String statement = text.substring(start, end);
      if (!onlyComments(statement)) {
        int first = start;
        while (Character.isWhitespace(text.charAt(first))) {
          first++;
        }
        int lineStart = text.lastIndexOf('\n', first - 1) + 1;
        long lines = text.substring(0, lineStart).chars().filter(c -> c == '\n').count();
        out.add("\n".repeat((int) lines) + " ".repeat(first - lineStart) + statement.strip());
      }
      start = end + 1;
    }
    return out;
  }

  /**
   * {@code text}, one statement, without the semicolons that end it and the comments after them, so
   * that {@code SET x = 1; -- note} reads the value 1 and a query ending so parses; what comes
   * before the statement is kept, so that positions in it stay those of {@code text}.
   */
  public static String withoutTerminators(String text) {
    List<Integer> ends = terminators(text);
    int end = text.length();
    for (int i = ends.size() - 1;
        i >= 0 && onlyComments(text.substring(ends.get(i) + 1, end));
        i--) {
      end = ends.get(i);
    }
    return text.substring(0, end);
  }

  private static void add(List<String> out, String statement) {
    if (!onlyComments(statement)) {
      out.add(statement.strip());
    }
  }

  /** Whether {@code text} ends with a complete statement: a terminating semicolon, then blanks. */
  public static boolean complete(String text) {
    List<Integer> ends = terminators(text);
    return !ends.isEmpty() && onlyComments(text.substring(ends.get(ends.size() - 1) + 1));
  }

  /** Whether {@code text} holds nothing but whitespace and comments. */
  public static boolean onlyComments(String text) {
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (text.startsWith("--", i)) {
        int nl = text.indexOf('\n', i);
        i = nl < 0 ? n : nl + 1;
      } else if (text.startsWith("/*", i)) {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else {
        return false;
      }
    }
    return true;
  }

  /** Offsets of the statement-ending semicolons. */
  private static List<Integer> terminators(String text) {
    List<Integer> out = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (c == '\'' || c == '"') {
        int end = text.indexOf(c, i + 1);
        i = end < 0 ? n : end + 1; // a doubled quote re-enters the literal at once
      } else if (text.startsWith("--", i)) {
        int nl = text.indexOf('\n', i);
        i = nl < 0 ? n : nl + 1;
      } else if (text.startsWith("/*", i)) {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else {
        if (c == ';') {
          out.add(i);
        }
        i++;
      }
    }
    return out;
  }
}
