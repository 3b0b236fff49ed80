package dev.quiver.binding.errors;

/**
 * A statement with {@code ?} parameters run without their values: they are bound by {@code
 * SessionContext.sql(text, values)} or a prepared statement's parameters.
 */
public class UnboundParametersException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final int count;

  /** Creates the error for a statement with {@code count} parameters. */
  public UnboundParametersException(int count) {
    super(
        "The statement has "
            + count
            + (count == 1 ? " parameter (?)" : " parameters (?)")
            + " but no values for them; pass "
            + (count == 1 ? "its value" : "their values")
            + " with sql(text, values) or bind them to a prepared statement");
    this.count = count;
  }

  /** How many parameters the statement has. */
  public int count() {
    return count;
  }
}
