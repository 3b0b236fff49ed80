package dev.quiver.binding.dataframe;

import dev.quiver.binding.Expr;
import dev.quiver.binding.JoinType;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.tools.RelBuilder;

/**
 * STUB (signature fixed; owner replaces the body). Builds the logical plan of each DataFrame
 * transformation on top of its input with Calcite's RelBuilder; unknown columns raise
 * {@code UnknownColumnException}.
 */
public final class DataFrameOps {
  private DataFrameOps() {}

  /** SELECT exprs FROM input. */
  public static RelNode select(RelBuilder b, RelNode input, List<Expr> exprs) {
    throw new UnsupportedOperationException("pending");
  }

  /** input WHERE predicate. */
  public static RelNode filter(RelBuilder b, RelNode input, Expr predicate) {
    throw new UnsupportedOperationException("pending");
  }

  /** GROUP BY groupBy computing aggregates. */
  public static RelNode aggregate(RelBuilder b, RelNode input, List<Expr> groupBy, List<Expr> aggregates) {
    throw new UnsupportedOperationException("pending");
  }

  /** Equi-join on named columns. */
  public static RelNode join(RelBuilder b, RelNode left, RelNode right, JoinType type, List<String> leftColumns, List<String> rightColumns) {
    throw new UnsupportedOperationException("pending");
  }

  /** Join on a predicate over both sides. */
  public static RelNode join(RelBuilder b, RelNode left, RelNode right, JoinType type, Expr on) {
    throw new UnsupportedOperationException("pending");
  }

  /** ORDER BY keys. */
  public static RelNode sort(RelBuilder b, RelNode input, List<Expr> keys) {
    throw new UnsupportedOperationException("pending");
  }

  /** OFFSET offset FETCH fetch (fetch < 0: no limit). */
  public static RelNode limit(RelBuilder b, RelNode input, long offset, long fetch) {
    throw new UnsupportedOperationException("pending");
  }

  /** UNION ALL. */
  public static RelNode union(RelBuilder b, RelNode left, RelNode right) {
    throw new UnsupportedOperationException("pending");
  }

  /** SELECT DISTINCT *. */
  public static RelNode distinct(RelBuilder b, RelNode input) {
    throw new UnsupportedOperationException("pending");
  }
}
