package dev.quiver.binding.errors;

/** SQL text that does not parse; carries the 1-based line and column of the offending token. */
public class SqlParseException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final int line;
  private final int column;

  /** Creates a parse error at the given 1-based position. */
  public SqlParseException(String message, int line, int column, Throwable cause) {
    super(message + " (at line " + line + ", column " + column + ")", cause);
    this.line = line;
    this.column = column;
  }

  /** 1-based line of the error. */
  public int line() {
    return line;
  }

  /** 1-based column of the error. */
  public int column() {
    return column;
  }
}
