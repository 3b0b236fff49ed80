package dev.quiver.binding.errors;

/**
 * A query that Quiver will not plan because of its shape rather than its meaning: expressions or
 * subqueries nested deeper than the planner can follow, or more expression terms than it plans in
 * reasonable time. The message says which limit was passed, by how much, and where.
 */
public class QueryTooComplexException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /** Creates the error; the message names the limit and where the query passes it. */
  public QueryTooComplexException(String message) {
    super(message);
  }

  /** Creates the error with its cause (e.g. the planner's StackOverflowError). */
  public QueryTooComplexException(String message, Throwable cause) {
    super(message, cause);
  }
}
