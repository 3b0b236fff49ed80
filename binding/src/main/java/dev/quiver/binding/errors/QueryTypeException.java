package dev.quiver.binding.errors;

/** A query combines values of types that do not fit (e.g. adding a date to a string). */
public class QueryTypeException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /** Creates a type error whose message names the expression and the types involved. */
  public QueryTypeException(String message) {
    super(message);
  }

  /** Creates a type error with its cause. */
  public QueryTypeException(String message, Throwable cause) {
    super(message, cause);
  }
}
