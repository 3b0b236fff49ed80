package dev.quiver.binding.errors;

/**
 * A statement would break a table's constraint ({@code NOT NULL}, {@code PRIMARY KEY} or {@code
 * UNIQUE}); nothing of the statement was written.
 */
public class ConstraintViolationException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String table;
  private final String column;
  private final String value;

  /**
   * Creates the error for {@code table}, naming the {@code column} (or the columns of a key, as
   * {@code (a, b)}) and the offending {@code value} as SQL shows it.
   */
  public ConstraintViolationException(String message, String table, String column, String value) {
    super(message);
    this.table = table;
    this.column = column;
    this.value = value;
  }

  /** The table written to. */
  public String table() {
    return table;
  }

  /** The column, or the key's columns as {@code (a, b)}. */
  public String column() {
    return column;
  }

  /**
   * The offending value as SQL shows it ({@code NULL}, {@code 3}, {@code 'x'}, {@code (1, 'x')}).
   */
  public String value() {
    return value;
  }
}
