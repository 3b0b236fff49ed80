package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.time.temporal.IsoFields;
import java.util.Locale;

/**
 * Dates and timestamps as text in three dialects of format strings: C's strftime (DuckDB's {@code
 * strftime}), PostgreSQL's template patterns ({@code to_char}) and MySQL's specifiers ({@code
 * date_format}). Names of months and days are English. An unknown specifier is an error naming it,
 * never silently copied.
 */
final class DateFormats {
  private DateFormats() {}

  /** DuckDB's/C's {@code strftime}: %Y %m %d %H %M %S %f ..., {@code %-d} without padding. */
  static String strftime(LocalDateTime t, String format) {
    StringBuilder out = new StringBuilder(format.length() + 16);
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 >= format.length()) {
        out.append(c);
        continue;
      }
      char s = format.charAt(++i);
      boolean pad = true;
      if (s == '-' && i + 1 < format.length()) {
        pad = false;
        s = format.charAt(++i);
      }
      switch (s) {
        case 'Y' -> out.append(t.getYear());
        case 'y' -> num(out, t.getYear() % 100, 2, pad);
        case 'm' -> num(out, t.getMonthValue(), 2, pad);
        case 'd' -> num(out, t.getDayOfMonth(), 2, pad);
        case 'e' -> out.append(pad && t.getDayOfMonth() < 10 ? " " : "").append(t.getDayOfMonth());
        case 'H' -> num(out, t.getHour(), 2, pad);
        case 'I' -> num(out, hour12(t), 2, pad);
        case 'M' -> num(out, t.getMinute(), 2, pad);
        case 'S' -> num(out, t.getSecond(), 2, pad);
        case 'f' -> num(out, t.getNano() / 1_000, 6, true);
        case 'g' -> num(out, t.getNano() / 1_000_000, 3, true);
        case 'p' -> out.append(t.getHour() < 12 ? "AM" : "PM");
        case 'b', 'h' -> out.append(month(t, TextStyle.SHORT));
        case 'B' -> out.append(month(t, TextStyle.FULL));
        case 'a' -> out.append(day(t, TextStyle.SHORT));
        case 'A' -> out.append(day(t, TextStyle.FULL));
        case 'j' -> num(out, t.getDayOfYear(), 3, pad);
        case 'w' -> out.append(t.getDayOfWeek().getValue() % 7);
        case 'u' -> out.append(t.getDayOfWeek().getValue());
        case 'V' -> num(out, t.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR), 2, pad);
        case 'G' -> out.append(t.get(IsoFields.WEEK_BASED_YEAR));
        case 'F' -> out.append(strftime(t, "%Y-%m-%d"));
        case 'T' -> out.append(strftime(t, "%H:%M:%S"));
        case 'D' -> out.append(strftime(t, "%m/%d/%y"));
        case 'R' -> out.append(strftime(t, "%H:%M"));
        case 'n' -> out.append('\n');
        case 't' -> out.append('\t');
        case '%' -> out.append('%');
        default -> throw unknown("strftime", "%" + s, format);
      }
    }
    return out.toString();
  }

  /** MySQL's {@code date_format}: %Y %m %d %H %i %s %M (month name) %W (weekday) ... */
  static String mysql(LocalDateTime t, String format) {
    StringBuilder out = new StringBuilder(format.length() + 16);
    for (int i = 0; i < format.length(); i++) {
      char c = format.charAt(i);
      if (c != '%' || i + 1 >= format.length()) {
        out.append(c);
        continue;
      }
      char s = format.charAt(++i);
      switch (s) {
        case 'Y' -> out.append(t.getYear());
        case 'y' -> num(out, t.getYear() % 100, 2, true);
        case 'm' -> num(out, t.getMonthValue(), 2, true);
        case 'c' -> out.append(t.getMonthValue());
        case 'd' -> num(out, t.getDayOfMonth(), 2, true);
        case 'e' -> out.append(t.getDayOfMonth());
        case 'H' -> num(out, t.getHour(), 2, true);
        case 'k' -> out.append(t.getHour());
        case 'h', 'I' -> num(out, hour12(t), 2, true);
        case 'l' -> out.append(hour12(t));
        case 'i' -> num(out, t.getMinute(), 2, true);
        case 's', 'S' -> num(out, t.getSecond(), 2, true);
        case 'f' -> num(out, t.getNano() / 1_000, 6, true);
        case 'p' -> out.append(t.getHour() < 12 ? "AM" : "PM");
        case 'M' -> out.append(month(t, TextStyle.FULL));
        case 'b' -> out.append(month(t, TextStyle.SHORT));
        case 'W' -> out.append(day(t, TextStyle.FULL));
        case 'a' -> out.append(day(t, TextStyle.SHORT));
        case 'j' -> num(out, t.getDayOfYear(), 3, true);
        case 'w' -> out.append(t.getDayOfWeek().getValue() % 7);
        case 'T' -> out.append(strftime(t, "%H:%M:%S"));
        case 'r' -> out.append(strftime(t, "%I:%M:%S %p"));
        case '%' -> out.append('%');
        default -> throw unknown("date_format", "%" + s, format);
      }
    }
    return out.toString();
  }

  /** PostgreSQL's template patterns, longest first so HH24 wins over HH and MONTH over MON. */
  private static final String[] PG_PATTERNS = {
    "HH24", "HH12", "HH", "MI", "SS", "MS", "US", "YYYY", "YYY", "YY", "Y", "IYYY", "MONTH",
    "Month", "month", "MON", "Mon", "mon", "MM", "DAY", "Day", "day", "DY", "Dy", "dy", "DDD",
    "DD", "D", "IW", "WW", "Q", "AM", "PM", "am", "pm", "A.M.", "P.M."
  };

  /** PostgreSQL's {@code to_char(datetime, template)}; {@code FM} drops padding, "..." is text. */
  static String toChar(LocalDateTime t, String format) {
    StringBuilder out = new StringBuilder(format.length() + 16);
    int i = 0;
    while (i < format.length()) {
      if (format.charAt(i) == '"') {
        int end = format.indexOf('"', i + 1);
        end = end < 0 ? format.length() : end;
        out.append(format, i + 1, end);
        i = end + 1;
        continue;
      }
      boolean fill = true;
      if (format.startsWith("FM", i) || format.startsWith("fm", i)) {
        fill = false;
        i += 2;
      }
      String p = null;
      for (String candidate : PG_PATTERNS) {
        if (format.startsWith(candidate, i)) {
          p = candidate;
          break;
        }
      }
      if (p == null) {
        out.append(format.charAt(i++));
        continue;
      }
      i += p.length();
      switch (p) {
        case "HH24" -> num(out, t.getHour(), 2, fill);
        case "HH12", "HH" -> num(out, hour12(t), 2, fill);
        case "MI" -> num(out, t.getMinute(), 2, fill);
        case "SS" -> num(out, t.getSecond(), 2, fill);
        case "MS" -> num(out, t.getNano() / 1_000_000, 3, fill);
        case "US" -> num(out, t.getNano() / 1_000, 6, fill);
        case "YYYY" -> num(out, t.getYear(), 4, fill);
        case "IYYY" -> num(out, t.get(IsoFields.WEEK_BASED_YEAR), 4, fill);
        case "YYY" -> num(out, t.getYear() % 1000, 3, fill);
        case "YY" -> num(out, t.getYear() % 100, 2, fill);
        case "Y" -> out.append(t.getYear() % 10);
        case "MONTH", "Month", "month" -> text(out, cased(month(t, TextStyle.FULL), p), 9, fill);
        case "MON", "Mon", "mon" -> out.append(cased(month(t, TextStyle.SHORT), p));
        case "MM" -> num(out, t.getMonthValue(), 2, fill);
        case "DAY", "Day", "day" -> text(out, cased(day(t, TextStyle.FULL), p), 9, fill);
        case "DY", "Dy", "dy" -> out.append(cased(day(t, TextStyle.SHORT), p));
        case "DDD" -> num(out, t.getDayOfYear(), 3, fill);
        case "DD" -> num(out, t.getDayOfMonth(), 2, fill);
        case "D" -> out.append(t.getDayOfWeek().getValue() % 7 + 1);
        case "IW" -> num(out, t.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR), 2, fill);
        case "WW" -> num(out, (t.getDayOfYear() - 1) / 7 + 1, 2, fill);
        case "Q" -> out.append((t.getMonthValue() - 1) / 3 + 1);
        case "AM", "PM" -> out.append(t.getHour() < 12 ? "AM" : "PM");
        case "am", "pm" -> out.append(t.getHour() < 12 ? "am" : "pm");
        case "A.M.", "P.M." -> out.append(t.getHour() < 12 ? "A.M." : "P.M.");
        default -> throw unknown("to_char", p, format);
      }
    }
    return out.toString();
  }

  private static void num(StringBuilder out, int value, int width, boolean pad) {
    String s = Integer.toString(Math.abs(value));
    if (value < 0) {
      out.append('-');
    }
    for (int k = s.length(); pad && k < width; k++) {
      out.append('0');
    }
    out.append(s);
  }

  private static void text(StringBuilder out, String s, int width, boolean pad) {
    out.append(s);
    for (int k = s.length(); pad && k < width; k++) {
      out.append(' ');
    }
  }

  private static String cased(String s, String pattern) {
    if (pattern.equals(pattern.toUpperCase(Locale.ROOT))) {
      return s.toUpperCase(Locale.ROOT);
    }
    if (pattern.equals(pattern.toLowerCase(Locale.ROOT))) {
      return s.toLowerCase(Locale.ROOT);
    }
    return s;
  }

  private static int hour12(LocalDateTime t) {
    int h = t.getHour() % 12;
    return h == 0 ? 12 : h;
  }

  private static String month(LocalDateTime t, TextStyle style) {
    return t.getMonth().getDisplayName(style, Locale.ENGLISH);
  }

  private static String day(LocalDateTime t, TextStyle style) {
    return t.getDayOfWeek().getDisplayName(style, Locale.ENGLISH);
  }

  private static QueryTypeException unknown(String function, String specifier, String format) {
    return new QueryTypeException(
        function + ": unknown format specifier '" + specifier + "' in '" + format + "'");
  }
}
