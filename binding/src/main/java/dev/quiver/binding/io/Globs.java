package dev.quiver.binding.io;

import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Glob locations as DuckDB reads them ({@code data/*.parquet}, {@code events/**}{@code /*.parquet},
 * {@code s3://bucket/day=2026-01-0?/*.csv}): {@code *} matches within one folder name, {@code **}
 * any number of folders (none included), {@code ?} one character, {@code [abc]} one of a set. A
 * glob is listed from its base, the folders before its first wildcard, and the listing kept to the
 * objects the glob matches; Hive partition folders are read relative to the base.
 */
public final class Globs {
  private Globs() {}

  /** Whether {@code location} holds a wildcard. */
  public static boolean isGlob(String location) {
    return location.indexOf('*') >= 0 || location.indexOf('?') >= 0 || location.indexOf('[') >= 0;
  }

  /** The folders of {@code location} before its first wildcard ({@code location} without one). */
  public static String base(String location) {
    if (!isGlob(location)) {
      return location;
    }
    int first = firstWildcard(location);
    int slash = location.lastIndexOf('/', first);
    return slash < 0 ? "" : location.substring(0, slash);
  }

  /** Whether a listed object's location matches glob {@code location}. */
  public static Predicate<String> matcher(String location) {
    Pattern p = Pattern.compile(regex(location));
    return candidate -> p.matcher(candidate).matches();
  }

  private static int firstWildcard(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '*' || c == '?' || c == '[') {
        return i;
      }
    }
    return -1;
  }

  private static String regex(String glob) {
    StringBuilder re = new StringBuilder();
    int n = glob.length();
    for (int i = 0; i < n; i++) {
      char c = glob.charAt(i);
      if (c == '*' && i + 1 < n && glob.charAt(i + 1) == '*') {
        boolean folders = i + 2 < n && glob.charAt(i + 2) == '/';
        re.append(folders ? "(?:[^/]*/)*" : ".*");
        i += folders ? 2 : 1;
      } else if (c == '*') {
        re.append("[^/]*");
      } else if (c == '?') {
        re.append("[^/]");
      } else if (c == '[') {
        int close = glob.indexOf(']', i + 1);
        if (close < 0) {
          re.append("\\[");
        } else {
          String set = glob.substring(i + 1, close);
          boolean negated = set.startsWith("!");
          re.append(negated ? "[^" : "[");
          for (char m : (negated ? set.substring(1) : set).toCharArray()) {
            // Ranges (a-z) stay; what Java's classes give a meaning of their own is escaped.
            re.append(m == '\\' || m == '[' || m == '&' || m == '^' ? "\\" + m : m);
          }
          re.append(']');
          i = close;
        }
      } else {
        re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return re.toString();
  }
}
