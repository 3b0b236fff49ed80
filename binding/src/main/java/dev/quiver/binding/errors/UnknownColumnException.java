package dev.quiver.binding.errors;

import java.util.List;

/** A query named a column that none of its tables has. */
public class UnknownColumnException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String column;

  /** Creates the error, listing the closest existing names as suggestions. */
  public UnknownColumnException(String column, List<String> suggestions) {
    this(column, "", suggestions);
  }

  /**
   * Creates the error with {@code where} said after "not found" (e.g. " in table 'o'; 'l' has a
   * column 'k' but is not in scope there"), then the suggestions.
   */
  public UnknownColumnException(String column, String where, List<String> suggestions) {
    super("Column '" + column + "' not found" + where + Suggestions.format(suggestions));
    this.column = column;
  }

  /** The name that was not found. */
  public String column() {
    return column;
  }
}
