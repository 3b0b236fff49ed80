package dev.quiver.tests;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares a result against a reference: floating values within 1e-9 relative (as doubles when
 * either side is floating), decimals and integers numerically exact, everything else by equality.
 * Ordered results are compared in order, except that rows tied on the sort keys may come in any
 * order; unordered results are compared as multisets.
 */
public final class ResultComparator {
  /** Relative tolerance for floating-point values. */
  static final double RELATIVE_TOLERANCE = 1e-9;

  // Sums that cancel out land near zero with rounding noise that no relative bound accepts.
  private static final double ABSOLUTE_TOLERANCE = 1e-12;
  private static final int SHOWN_ROWS = 5;

  private ResultComparator() {}

  /**
   * Returns null when {@code actual} matches {@code expected}, else a description of the
   * difference.
   */
  public static String compare(QueryResult expected, QueryResult actual, SortSpec sort) {
    if (expected.columns().size() != actual.columns().size()) {
      return "expected "
          + expected.columns().size()
          + " columns "
          + expected.columns()
          + ", got "
          + actual.columns().size()
          + " "
          + actual.columns();
    }
    int width = expected.columns().size();
    boolean[] floating = new boolean[width];
    for (int c = 0; c < width; c++) {
      floating[c] = expected.floating().get(c) || actual.floating().get(c);
    }
    List<List<Object>> exp = expected.rows();
    List<List<Object>> act = actual.rows();
    if (exp.size() != act.size()) {
      String diff =
          sort.ordered()
              ? firstOrderedDifference(exp, act, floating)
              : multisetDifference(exp, act, floating);
      return "expected " + exp.size() + " rows, got " + act.size() + "\n" + diff;
    }
    if (!sort.ordered()) {
      return multisetDifference(exp, act, floating);
    }
    // Walk runs of rows that tie on the sort keys; each run must match as a multiset.
    int start = 0;
    while (start < exp.size()) {
      int end = start + 1;
      while (end < exp.size() && sameKeys(exp.get(start), exp.get(end), sort.keyColumns())) {
        end++;
      }
      String diff = multisetDifference(exp.subList(start, end), act.subList(start, end), floating);
      if (diff != null) {
        return "rows "
            + start
            + ".."
            + (end - 1)
            + " (tied on sort keys "
            + sort.keyColumns()
            + ") differ\n"
            + diff
            + "\n"
            + firstOrderedDifference(exp, act, floating);
      }
      start = end;
    }
    return null;
  }

  /** Whether two values are equal under the comparator's rules. */
  static boolean valuesEqual(Object e, Object a, boolean floating) {
    if (e == null || a == null) {
      return e == null && a == null;
    }
    if (floating || e instanceof Double || a instanceof Double) {
      if (!(e instanceof Number) || !(a instanceof Number)) {
        return false;
      }
      double x = ((Number) e).doubleValue();
      double y = ((Number) a).doubleValue();
      if (Double.isNaN(x) || Double.isNaN(y)) {
        return Double.isNaN(x) && Double.isNaN(y);
      }
      if (x == y) {
        return true;
      }
      double diff = Math.abs(x - y);
      return diff <= ABSOLUTE_TOLERANCE
          || diff <= RELATIVE_TOLERANCE * Math.max(Math.abs(x), Math.abs(y));
    }
    if (e instanceof Number && a instanceof Number) {
      return decimal(e).compareTo(decimal(a)) == 0;
    }
    return e.equals(a);
  }

  private static boolean sameKeys(List<Object> x, List<Object> y, List<Integer> keys) {
    for (int k : keys) {
      if (!Objects.equals(exactKey(x.get(k)), exactKey(y.get(k)))) {
        return false;
      }
    }
    return true;
  }

  private static boolean rowsEqual(List<Object> e, List<Object> a, boolean[] floating) {
    for (int c = 0; c < floating.length; c++) {
      if (!valuesEqual(e.get(c), a.get(c), floating[c])) {
        return false;
      }
    }
    return true;
  }

