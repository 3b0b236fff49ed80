package dev.quiver.binding.errors;

import java.util.List;

/** A query called a function (built-in or UDF) that the session does not know. */
public class UnknownFunctionException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final String function;

  /** Creates the error, listing the closest existing names as suggestions. */
  public UnknownFunctionException(String function, List<String> suggestions) {
    super("Function '" + function + "' not found" + Suggestions.format(suggestions));
    this.function = function;
  }

  /** The name that was not found. */
  public String function() {
    return function;
  }
}
