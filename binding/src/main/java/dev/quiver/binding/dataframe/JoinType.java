package dev.quiver.binding.dataframe;

/** Kinds of join, shared by the DataFrame API and the physical join operators. */
public enum JoinType {
  /** Rows with a match on both sides. */
  INNER,
  /** All left rows, matched right rows or nulls. */
  LEFT,
  /** All right rows, matched left rows or nulls. */
  RIGHT,
  /** All rows of both sides, nulls where unmatched. */
  FULL,
  /** Left rows that have at least one match; left columns only. */
  SEMI,
  /** Left rows that have no match; left columns only. */
  ANTI
}
