package dev.quiver.binding.physical.scan;

import java.nio.charset.StandardCharsets;

/**
 * Parsers for CSV field bytes that work on the byte range directly (no String per value except for
 * floating point). Each returns a sentinel or throws {@link NumberFormatException} on bad input.
 */
public final class CsvValues {
  /** Returned by {@link #parseDate} for text that is not a valid {@code yyyy-MM-dd} date. */
  public static final long NOT_A_DATE = Long.MIN_VALUE;

  private CsvValues() {}

  /** The range with ASCII spaces and tabs removed from both ends, as {start, end}. */
  static int trimStart(byte[] b, int start, int end) {
    while (start < end && (b[start] == ' ' || b[start] == '\t')) {
      start++;
    }
    return start;
  }

  static int trimEnd(byte[] b, int start, int end) {
    while (end > start && (b[end - 1] == ' ' || b[end - 1] == '\t')) {
      end--;
    }
    return end;
  }

  /** Whether the bytes are an optionally signed decimal integer that fits in a long. */
  public static boolean isLong(byte[] b, int start, int len) {
    try {
      parseLong(b, start, len);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Parses an optionally signed decimal integer (surrounding spaces allowed). */
  public static long parseLong(byte[] b, int start, int len) {
    int end = trimEnd(b, start, start + len);
    int i = trimStart(b, start, end);
    if (i == end) {
      throw new NumberFormatException("empty");
    }
    boolean negative = false;
    if (b[i] == '-' || b[i] == '+') {
      negative = b[i] == '-';
      i++;
      if (i == end) {
        throw new NumberFormatException("sign only");
      }
    }
    long value = 0;
    for (; i < end; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        throw new NumberFormatException("not a digit");
      }
      // Accumulate negatively so that Long.MIN_VALUE parses.
      if (value < (Long.MIN_VALUE + d) / 10) {
        throw new NumberFormatException("out of range");
      }
      value = value * 10 - d;
    }
    if (!negative) {
      if (value == Long.MIN_VALUE) {
        throw new NumberFormatException("out of range");
      }
      value = -value;
    }
    return value;
  }

  /**
   * Whether the bytes are a plain decimal number ({@code -1.5}, {@code 2e10}, {@code .5}) or {@code
   * NaN}/{@code inf}/{@code -inf}/{@code Infinity}, the forms the CSV reader treats as DOUBLE.
   */
  public static boolean isDouble(byte[] b, int start, int len) {
    int end = trimEnd(b, start, start + len);
    int i = trimStart(b, start, end);
    if (i < end && (b[i] == '-' || b[i] == '+')) {
      i++;
    }
    String word =
        new String(b, i, end - i, StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
    if (word.equals("nan") || word.equals("inf") || word.equals("infinity")) {
      return true;
    }
    int digits = 0;
    while (i < end && b[i] >= '0' && b[i] <= '9') {
      i++;
      digits++;
    }
    if (i < end && b[i] == '.') {
      i++;
      while (i < end && b[i] >= '0' && b[i] <= '9') {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return false;
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < end && (b[i] == '-' || b[i] == '+')) {
        i++;
      }
      int exp = 0;
      while (i < end && b[i] >= '0' && b[i] <= '9') {
        i++;
        exp++;
      }
      if (exp == 0) {
        return false;
      }
    }
    return i == end;
  }

  /** Parses a number accepted by {@link #isDouble}. */
  public static double parseDouble(byte[] b, int start, int len) {
    if (!isDouble(b, start, len)) {
      throw new NumberFormatException("not a number");
    }
    String s =
        new String(b, start, len, StandardCharsets.US_ASCII)
            .trim()
            .toLowerCase(java.util.Locale.ROOT);
    return switch (s) {
      case "nan", "+nan", "-nan" -> Double.NaN;
      case "inf", "+inf", "infinity", "+infinity" -> Double.POSITIVE_INFINITY;
      case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(s);
    };
  }

  /** Epoch day of a {@code yyyy-MM-dd} date, or {@link #NOT_A_DATE}. */
  public static long parseDate(byte[] b, int start, int len) {
    int end = trimEnd(b, start, start + len);
    int i = trimStart(b, start, end);
    if (end - i != 10 || b[i + 4] != '-' || b[i + 7] != '-') {
      return NOT_A_DATE;
    }
    int year = digits(b, i, 4);
    int month = digits(b, i + 5, 2);
    int day = digits(b, i + 8, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
      return NOT_A_DATE;
    }
    return epochDay(year, month, day);
  }

  /**
   * Microseconds since the epoch of {@code yyyy-MM-dd[( |T)HH:mm[:ss[.fraction]]]}, throwing {@link
   * NumberFormatException} otherwise.
   */
  public static long parseTimestampMicros(byte[] b, int start, int len) {
    int end = trimEnd(b, start, start + len);
    int i = trimStart(b, start, end);
    if (end - i < 10) {
      throw new NumberFormatException("too short");
    }
    long day = parseDate(b, i, 10);
    if (day == NOT_A_DATE) {
      throw new NumberFormatException("bad date");
    }
    long micros = day * 86_400_000_000L;
    i += 10;
    if (i == end) {
      return micros;
    }
    if ((b[i] != ' ' && b[i] != 'T') || end - i < 6 || b[i + 3] != ':') {
      throw new NumberFormatException("bad time");
    }
    int hour = digits(b, i + 1, 2);
    int minute = digits(b, i + 4, 2);
    int second = 0;
    i += 6;
    if (i < end && b[i] == ':') {
      if (end - i < 3) {
        throw new NumberFormatException("bad seconds");
      }
      second = digits(b, i + 1, 2);
      i += 3;
    }
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
      throw new NumberFormatException("bad time");
    }
    long fraction = 0;
    if (i < end && b[i] == '.') {
      i++;
      int n = 0;
      for (; i < end && b[i] >= '0' && b[i] <= '9'; i++, n++) {
        if (n < 6) {
          fraction = fraction * 10 + (b[i] - '0');
        }
      }
      if (n == 0) {
        throw new NumberFormatException("bad fraction");
      }
      for (; n < 6; n++) {
        fraction *= 10;
      }
    }
    if (i != end) {
      throw new NumberFormatException("trailing text");
    }
    return micros + ((hour * 60L + minute) * 60 + second) * 1_000_000L + fraction;
  }

  /**
   * Parses {@code true}/{@code false}/{@code t}/{@code f}/{@code 1}/{@code 0} (any case); -1
   * otherwise.
   */
  public static int parseBoolean(byte[] b, int start, int len, boolean strict) {
    int end = trimEnd(b, start, start + len);
    int i = trimStart(b, start, end);
    int n = end - i;
    if (n == 4 && lowerEquals(b, i, "true")) {
      return 1;
    }
    if (n == 5 && lowerEquals(b, i, "false")) {
      return 0;
    }
    if (!strict && n == 1) {
      int c = b[i] | 0x20;
      if (c == 't' || b[i] == '1') {
        return 1;
      }
      if (c == 'f' || b[i] == '0') {
        return 0;
      }
    }
    return -1;
  }

  private static boolean lowerEquals(byte[] b, int i, String word) {
    for (int k = 0; k < word.length(); k++) {
      if ((b[i + k] | 0x20) != word.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  private static int digits(byte[] b, int i, int n) {
    int v = 0;
    for (int k = 0; k < n; k++) {
      int d = b[i + k] - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }

  private static int daysInMonth(int year, int month) {
    return switch (month) {
      case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  /** Days since 1970-01-01 of a proleptic Gregorian date (civil-from-days inverse). */
  static long epochDay(long year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400);
    long yoe = y - era * 400;
    long doy = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
  }
}
