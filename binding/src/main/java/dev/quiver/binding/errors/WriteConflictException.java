package dev.quiver.binding.errors;

/**
 * A write to a table could not be committed because other writers changed the table in a way it
 * conflicts with (or kept winning the race after every retry); nothing of the write was published.
 * Running the statement again may succeed.
 */
public class WriteConflictException extends QuiverException {
  private static final long serialVersionUID = 1L;

  /** Creates the error; the message names the table and the conflict. */
  public WriteConflictException(String message, Throwable cause) {
    super(message, cause);
  }
}
