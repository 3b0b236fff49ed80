package dev.quiver.binding.errors;

/**
 * SQL text longer than {@code quiver.sql.max_statement_bytes}, refused before it is parsed (a 100
 * MB statement once ran a server out of heap in the parser). The message gives both sizes and the
 * setting.
 */
public class StatementTooLargeException extends QueryTooComplexException {
  private static final long serialVersionUID = 1L;

  /** Creates the error; the message names the size, the limit and the setting. */
  public StatementTooLargeException(String message) {
    super(message);
  }
}
