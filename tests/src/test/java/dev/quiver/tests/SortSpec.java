package dev.quiver.tests;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a query's top-level ORDER BY says about its result: whether rows are ordered, and which
 * output columns are the leading sort keys (the longest prefix of ORDER BY items that name an
 * output column by position, name or alias). Rows equal on those keys may come in any order.
 */
public record SortSpec(boolean ordered, List<Integer> keyColumns) {
  /** A result whose row order is unspecified. */
  public static final SortSpec UNORDERED = new SortSpec(false, List.of());

  /** Sort spec of a query with ORDER BY over the given output columns. */
  static SortSpec ofColumns(List<String> orderBy, List<String> outputColumns) {
    if (orderBy.isEmpty()) {
      return UNORDERED;
    }
    List<Integer> keys = new ArrayList<>();
    for (String name : orderBy) {
      int idx = indexOf(name, outputColumns);
      if (idx < 0) {
        break;
      }
      keys.add(idx);
    }
    return new SortSpec(true, keys);
  }

  /** Analyzes {@code sql}'s top-level ORDER BY against the result's output column names. */
  public static SortSpec of(String sql, List<String> outputColumns) {
    List<String> items = topLevelOrderByItems(sql);
    if (items == null) {
      return UNORDERED;
    }
    List<Integer> keys = new ArrayList<>();
    for (String item : items) {
      int idx = resolve(item, outputColumns);
      if (idx < 0) {
        break;
      }
      keys.add(idx);
    }
    return new SortSpec(true, keys);
  }

  /** The items of the top-level ORDER BY (without ASC/DESC/NULLS), or null when there is none. */
  static List<String> topLevelOrderByItems(String sql) {
    String s = stripComments(sql);
    int depth = 0;
    int orderAt = -1;
    int endAt = s.length();
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '\'' || ch == '"') {
        i = skipQuoted(s, i);
        continue;
      }
      if (ch == '(') {
        depth++;
      } else if (ch == ')') {
        depth--;
      } else if (depth == 0 && isWordStart(s, i)) {
        if (keywordAt(s, i, "order") && nextWordIs(s, i + 5, "by")) {
          orderAt = i;
          endAt = s.length();
        } else if (orderAt >= 0
            && endAt == s.length()
            && (keywordAt(s, i, "limit")
                || keywordAt(s, i, "offset")
                || keywordAt(s, i, "fetch"))) {
          endAt = i;
        } else if (orderAt >= 0
            && (keywordAt(s, i, "union")
                || keywordAt(s, i, "intersect")
                || keywordAt(s, i, "except"))) {
          // An ORDER BY before a set operation only orders a branch.
          orderAt = -1;
          endAt = s.length();
        }
      }
    }
    if (orderAt < 0) {
      return null;
    }
    String clause = s.substring(orderAt + 5, endAt).strip();
    clause = clause.substring(2).strip(); // "by"
    if (clause.endsWith(";")) {
      clause = clause.substring(0, clause.length() - 1);
    }
    List<String> items = new ArrayList<>();
    for (String raw : splitTopLevel(clause)) {
      items.add(stripDirection(raw.strip()));
    }
    return items;
  }

  private static int resolve(String item, List<String> outputColumns) {
    if (item.matches("\\d+")) {
      int ordinal = Integer.parseInt(item);
      return ordinal >= 1 && ordinal <= outputColumns.size() ? ordinal - 1 : -1;
    }
    String name = item;
    if (name.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?")) {
      name = name.substring(name.indexOf('.') + 1);
    } else if (name.length() > 2 && name.startsWith("\"") && name.endsWith("\"")) {
      name = name.substring(1, name.length() - 1);
    } else {
      return -1;
    }
    return indexOf(name, outputColumns);
  }

  private static int indexOf(String name, List<String> outputColumns) {
    int found = -1;
    for (int c = 0; c < outputColumns.size(); c++) {
      if (outputColumns.get(c).equalsIgnoreCase(name)) {
        if (found >= 0) {
          return -1; // ambiguous
        }
        found = c;
      }
    }
    return found;
  }

  private static String stripDirection(String item) {
    String s = item;
    String lower = s.toLowerCase(Locale.ROOT);
    for (String suffix : List.of(" nulls first", " nulls last")) {
      if (lower.endsWith(suffix)) {
        s = s.substring(0, s.length() - suffix.length()).strip();
        lower = s.toLowerCase(Locale.ROOT);
      }
    }
    for (String suffix : List.of(" asc", " desc")) {
      if (lower.endsWith(suffix)) {
        s = s.substring(0, s.length() - suffix.length()).strip();
        lower = s.toLowerCase(Locale.ROOT);
      }
    }
    return s;
  }

  private static List<String> splitTopLevel(String clause) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < clause.length(); i++) {
      char ch = clause.charAt(i);
      if (ch == '\'' || ch == '"') {
        i = skipQuoted(clause, i);
      } else if (ch == '(') {
        depth++;
      } else if (ch == ')') {
        depth--;
      } else if (ch == ',' && depth == 0) {
        parts.add(clause.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(clause.substring(start));
    return parts;
  }

  private static String stripComments(String sql) {
    StringBuilder out = new StringBuilder();
    for (String line : sql.split("\n", -1)) {
      int cut = commentStart(line);
      out.append(cut >= 0 ? line.substring(0, cut) : line).append('\n');
    }
    return out.toString();
  }

  private static int commentStart(String line) {
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (ch == '\'' || ch == '"') {
        i = skipQuoted(line, i);
      } else if (ch == '-' && i + 1 < line.length() && line.charAt(i + 1) == '-') {
        return i;
      }
    }
    return -1;
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

  private static boolean isWordStart(String s, int i) {
    return Character.isLetter(s.charAt(i)) && (i == 0 || !isWordChar(s.charAt(i - 1)));
  }

  private static boolean isWordChar(char ch) {
    return Character.isLetterOrDigit(ch) || ch == '_';
  }

  private static boolean keywordAt(String s, int i, String word) {
    int end = i + word.length();
    return end <= s.length()
        && s.regionMatches(true, i, word, 0, word.length())
        && (end == s.length() || !isWordChar(s.charAt(end)));
  }

  private static boolean nextWordIs(String s, int from, String word) {
    int i = from;
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    return i > from && keywordAt(s, i, word);
  }
}
