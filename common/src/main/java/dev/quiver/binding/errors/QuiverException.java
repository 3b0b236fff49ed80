package dev.quiver.binding.errors;

/**
 * Base class of every error Quiver reports to its users; unchecked so fluent calls stay readable.
 */
public class QuiverException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates an error with a message that names the problem and what to do. */
  public QuiverException(String message) {
    super(message);
  }

  /** Creates an error with a message and the underlying cause. */
  public QuiverException(String message, Throwable cause) {
    super(message, cause);
  }
}
