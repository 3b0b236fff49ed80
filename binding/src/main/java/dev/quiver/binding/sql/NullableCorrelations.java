package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;

/**
 * Keeps Calcite's decorrelator from joining a NULL correlation value with {@code =}.
 *
 * <p>A correlate becomes a join of its left side with the decorrelated right side on the
 * correlation columns; the decorrelator uses {@code =} where it believes the right side's copy
 * cannot be NULL, else IS NOT DISTINCT FROM. To believe it, it follows the copy down to the
 * correlate's own left side and takes a column compared by a left or right join's condition as
 * never NULL, although the join keeps the rows where it is NULL. An outer row whose correlation
 * column is NULL then finds no row of the subquery's per-value results, so {@code x NOT IN (SELECT
 * ... WHERE s.b <> o.b)} over a left join answered unknown where the subquery is empty for a NULL
 * {@code o.b} and the answer is TRUE.
 *
 * <p>{@link #mark} wraps each nullable correlation column of a correlate's left side in {@code
 * $MAYBE_NULL(column)}, an identity the decorrelator cannot see through (it only follows column
 * references), so it joins those columns with IS NOT DISTINCT FROM, which is always right; {@link
 * #strip} removes the wrappers from the decorrelated plan.
 */
final class NullableCorrelations {
  private NullableCorrelations() {}

  private static final SqlFunction MAYBE_NULL =
      new SqlFunction(
          "$MAYBE_NULL",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.ARG0,
          null,
          OperandTypes.ANY,
          SqlFunctionCategory.SYSTEM);

  /** {@code rel} with the nullable correlation columns of every correlate's left side wrapped. */
  static RelNode mark(RelNode rel) {
    return rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            RelNode visited = super.visit(other);
            return visited instanceof Correlate c ? wrapLeft(c) : visited;
          }
        });
  }

  private static RelNode wrapLeft(Correlate correlate) {
    RelNode left = correlate.getLeft();
    RexBuilder rex = correlate.getCluster().getRexBuilder();
    List<RexNode> exprs = new ArrayList<>(rex.identityProjects(left.getRowType()));
    boolean wrapped = false;
    for (int i : correlate.getRequiredColumns()) {
      if (exprs.get(i).getType().isNullable()) {
        exprs.set(i, rex.makeCall(MAYBE_NULL, exprs.get(i)));
        wrapped = true;
      }
    }
    if (!wrapped) {
      return correlate;
    }
    RelNode project =
        LogicalProject.create(left, List.of(), exprs, left.getRowType().getFieldNames(), Set.of());
    return correlate.copy(
        correlate.getTraitSet(),
        project,
        correlate.getRight(),
        correlate.getCorrelationId(),
        correlate.getRequiredColumns(),
        correlate.getJoinType());
  }

  /** {@code rel} without the wrappers {@link #mark} added. */
  static RelNode strip(RelNode rel) {
    RexShuttle unwrap =
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            return call.getOperator() == MAYBE_NULL
                ? call.getOperands().get(0).accept(this)
                : super.visitCall(call);
          }
        };
    return rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            return super.visit(other).accept(unwrap);
          }
        });
  }
}
