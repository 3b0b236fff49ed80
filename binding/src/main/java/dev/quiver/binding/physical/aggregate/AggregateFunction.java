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
  SINGLE_VALUE
}
