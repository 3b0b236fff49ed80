package dev.quiver.binding.sql;

import dev.quiver.binding.planner.TextCastFunction;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Protects casts to text from Calcite's simplifier by writing them as {@link TextCastFunction}
 * calls, right after conversion and before any rule simplifies: a cast to text of a computed value
 * of another type ({@code CAST(CAST(x AS DECIMAL(20, 2)) AS VARCHAR)}, {@code CAST(x * 1.00 AS
 * VARCHAR)}) lost the inner type's formatting when Calcite removed the inner cast as lossless. A
 * cast of a column or a literal has no inner expression to lose and stays a cast.
 */
final class TextCasts extends RelHomogeneousShuttle {
  private final RexShuttle rewriter;

  private TextCasts(RexBuilder rex) {
    this.rewriter =
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            RexCall visited = (RexCall) super.visitCall(call);
            if (visited.getKind() == SqlKind.CAST
                && SqlTypeUtil.isCharacter(visited.getType())
                && visited.getOperands().get(0) instanceof RexCall operand
                && !(operand instanceof RexSubQuery)
                && operand.getType().getSqlTypeName().getFamily() != SqlTypeFamily.CHARACTER) {
              return rex.makeCall(
                  visited.getType(), TextCastFunction.INSTANCE, visited.getOperands());
            }
            return visited;
          }

          @Override
          public RexNode visitSubQuery(RexSubQuery subQuery) {
            RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
            return visited.clone(visited.rel.accept(TextCasts.this));
          }
        };
  }

  /** {@code rel} with every cast to text of a computed non-text value protected. */
  static RelNode apply(RelNode rel) {
    return rel.accept(new TextCasts(rel.getCluster().getRexBuilder()));
  }

  @Override
  public RelNode visit(RelNode other) {
    return super.visit(other).accept(rewriter);
  }
}
