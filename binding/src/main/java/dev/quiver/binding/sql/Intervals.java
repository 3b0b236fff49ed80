package dev.quiver.binding.sql;

import dev.quiver.binding.errors.QueryTypeException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's and DuckDB's interval literals with the unit inside the string ({@code INTERVAL '7
 * days'}, {@code INTERVAL '1 year 2 months'}, {@code INTERVAL '1 day 3 hours'}) rewritten into the
 * SQL standard's form that Calcite parses ({@code INTERVAL '7' DAY(9)}, {@code INTERVAL '14'
 * MONTH(9)}, {@code INTERVAL '1 03:00:00' DAY(9) TO SECOND}). Literals that already name their unit
 * after the string are left alone. A literal mixing months with days or smaller units has no single
 * SQL interval type and is refused with a message saying what to write.
 */
final class Intervals {
  /** Where a rewrite goes: replace {@code [start, end)} of the original text. */
  interface Edit {
    void replace(int start, int end, String replacement);
  }

  private static final Set<String> UNIT_WORDS =
      Set.of("year", "month", "day", "hour", "minute", "second", "week", "quarter");
  private static final Pattern PART =
      Pattern.compile("\\s*([+-]?\\d+(?:\\.\\d+)?)\\s*([a-z]+)\\s*", Pattern.CASE_INSENSITIVE);
  private static final long MICROS_PER_SECOND = 1_000_000L;

  private Intervals() {}

