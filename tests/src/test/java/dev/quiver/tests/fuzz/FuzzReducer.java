package dev.quiver.tests.fuzz;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Shrinks a failing query while it keeps failing the same way (delta debugging on the SQL text):
 * drops select items, WHERE, GROUP BY, HAVING, ORDER BY and LIMIT clauses, set operation branches
 * and conjuncts; replaces parenthesised expressions and function calls by one of their arguments or
 * by a constant; turns outer joins into inner ones. Works on any SQL the generator writes, which
 * parenthesises every predicate.
 */
final class FuzzReducer {
  private static final String[] CLAUSES = {
    "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "OFFSET"
  };
  private static final String[] SET_OPS = {
    "UNION ALL", "UNION", "INTERSECT ALL", "INTERSECT", "EXCEPT ALL", "EXCEPT"
  };
  private static final String[] JOINS = {
    "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "FULL OUTER JOIN", "INNER JOIN", "CROSS JOIN"
  };

  private FuzzReducer() {}

  /**
   * The shortest query found (at most {@code maxTests} tries) for which {@code failing} holds,
   * starting from {@code sql} (for which it must hold).
   */
  static String reduce(String sql, Predicate<String> failing, int maxTests) {
    String best = sql.strip();
    int tests = 0;
    Set<String> tried = new LinkedHashSet<>();
    boolean progress = true;
    while (progress && tests < maxTests) {
      progress = false;
      List<String> candidates = new ArrayList<>(new LinkedHashSet<>(candidates(best)));
      candidates.sort(Comparator.comparingInt(String::length));
      for (String c : candidates) {
        if (c.length() >= best.length() || !tried.add(c)) {
          continue;
        }
        if (++tests > maxTests) {
          break;
        }
        if (failing.test(c)) {
          best = c;
          progress = true;
          break;
        }
      }
    }
    return best;
  }

  /** Every one-step simplification of {@code sql}. */
  static List<String> candidates(String sql) {
    List<String> out = new ArrayList<>();
    int[] match = matchingParens(sql);
    for (int open = 0; open < sql.length(); open++) {
      if (sql.charAt(open) != '(' || match[open] < 0) {
        continue;
      }
      int close = match[open];
      String inner = sql.substring(open + 1, close);
      int nameStart = open;
      while (nameStart > 0 && isWordChar(sql.charAt(nameStart - 1))) {
        nameStart--;
      }
      String name = sql.substring(nameStart, open).toUpperCase(Locale.ROOT);
      boolean call = !name.isEmpty() && !isKeywordBeforeParen(name);
      int from = call ? nameStart : open;
      String before = sql.substring(0, from);
      String after = sql.substring(close + 1);
      if (!topLevelWords(inner, "ORDER BY").isEmpty() && !startsWithWord(inner.strip(), "SELECT")) {
        // A window: its order ends in unique ids to be total, so leave it alone.
        continue;
      }
      if (startsWithWord(inner.strip(), "SELECT") || startsWithWord(inner.strip(), "WITH")) {
        // A subquery or derived table: simplify inside it, or replace an expression by NULL.
        addQueryCandidates(sql, open + 1, close, out);
        if (!isFromItem(sql, open)) {
          out.add(sql.substring(0, open) + "NULL" + after);
        }
        continue;
      }
      for (String part : splitTopLevel(inner, ",")) {
        String arg = firstOperand(part);
        if (!arg.isBlank()) {
          out.add(before + "(" + arg.strip() + ")" + after);
        }
      }
      for (String op : List.of(" AND ", " OR ")) {
        List<String> parts = splitTopLevel(inner, op);
        if (parts.size() > 1) {
          for (int i = 0; i < parts.size(); i++) {
            out.add(before + "(" + parts.get(i).strip() + ")" + after);
            List<String> rest = new ArrayList<>(parts);
            rest.remove(i);
            out.add(before + "(" + String.join(op, rest) + ")" + after);
          }
        }
      }
      for (String constant : List.of("TRUE", "FALSE", "NULL", "1")) {
        out.add(before + "(" + constant + ")" + after);
      }
    }
    addQueryCandidates(sql, 0, sql.length(), out);
    for (String join : JOINS) {
      int at = indexOfWord(sql, join, 0);
      while (at >= 0) {
        out.add(sql.substring(0, at) + "JOIN" + sql.substring(at + join.length()));
        at = indexOfWord(sql, join, at + 1);
      }
    }
    return out;
  }

