package dev.quiver.binding.physical;

import dev.quiver.binding.physical.expr.PhysicalExpr;

/** One key of an ordering: an expression, its direction and where nulls go. */
public record SortField(PhysicalExpr expr, boolean ascending, boolean nullsFirst) {
  @Override
  public String toString() {
    return expr + (ascending ? " ASC" : " DESC") + (nullsFirst ? " NULLS FIRST" : " NULLS LAST");
  }
}
