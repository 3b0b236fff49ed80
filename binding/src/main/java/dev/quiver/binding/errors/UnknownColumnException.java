package dev.quiver.binding.errors;

import java.util.List;

/** A query named a column that none of its tables has. */
public class UnknownColumnException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String column;

  /** Creates the error, listing the closest existing names as suggestions. */
  public UnknownColumnException(String column, List<String> suggestions) {
    super("Column '" + column + "' not found" + Suggestions.format(suggestions));
    this.column = column;
  }

  /** The name that was not found. */
  public String column() {
    return column;
  }
}
