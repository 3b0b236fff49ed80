package dev.quiver.binding.sql;

import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.SqlKind;

/**
 * Removes the casts Calcite's converter adds only to declare a value NOT NULL, right after
 * conversion and before any rule simplifies.
 *
 * <p>{@code COALESCE(a, b)} converts to {@code CASE WHEN a IS NOT NULL THEN CAST(a AS <type> NOT
 * NULL) ELSE b END}. Calcite's simplifier pushes a comparison into the CASE's branches and then
 * trusts the cast's type outside the guard that made it true: {@code COALESCE(a, b) NOT BETWEEN 'b'
 * AND ''} became {@code CAST(a) < 'b' OR CAST(a) > '' OR ...}, which it folded to TRUE for a "NOT
 * NULL" value, so rows where both a and b were NULL passed the filter (a wrong answer). Without the
 * cast the branch reads {@code a} as it is; the value is the same.
 */
final class NullabilityCasts extends RelHomogeneousShuttle {
  private final RexShuttle rewriter;

  private NullabilityCasts(RelDataTypeFactory types) {
    this.rewriter =
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            RexCall visited = (RexCall) super.visitCall(call);
            if (visited.getKind() == SqlKind.CAST && !visited.getType().isNullable()) {
              RexNode operand = visited.getOperands().get(0);
              if (operand.getType().isNullable()
                  && operand
                      .getType()
                      .equals(types.createTypeWithNullability(visited.getType(), true))) {
                return operand;
              }
            }
            return visited;
          }

          @Override
          public RexNode visitSubQuery(RexSubQuery subQuery) {
            RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
            return visited.clone(visited.rel.accept(NullabilityCasts.this));
          }
        };
  }

  /** {@code rel} without casts that only make a value NOT NULL. */
  static RelNode apply(RelNode rel) {
    return rel.accept(new NullabilityCasts(rel.getCluster().getTypeFactory()));
  }

  @Override
  public RelNode visit(RelNode other) {
    return super.visit(other).accept(rewriter);
  }
}