  /** Simplifications of the query text between {@code start} and {@code end} (one level). */
  private static void addQueryCandidates(String sql, int start, int end, List<String> out) {
    String text = sql.substring(start, end);
    String head = sql.substring(0, start);
    String tail = sql.substring(end);
    // Set operations: keep one side.
    for (String op : SET_OPS) {
      for (int at : topLevelWords(text, op)) {
        out.add(head + text.substring(0, at).strip() + tail);
        out.add(head + text.substring(at + op.length()).strip() + tail);
      }
    }
    // Clauses of the first SELECT at this level.
    List<Integer> stops = new ArrayList<>();
    for (String clause : CLAUSES) {
      stops.addAll(topLevelWords(text, clause));
    }
    for (String op : SET_OPS) {
      stops.addAll(topLevelWords(text, op));
    }
    stops.add(text.length());
    stops.sort(Integer::compare);
    for (String clause : CLAUSES) {
      for (int at : topLevelWords(text, clause)) {
        int next = stops.stream().filter(s -> s > at).findFirst().orElse(text.length());
        if (clause.equals("ORDER BY") || clause.equals("LIMIT")) {
          // LIMIT and OFFSET are only deterministic under the ORDER BY: they go together.
          next =
              stops.stream()
                  .filter(s -> s > at && !wordAt(text, s, "LIMIT") && !wordAt(text, s, "OFFSET"))
                  .findFirst()
                  .orElse(text.length());
          if (clause.equals("LIMIT")) {
            continue;
          }
        }
        if (clause.equals("OFFSET")) {
          continue;
        }
        out.add(head + text.substring(0, at) + text.substring(next) + tail);
      }
    }
    // Select items and GROUP BY / ORDER BY items.
    for (int select : topLevelWords(text, "SELECT")) {
      int fromAt =
          topLevelWords(text, "FROM").stream().filter(f -> f > select).findFirst().orElse(-1);
      if (fromAt < 0) {
        continue;
      }
      int itemsStart = select + "SELECT".length();
      if (startsWithWord(text.substring(itemsStart).strip(), "DISTINCT")) {
        int d = text.indexOf("DISTINCT", itemsStart);
        out.add(head + text.substring(0, d) + text.substring(d + "DISTINCT".length()) + tail);
        itemsStart = d + "DISTINCT".length();
      }
      dropListItems(head, text, itemsStart, fromAt, tail, out);
    }
    for (String clause : List.of("GROUP BY")) {
      for (int at : topLevelWords(text, clause)) {
        int next = stops.stream().filter(s -> s > at).findFirst().orElse(text.length());
        dropListItems(head, text, at + clause.length(), next, tail, out);
      }
    }
  }

  private static void dropListItems(
      String head, String text, int start, int end, String tail, List<String> out) {
    String list = text.substring(start, end);
    List<String> items = splitTopLevel(list, ",");
    if (items.size() < 2) {
      return;
    }
    for (int i = 0; i < items.size(); i++) {
      List<String> rest = new ArrayList<>(items);
      rest.remove(i);
      out.add(
          head
              + text.substring(0, start)
              + " "
              + String.join(",", rest).strip()
              + " "
              + text.substring(end)
              + tail);
    }
  }

