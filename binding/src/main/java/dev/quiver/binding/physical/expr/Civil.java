package dev.quiver.binding.physical.expr;

/** Proleptic Gregorian calendar arithmetic on epoch days without allocating objects per row. */
final class Civil {
  private Civil() {}

  /**
   * Packs year, month (1-12) and day of epoch day {@code z} as year * 10000 + month * 100 + day.
   */
  static long fromDays(long z) {
    z += 719468;
    long era = Math.floorDiv(z, 146097);
    long doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long y = yoe + era * 400;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    long d = doy - (153 * mp + 2) / 5 + 1;
    long m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) {
      y++;
    }
    return y * 10000 + (y < 0 ? -1 : 1) * (m * 100 + d);
  }

  static long year(long packed) {
    return packed / 10000;
  }

  static int month(long packed) {
    return (int) (Math.abs(packed) / 100 % 100);
  }

  static int day(long packed) {
    return (int) (Math.abs(packed) % 100);
  }

  /** Epoch day of a civil date. */
  static long toDays(long y, int m, int d) {
    y -= m <= 2 ? 1 : 0;
    long era = Math.floorDiv(y, 400);
    long yoe = y - era * 400;
    long doy = (153L * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
  }

  static boolean leap(long y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  }

  static int monthLength(long y, int m) {
    switch (m) {
      case 2:
        return leap(y) ? 29 : 28;
      case 4:
      case 6:
      case 9:
      case 11:
        return 30;
      default:
        return 31;
    }
  }

  /**
   * Adds months, clamping the day to the end of the target month (Jan 31 + 1 month = Feb 28/29).
   */
  static long plusMonths(long days, long months) {
    long p = fromDays(days);
    long total = year(p) * 12 + (month(p) - 1) + months;
    long y = Math.floorDiv(total, 12);
    int m = Math.floorMod(total, 12) + 1;
    int d = Math.min(day(p), monthLength(y, m));
    return toDays(y, m, d);
  }

  /** ISO day of week, Monday = 1 .. Sunday = 7. */
  static int isoDow(long days) {
    return Math.floorMod(days + 3, 7) + 1;
  }
}
