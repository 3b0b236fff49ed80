package dev.quiver.binding.sql;

import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.logical.LogicalCorrelate;
import org.apache.calcite.rel.logical.LogicalJoin;

/**
 * Turns a correlate whose right side no longer uses its correlation variable into a join on TRUE of
 * the same type: the right side gives the same rows for every left row, which is exactly what the
 * join pairs. The decorrelator leaves such correlates behind when it folds away the only filter
 * that used the variable ({@code WHERE a.k = o.k AND NULL} is empty for every outer row), and a
 * correlate cannot be executed.
 */
final class UnusedCorrelations extends RelShuttleImpl {
  static RelNode apply(RelNode rel) {
    return rel.accept(new UnusedCorrelations());
  }

  @Override
  public RelNode visit(LogicalCorrelate correlate) {
    RelNode visited = super.visit(correlate);
    if (!(visited instanceof Correlate c)
        || RelOptUtil.getVariablesUsed(c.getRight()).contains(c.getCorrelationId())) {
      return visited;
    }
    return LogicalJoin.create(
        c.getLeft(),
        c.getRight(),
        List.of(),
        c.getCluster().getRexBuilder().makeLiteral(true),
        Set.of(),
        c.getJoinType());
  }
}
