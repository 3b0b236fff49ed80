package dev.quiver.binding.physical.expr;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;

/**
 * ISO text of dates ({@code yyyy-MM-dd}) and timestamps ({@code yyyy-MM-dd HH:mm:ss[.ffffff]},
 * trailing zeros of the fraction dropped) written as ASCII bytes without objects per value, for
 * casts of whole columns to text. Years outside 0-9999 take {@link LocalDate#toString}'s form.
 */
final class TemporalText {
  /** Longest text {@link #timestamp} writes: a year of up to 10 digits and its sign, a fraction. */
  static final int MAX_BYTES = 40;

  private TemporalText() {}

  /** Writes epoch day {@code days} at {@code out[at]}; returns the position after it. */
  static int date(long days, byte[] out, int at) {
    long packed = Civil.fromDays(days);
    long year = Civil.year(packed);
    if (year < 0 || year > 9999) {
      byte[] text = LocalDate.ofEpochDay(days).toString().getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(text, 0, out, at, text.length);
      return at + text.length;
    }
    at = digits((int) year, 4, out, at);
    out[at++] = '-';
    at = digits(Civil.month(packed), 2, out, at);
    out[at++] = '-';
    return digits(Civil.day(packed), 2, out, at);
  }

  /** Writes the timestamp {@code micros} (since the epoch, UTC) at {@code out[at]}. */
  static int timestamp(long micros, byte[] out, int at) {
    long secs = Math.floorDiv(micros, 1_000_000L);
    int frac = (int) Math.floorMod(micros, 1_000_000L);
    at = date(Math.floorDiv(secs, 86_400L), out, at);
    int secOfDay = (int) Math.floorMod(secs, 86_400L);
    out[at++] = ' ';
    at = digits(secOfDay / 3600, 2, out, at);
    out[at++] = ':';
    at = digits(secOfDay / 60 % 60, 2, out, at);
    out[at++] = ':';
    at = digits(secOfDay % 60, 2, out, at);
    if (frac != 0) {
      int width = 6;
      while (frac % 10 == 0) {
        frac /= 10;
        width--;
      }
      out[at++] = '.';
      at = digits(frac, width, out, at);
    }
    return at;
  }

  /** The text {@link #timestamp} writes, as a string. */
  static String timestamp(long micros) {
    byte[] out = new byte[MAX_BYTES];
    return new String(out, 0, timestamp(micros, out, 0), StandardCharsets.US_ASCII);
  }

  /** Writes {@code value} (at least 0) as exactly {@code width} digits, zero-padded. */
  private static int digits(int value, int width, byte[] out, int at) {
    for (int i = at + width - 1; i >= at; i--) {
      out[i] = (byte) ('0' + value % 10);
      value /= 10;
    }
    return at + width;
  }
}
