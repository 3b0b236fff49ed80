package dev.quiver.binding.physical.aggregate;

/** Built-in aggregate functions. */
public enum AggregateFunction {
  /** COUNT(x) counts non-null x; with no argument, COUNT(*) counts rows. */
  COUNT,
  /** SUM; decimals stay exact. */
  SUM,
  /** AVG; DOUBLE result for every numeric input. */
  AVG,
  /** MIN over any ordered type. */
  MIN,
  /** MAX over any ordered type. */
  MAX,
  /** Any value of the group (used by decorrelated subqueries). */
  ANY_VALUE,
  /** Sample standard deviation (DOUBLE). */
  STDDEV_SAMP,
  /** Population standard deviation (DOUBLE). */
  STDDEV_POP,
  /** Sample variance (DOUBLE). */
  VAR_SAMP,
  /** Population variance (DOUBLE). */
  VAR_POP,
  /** BOOL_AND / EVERY. */
  BOOL_AND,
  /** BOOL_OR / SOME. */
  BOOL_OR,
  /**
   * The value of a group of at most one row, NULL for none, an error for more: a scalar subquery
   * used as an expression.
   */
  SINGLE_VALUE,
  /** MEDIAN(x): PERCENTILE_CONT(0.5). */
  MEDIAN,
  /** PERCENTILE_CONT(f) WITHIN GROUP (ORDER BY x): args (x, f); interpolated. */
  PERCENTILE_CONT,
  /** PERCENTILE_DISC(f) WITHIN GROUP (ORDER BY x): args (x, f); an input value. */
  PERCENTILE_DISC,
  /** STRING_AGG(s, separator [ORDER BY ...]) / LISTAGG. */
  STRING_AGG,
  /** ARG_MIN(value, key): value at the smallest key. */
  ARG_MIN,
  /** ARG_MAX(value, key): value at the largest key. */
  ARG_MAX,
  /** COVAR_POP(y, x). */
  COVAR_POP,
  /** COVAR_SAMP(y, x). */
  COVAR_SAMP,
  /** CORR(y, x). */
  CORR;

  /**
   * Whether the function has no partial state smaller than its input: the percentiles need every
   * value of a group at once, so they run in SINGLE mode after an exchange on the group keys.
   */
  public boolean holistic() {
    return this == MEDIAN || this == PERCENTILE_CONT || this == PERCENTILE_DISC;
  }
}
