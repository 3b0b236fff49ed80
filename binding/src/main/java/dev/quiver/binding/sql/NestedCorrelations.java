package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.logical.LogicalCorrelate;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Makes a subquery that refers to a query two or more levels out read those fields through the next
 * level's correlation variable.
 *
 * <p>In {@code SELECT (SELECT COUNT(*) FROM s WHERE (SELECT SUM(v) FROM t WHERE t.a = o.a AND t.b =
 * s.b) IS NULL) FROM o} the innermost subquery uses {@code o.a} and {@code s.b}. Calcite's
 * decorrelator takes {@code o.a} from the innermost subquery's own rows (where it equals {@code
 * t.a}), so an {@code s} row that matches no {@code t} row has no {@code o.a} at all and is counted
 * for no outer row: the count was 0 where it is the number of {@code s} rows.
 *
 * <p>This pass gives the left input of every correlate whose right side uses fields of enclosing
 * correlation variables those fields as extra columns, and the right side reads them from the
 * correlate's own variable instead. The extra columns hold the same value on every row (the
 * enclosing row's), so the correlated plan's rows do not change; after decorrelation the left input
 * carries the enclosing values on every one of its rows, matched or not. The extra columns are
 * projected away above the correlate.
 */
final class NestedCorrelations {
  private NestedCorrelations() {}

  static RelNode apply(RelNode rel) {
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode rewritten = apply(input);
      changed |= rewritten != input;
      inputs.add(rewritten);
    }
    RelNode node = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    return node instanceof LogicalCorrelate correlate ? correlate(correlate) : node;
  }

  private static RelNode correlate(LogicalCorrelate correlate) {
    CorrelationId own = correlate.getCorrelationId();
    Map<SharedCorrelations.Ref, RexFieldAccess> used =
        SharedCorrelations.used(correlate.getRight());
    List<RexFieldAccess> enclosing = new ArrayList<>();
    used.forEach(
        (ref, access) -> {
          if (!ref.id().equals(own)) {
            enclosing.add(access);
          }
        });
    if (enclosing.isEmpty()) {
      return correlate;
    }
    RelNode left = correlate.getLeft();
    RexBuilder rex = correlate.getCluster().getRexBuilder();
    int leftWidth = left.getRowType().getFieldCount();
    List<RexNode> exprs = new ArrayList<>(rex.identityProjects(left.getRowType()));
    List<String> names = new ArrayList<>(left.getRowType().getFieldNames());
    for (int i = 0; i < enclosing.size(); i++) {
      exprs.add(enclosing.get(i));
      names.add("$enclosing" + i);
    }
    RelNode newLeft = LogicalProject.create(left, List.of(), exprs, names, Set.of());
    RexNode variable = rex.makeCorrel(newLeft.getRowType(), own);
    RexShuttle reroute =
        new RexShuttle() {
          @Override
          public RexNode visitFieldAccess(RexFieldAccess access) {
            if (access.getReferenceExpr() instanceof RexCorrelVariable v) {
              if (v.id.equals(own)) {
                return rex.makeFieldAccess(variable, access.getField().getIndex());
              }
              int i = indexOf(enclosing, access);
              if (i >= 0) {
                return rex.makeFieldAccess(variable, leftWidth + i);
              }
            }
            return super.visitFieldAccess(access);
          }
        };
    RelNode newRight =
        correlate
            .getRight()
            .accept(
                new RelHomogeneousShuttle() {
                  @Override
                  public RelNode visit(RelNode other) {
                    return super.visit(other).accept(reroute);
                  }
                });
    ImmutableBitSet required =
        correlate
            .getRequiredColumns()
            .union(ImmutableBitSet.range(leftWidth, leftWidth + enclosing.size()));
    RelNode rewritten =
        correlate.copy(
            correlate.getTraitSet(), newLeft, newRight, own, required, correlate.getJoinType());
    List<Integer> keep = new ArrayList<>();
    IntStream.range(0, leftWidth).forEach(keep::add);
    if (correlate.getJoinType().projectsRight()) {
      int rightWidth = newRight.getRowType().getFieldCount();
      int start = leftWidth + enclosing.size();
      IntStream.range(start, start + rightWidth).forEach(keep::add);
    }
    return RelOptUtil.createProject(rewritten, keep);
  }

  private static int indexOf(List<RexFieldAccess> fields, RexFieldAccess access) {
    SharedCorrelations.Ref wanted = SharedCorrelations.ref(access);
    for (int i = 0; i < fields.size(); i++) {
      if (wanted != null && wanted.equals(SharedCorrelations.ref(fields.get(i)))) {
        return i;
      }
    }
    return -1;
  }
}