  /** The expression before a top-level AS, FROM, FOR or IN keyword of a call argument. */
  private static String firstOperand(String part) {
    int cut = part.length();
    for (String word : List.of("AS", "FROM", "FOR", "IN", "WHEN", "THEN", "ELSE")) {
      for (int at : topLevelWords(part, word)) {
        cut = Math.min(cut, at);
      }
    }
    String s = part.substring(0, cut).strip();
    return startsWithWord(s, "CASE") || startsWithWord(s, "DISTINCT") ? "" : s;
  }

  private static boolean isFromItem(String sql, int open) {
    String before = sql.substring(0, open).stripTrailing().toUpperCase(Locale.ROOT);
    return before.endsWith("FROM")
        || before.endsWith("JOIN")
        || before.endsWith(",")
        || before.endsWith(" AS")
        || before.endsWith("EXISTS")
        || before.endsWith(" IN")
        || before.endsWith("ANY")
        || before.endsWith("ALL");
  }

  private static boolean isKeywordBeforeParen(String word) {
    return switch (word) {
      case "AND",
          "OR",
          "NOT",
          "IN",
          "EXISTS",
          "AS",
          "ON",
          "WHERE",
          "HAVING",
          "SELECT",
          "THEN",
          "ELSE",
          "WHEN",
          "ANY",
          "ALL",
          "FROM",
          "BY",
          "CASE",
          "IS" ->
          true;
      default -> false;
    };
  }

  /** For each '(' the index of its ')', skipping string literals; -1 elsewhere. */
  static int[] matchingParens(String s) {
    int[] match = new int[s.length()];
    java.util.Arrays.fill(match, -1);
    List<Integer> stack = new ArrayList<>();
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '\'') {
        i = skipQuoted(s, i);
      } else if (ch == '(') {
        stack.add(i);
      } else if (ch == ')' && !stack.isEmpty()) {
        match[stack.remove(stack.size() - 1)] = i;
      }
    }
    return match;
  }

  /** Splits {@code text} at {@code sep} outside parentheses and string literals. */
  static List<String> splitTopLevel(String text, String sep) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == '\'') {
        i = skipQuoted(text, i);
      } else if (ch == '(') {
        depth++;
      } else if (ch == ')') {
        depth--;
      } else if (depth == 0 && text.regionMatches(true, i, sep, 0, sep.length())) {
        parts.add(text.substring(start, i));
        start = i + sep.length();
        i += sep.length() - 1;
      }
    }
    parts.add(text.substring(start));
    return parts;
  }

  /** Positions of {@code word} (a keyword, possibly two) outside parentheses and literals. */
  private static List<Integer> topLevelWords(String text, String word) {
    List<Integer> at = new ArrayList<>();
    int depth = 0;
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == '\'') {
        i = skipQuoted(text, i);
      } else if (ch == '(') {
        depth++;
      } else if (ch == ')') {
        depth--;
      } else if (depth == 0 && wordAt(text, i, word)) {
        at.add(i);
        i += word.length() - 1;
      }
    }
    return at;
  }

  private static int indexOfWord(String text, String word, int from) {
    for (int i = from; i < text.length(); i++) {
      if (text.charAt(i) == '\'') {
        i = skipQuoted(text, i);
      } else if (wordAt(text, i, word)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean wordAt(String text, int i, String word) {
    int end = i + word.length();
    return end <= text.length()
        && text.regionMatches(true, i, word, 0, word.length())
        && (i == 0 || !isWordChar(text.charAt(i - 1)))
        && (end == text.length() || !isWordChar(text.charAt(end)));
  }

  private static boolean startsWithWord(String text, String word) {
    return wordAt(text, 0, word);
  }

  private static boolean isWordChar(char ch) {
    return Character.isLetterOrDigit(ch) || ch == '_' || ch == '$';
  }

  private static int skipQuoted(String s, int start) {
    char q = s.charAt(start);
    int i = start + 1;
    while (i < s.length()) {
      if (s.charAt(i) == q) {
        if (i + 1 < s.length() && s.charAt(i + 1) == q) {
          i += 2;
          continue;
        }
        return i;
      }
      i++;
    }
    return s.length();
  }
}
