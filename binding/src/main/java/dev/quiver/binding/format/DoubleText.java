package dev.quiver.binding.format;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Floating-point numbers as text, as DuckDB writes them (and Python's {@code repr}): the shortest
 * digits that read back as the same number, plain from 1e-4 up to below 1e16 with at least one
 * decimal ({@code 10000000000.0}, {@code 0.0001}), else in exponent form with a signed exponent of
 * at least two digits ({@code 1e+16}, {@code 1.5e-07}); {@code nan} ({@code -nan} with the sign
 * bit), {@code inf} and {@code -inf}. Used by {@code CAST(d AS VARCHAR)}, the shell's tables and
 * CSV files.
 */
public final class DoubleText {
  private DoubleText() {}

  /** {@code d} as text. */
  public static String of(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d) || d == 0) {
      return special(d);
    }
    return layout(shortest(new BigDecimal(Double.toString(d)), d, x -> x.doubleValue() == d), d);
  }

  /** {@code f} as text, with the shortest digits that read back as the same float. */
  public static String of(float f) {
    if (Float.isNaN(f) || Float.isInfinite(f) || f == 0) {
      return special(f);
    }
    return layout(
        shortest(
            new BigDecimal(Float.toString(f)),
            f,
            strictlyInside(f, Math.nextDown(f), Math.nextUp(f))),
        f);
  }

  private static String special(double d) {
    if (Double.isNaN(d)) {
      // DuckDB keeps the sign bit of a NaN (-x of NaN is -nan).
      return Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    return 1 / d < 0 ? "-0.0" : "0.0";
  }

  private interface Check {
    boolean readsBack(BigDecimal x);
  }

  /**
   * Whether a decimal lies strictly between the midpoints to {@code value}'s neighbours: it reads
   * back as {@code value}, and is not a tie that only round-half-even would give back. DuckDB
   * writes no such tie for a float (77114784 stays 77114784.0, not 77114780.0) but does for a
   * double (9.999999999999999e22 is 1e+23), which is therefore checked by reading it back.
   */
  private static Check strictlyInside(double value, double below, double above) {
    BigDecimal exact = new BigDecimal(value);
    BigDecimal two = BigDecimal.valueOf(2);
    // Next to the largest finite value the gap on the other side stands in for the missing one.
    BigDecimal low =
        Double.isInfinite(below)
            ? exact.subtract(new BigDecimal(above).subtract(exact).divide(two))
            : exact.add(new BigDecimal(below)).divide(two);
    BigDecimal high =
        Double.isInfinite(above)
            ? exact.add(exact.subtract(new BigDecimal(below)).divide(two))
            : exact.add(new BigDecimal(above)).divide(two);
    return x -> x.compareTo(low) > 0 && x.compareTo(high) < 0;
  }

  /**
   * The shortest decimal that reads back as {@code value}. Java 17's {@code toString} digits read
   * back but are sometimes longer than needed; rounding the exact value to fewer digits reads back
   * for every length from the shortest up, so a binary search finds it (usually one check).
   */
  private static BigDecimal shortest(BigDecimal javaDigits, double value, Check check) {
    BigDecimal exact = new BigDecimal(value);
    int hi = javaDigits.stripTrailingZeros().precision();
    BigDecimal best = javaDigits;
    if (hi <= 1) {
      return best.stripTrailingZeros();
    }
    BigDecimal fewer = exact.round(new MathContext(hi - 1, RoundingMode.HALF_EVEN));
    if (!check.readsBack(fewer)) {
      return best.stripTrailingZeros();
    }
    best = fewer;
    int lo = 1;
    hi -= 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      BigDecimal x = exact.round(new MathContext(mid, RoundingMode.HALF_EVEN));
      if (check.readsBack(x)) {
        best = x;
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return best.stripTrailingZeros();
  }

  private static String layout(BigDecimal digits, double value) {
    String unscaled = digits.unscaledValue().abs().toString();
    int exponent = unscaled.length() - 1 - digits.scale();
    String sign = value < 0 ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
      StringBuilder out = new StringBuilder(sign).append(unscaled.charAt(0));
      if (unscaled.length() > 1) {
        out.append('.').append(unscaled, 1, unscaled.length());
      }
      int e = Math.abs(exponent);
      return out.append(exponent < 0 ? "e-" : "e+").append(e < 10 ? "0" : "").append(e).toString();
    }
    String plain = digits.abs().toPlainString();
    return sign + (plain.indexOf('.') < 0 ? plain + ".0" : plain);
  }
}