  /**
   * Compares two row lists as multisets: rows are grouped by their exact (non-floating) columns,
   * and within a group floating columns are matched within tolerance.
   */
  private static String multisetDifference(
      List<List<Object>> exp, List<List<Object>> act, boolean[] floating) {
    Map<String, List<List<Object>>> expGroups = group(exp, floating);
    Map<String, List<List<Object>>> actGroups = group(act, floating);
    List<List<Object>> missing = new ArrayList<>();
    List<List<Object>> extra = new ArrayList<>();
    for (Map.Entry<String, List<List<Object>>> g : expGroups.entrySet()) {
      List<List<Object>> candidates =
          new ArrayList<>(actGroups.getOrDefault(g.getKey(), List.of()));
      for (List<Object> row : g.getValue()) {
        int match = -1;
        for (int i = 0; i < candidates.size(); i++) {
          if (rowsEqual(row, candidates.get(i), floating)) {
            match = i;
            break;
          }
        }
        if (match >= 0) {
          candidates.remove(match);
        } else {
          missing.add(row);
        }
      }
      extra.addAll(candidates);
    }
    for (Map.Entry<String, List<List<Object>>> g : actGroups.entrySet()) {
      if (!expGroups.containsKey(g.getKey())) {
        extra.addAll(g.getValue());
      }
    }
    if (missing.isEmpty() && extra.isEmpty()) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    sb.append(missing.size())
        .append(" expected rows missing, ")
        .append(extra.size())
        .append(" unexpected rows");
    appendRows(sb, "missing", missing);
    appendRows(sb, "unexpected", extra);
    return sb.toString();
  }

  private static Map<String, List<List<Object>>> group(
      List<List<Object>> rows, boolean[] floating) {
    Map<String, List<List<Object>>> groups = new LinkedHashMap<>();
    for (List<Object> row : rows) {
      StringBuilder key = new StringBuilder();
      for (int c = 0; c < floating.length; c++) {
        key.append(floating[c] ? "~" : exactKey(row.get(c))).append('\u0001');
      }
      groups.computeIfAbsent(key.toString(), k -> new ArrayList<>()).add(row);
    }
    // Sort floating members so that the greedy matching pairs near values first.
    Comparator<List<Object>> byFloats =
        (x, y) -> {
          for (int c = 0; c < floating.length; c++) {
            if (floating[c]) {
              int cmp = Double.compare(asDouble(x.get(c)), asDouble(y.get(c)));
              if (cmp != 0) {
                return cmp;
              }
            }
          }
          return 0;
        };
    Map<String, List<List<Object>>> sorted = new HashMap<>();
    for (Map.Entry<String, List<List<Object>>> g : groups.entrySet()) {
      List<List<Object>> members = new ArrayList<>(g.getValue());
      members.sort(byFloats);
      sorted.put(g.getKey(), members);
    }
    Map<String, List<List<Object>>> ordered = new LinkedHashMap<>();
    groups.keySet().forEach(k -> ordered.put(k, sorted.get(k)));
    return ordered;
  }

  private static String firstOrderedDifference(
      List<List<Object>> exp, List<List<Object>> act, boolean[] floating) {
    int n = Math.max(exp.size(), act.size());
    for (int i = 0; i < n; i++) {
      List<Object> e = i < exp.size() ? exp.get(i) : null;
      List<Object> a = i < act.size() ? act.get(i) : null;
      if (e == null || a == null || !rowsEqual(e, a, floating)) {
        StringBuilder sb = new StringBuilder("first differing row in order: #").append(i);
        for (int j = i; j < Math.min(n, i + SHOWN_ROWS); j++) {
          sb.append("\n  #")
              .append(j)
              .append(" expected ")
              .append(j < exp.size() ? exp.get(j) : "<none>")
              .append("\n  #")
              .append(j)
              .append(" actual   ")
              .append(j < act.size() ? act.get(j) : "<none>");
        }
        return sb.toString();
      }
    }
    return "rows agree in order";
  }

  private static void appendRows(StringBuilder sb, String label, List<List<Object>> rows) {
    for (int i = 0; i < Math.min(SHOWN_ROWS, rows.size()); i++) {
      sb.append("\n  ").append(label).append(": ").append(rows.get(i));
    }
    if (rows.size() > SHOWN_ROWS) {
      sb.append("\n  ... ").append(rows.size() - SHOWN_ROWS).append(" more ").append(label);
    }
  }

  /** A canonical text for exact comparison: numbers by value, other values by type and text. */
  private static String exactKey(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof Double d) {
      return "F:" + d;
    }
    if (v instanceof Number) {
      BigDecimal d = decimal(v);
      return "N:" + (d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString());
    }
    return v.getClass().getSimpleName() + ":" + v;
  }

  private static BigDecimal decimal(Object n) {
    if (n instanceof BigDecimal d) {
      return d;
    }
    if (n instanceof Long l) {
      return BigDecimal.valueOf(l);
    }
    return new BigDecimal(n.toString());
  }

  private static double asDouble(Object v) {
    return v instanceof Number n ? n.doubleValue() : Double.NEGATIVE_INFINITY;
  }
}
