package dev.quiver.binding.errors;

import java.util.List;

/** A query named a table or view the session does not have. */
public class UnknownTableException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String table;

  /** Creates the error, listing the closest existing names as suggestions. */
  public UnknownTableException(String table, List<String> suggestions) {
    super("Table '" + table + "' not found" + Suggestions.format(suggestions));
    this.table = table;
  }

  /** The name that was not found. */
  public String table() {
    return table;
  }
}
