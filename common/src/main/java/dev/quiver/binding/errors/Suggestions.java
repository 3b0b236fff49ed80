package dev.quiver.binding.errors;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** Picks the existing names closest to a misspelt one, for "did you mean" hints in errors. */
public final class Suggestions {
  private Suggestions() {}

  /** Returns up to three candidates within a small edit distance of {@code name}, closest first. */
  public static List<String> closest(String name, Collection<String> candidates) {
    String needle = name.toLowerCase(Locale.ROOT);
    int budget = Math.max(2, needle.length() / 3);
    List<String> hits = new ArrayList<>();
    for (String candidate : candidates) {
      if (distance(needle, candidate.toLowerCase(Locale.ROOT)) <= budget) {
        hits.add(candidate);
      }
    }
    hits.sort(
        Comparator.comparingInt((String c) -> distance(needle, c.toLowerCase(Locale.ROOT)))
            .thenComparing(Comparator.naturalOrder()));
    return hits.size() > 3 ? List.copyOf(hits.subList(0, 3)) : List.copyOf(hits);
  }

  /** {@code "; did you mean 'a', 'b'?"}, or empty when there are no suggestions. */
  public static String formatted(List<String> suggestions) {
    return format(suggestions);
  }

  static String format(List<String> suggestions) {
    if (suggestions == null || suggestions.isEmpty()) {
      return "";
    }
    return "; did you mean "
        + String.join(", ", suggestions.stream().map(s -> "'" + s + "'").toList())
        + "?";
  }

  /** Levenshtein distance; names are short, so the quadratic table is fine. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