  /** Finds the interval literals of {@code sql} that need it and rewrites them via {@code edit}. */
  static void rewrite(String sql, Edit edit) {
    record Found(int start, int end, String replacement) {}
    List<Found> found = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"') {
        i = endOfQuoted(sql, i);
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        i = endOfWord(sql, i);
        if (!sql.substring(start, i).equalsIgnoreCase("interval")
            || (start > 0 && sql.charAt(start - 1) == '.')) {
          continue;
        }
        int quote = skipSpace(sql, i);
        if (quote >= n || sql.charAt(quote) != '\'') {
          continue;
        }
        int afterString = endOfQuoted(sql, quote);
        int next = skipSpace(sql, afterString);
        if (next < n && Character.isLetter(sql.charAt(next))) {
          String word = sql.substring(next, endOfWord(sql, next)).toLowerCase(Locale.ROOT);
          if (UNIT_WORDS.contains(word) || UNIT_WORDS.contains(word.replaceAll("s$", ""))) {
            continue; // INTERVAL '7' DAY: already the standard form
          }
        }
        String body = sql.substring(quote + 1, afterString - 1).replace("''", "'");
        String replacement = standardForm(body);
        if (replacement != null) {
          found.add(new Found(start, afterString, replacement));
        }
        i = afterString;
      } else {
        i++;
      }
    }
    for (int k = found.size() - 1; k >= 0; k--) {
      Found f = found.get(k);
      edit.replace(f.start(), f.end(), f.replacement());
    }
  }

  /**
   * The standard form of interval text {@code body} ({@code 7 days}, {@code 1 year 2 months}), or
   * null when it is not made of number-unit pairs (left for the parser to report).
   */
  static String standardForm(String body) {
    Matcher m = PART.matcher(body);
    int at = 0;
    long months = 0;
    BigDecimal micros = BigDecimal.ZERO;
    boolean anyMonths = false;
    boolean anyTime = false;
    String onlyUnit = null;
    int parts = 0;
    while (at < body.length()) {
      m.region(at, body.length());
      if (!m.lookingAt()) {
        return null;
      }
      BigDecimal value = new BigDecimal(m.group(1));
      String unit = unit(m.group(2));
      if (unit == null) {
        return null;
      }
      boolean monthUnit = unit.equals("YEAR") || unit.equals("MONTH") || unit.equals("QUARTER");
      if (monthUnit) {
        if (value.stripTrailingZeros().scale() > 0) {
          throw new QueryTypeException(
              "INTERVAL '"
                  + body
                  + "': a number of "
                  + unit.toLowerCase(Locale.ROOT)
                  + "s must be whole");
        }
        long factor = unit.equals("YEAR") ? 12 : unit.equals("QUARTER") ? 3 : 1;
        months = Math.addExact(months, Math.multiplyExact(value.longValueExact(), factor));
        anyMonths = true;
      } else {
        micros = micros.add(value.multiply(BigDecimal.valueOf(microsPer(unit))));
        anyTime = true;
      }
      onlyUnit = parts == 0 ? unit : null;
      parts++;
      at = m.end();
    }
    if (parts == 0) {
      return null;
    }
    if (anyMonths && anyTime) {
      throw new QueryTypeException(
          "INTERVAL '"
              + body
              + "' mixes months or years with days or smaller units, which no single interval"
              + " type holds; add two intervals instead, e.g. INTERVAL '1 month' + INTERVAL '2 days'");
    }
    if (anyMonths) {
      return onlyUnit != null && onlyUnit.equals("YEAR")
          ? "INTERVAL '" + months / 12 + "' YEAR(9)"
          : "INTERVAL '" + months + "' MONTH(9)";
    }
    if (onlyUnit != null
        && Set.of("DAY", "HOUR", "MINUTE", "SECOND").contains(onlyUnit)
        && micros.remainder(BigDecimal.valueOf(microsPer(onlyUnit))).signum() == 0) {
      BigDecimal count = micros.divide(BigDecimal.valueOf(microsPer(onlyUnit)));
      return "INTERVAL '" + count.toBigIntegerExact() + "' " + onlyUnit + "(9)";
    }
    if (micros.stripTrailingZeros().scale() > 0) {
      throw new QueryTypeException("INTERVAL '" + body + "' is more precise than a microsecond");
    }
    long total = micros.longValueExact();
    String sign = total < 0 ? "-" : "";
    long abs = Math.abs(total);
    long days = abs / (86_400 * MICROS_PER_SECOND);
    long rest = abs % (86_400 * MICROS_PER_SECOND);
    long hours = rest / (3_600 * MICROS_PER_SECOND);
    rest %= 3_600 * MICROS_PER_SECOND;
    long minutes = rest / (60 * MICROS_PER_SECOND);
    rest %= 60 * MICROS_PER_SECOND;
    long seconds = rest / MICROS_PER_SECOND;
    long fraction = rest % MICROS_PER_SECOND;
    String time =
        String.format(Locale.ROOT, "%d %02d:%02d:%02d", days, hours, minutes, seconds)
            + (fraction == 0 ? "" : String.format(Locale.ROOT, ".%06d", fraction));
    return "INTERVAL '" + sign + time + "' DAY(9) TO SECOND" + (fraction == 0 ? "" : "(6)");
  }

  private static String unit(String word) {
    String w = word.toLowerCase(Locale.ROOT);
    return switch (w) {
      case "y", "yr", "yrs", "year", "years" -> "YEAR";
      case "quarter", "quarters" -> "QUARTER";
      case "mon", "mons", "month", "months" -> "MONTH";
      case "w", "week", "weeks" -> "WEEK";
      case "d", "day", "days" -> "DAY";
      case "h", "hr", "hrs", "hour", "hours" -> "HOUR";
      case "m", "min", "mins", "minute", "minutes" -> "MINUTE";
      case "s", "sec", "secs", "second", "seconds" -> "SECOND";
      case "ms", "msec", "msecs", "millisecond", "milliseconds" -> "MILLISECOND";
      case "us", "usec", "usecs", "microsecond", "microseconds" -> "MICROSECOND";
      default -> null;
    };
  }

  private static long microsPer(String unit) {
    return switch (unit) {
      case "WEEK" -> 7 * 86_400 * MICROS_PER_SECOND;
      case "DAY" -> 86_400 * MICROS_PER_SECOND;
      case "HOUR" -> 3_600 * MICROS_PER_SECOND;
      case "MINUTE" -> 60 * MICROS_PER_SECOND;
      case "SECOND" -> MICROS_PER_SECOND;
      case "MILLISECOND" -> 1_000;
      default -> 1; // MICROSECOND
    };
  }

  private static int endOfQuoted(String sql, int open) {
    char q = sql.charAt(open);
    int end = sql.indexOf(q, open + 1);
    while (end >= 0 && end + 1 < sql.length() && sql.charAt(end + 1) == q) {
      end = sql.indexOf(q, end + 2);
    }
    return end < 0 ? sql.length() : end + 1;
  }

  private static int endOfWord(String sql, int i) {
    while (i < sql.length()
        && (Character.isLetterOrDigit(sql.charAt(i))
            || sql.charAt(i) == '_'
            || sql.charAt(i) == '$')) {
      i++;
    }
    return i;
  }

  private static int skipSpace(String sql, int i) {
    while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
      i++;
    }
    return i;
  }
}
