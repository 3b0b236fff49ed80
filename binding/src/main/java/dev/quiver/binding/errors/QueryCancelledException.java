package dev.quiver.binding.errors;

/** The query was cancelled (its stream or session was closed) before it finished. */
public class QueryCancelledException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /** Creates the error with a message saying what cancelled the query. */
  public QueryCancelledException(String message) {
    super(message);
  }
}
