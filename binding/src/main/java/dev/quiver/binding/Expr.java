package dev.quiver.binding;

/** A DataFrame expression (column, literal, operator, function or aggregate call). */
public abstract class Expr {
  // Placeholder: the DataFrame task fills in the expression tree and its factories.

  /** Ascending sort key. */
  public abstract Expr asc();

  /** Descending sort key. */
  public abstract Expr desc();

  /** Names the output column. */
  public abstract Expr alias(String name);
}
