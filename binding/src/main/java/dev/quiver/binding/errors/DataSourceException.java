package dev.quiver.binding.errors;

/** A file or other data source is missing, unreadable or malformed. */
public class DataSourceException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /** Creates the error; the message names the path and what is wrong with it. */
  public DataSourceException(String message) {
    super(message);
  }

  /** Creates the error with its cause. */
  public DataSourceException(String message, Throwable cause) {
    super(message, cause);
  }
}
