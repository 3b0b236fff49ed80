package dev.quiver.binding.optimizer;

import dev.quiver.binding.logical.QuiverScan;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Final logical pass: narrows each {@link QuiverScan} to the columns its parent project (and
 * filter) use, and copies the conjuncts of a filter directly above a scan into the scan's filter
 * hints (the filter itself stays, since hints may be ignored).
 */
public final class ScanPushDown {
  private ScanPushDown() {}

  public static RelNode apply(RelNode rel) {
    return BottomUp.rewrite(rel, ScanPushDown::pushDown);
  }

  private static RelNode pushDown(RelNode node) {
    if (node instanceof LogicalFilter f && f.getInput() instanceof QuiverScan s) {
      return filterOverScan(f, s);
    }
    if (node instanceof LogicalProject p) {
      return projectOverScan(p);
    }
    return node;
  }

  private static RelNode filterOverScan(LogicalFilter f, QuiverScan s) {
    if (RexUtil.containsCorrelation(f.getCondition()) || !s.filters().isEmpty()) {
      return f;
    }
    List<RexNode> hints = new ArrayList<>();
    for (RexNode c : RelOptUtil.conjunctions(f.getCondition())) {
      hints.add(remap(c, s));
    }
    return f.copy(f.getTraitSet(), s.withFilters(hints), f.getCondition());
  }

  private static RelNode projectOverScan(LogicalProject p) {
    RelNode in = p.getInput();
    LogicalFilter filter = in instanceof LogicalFilter lf ? lf : null;
    RelNode scanNode = filter == null ? in : filter.getInput();
    if (!(scanNode instanceof QuiverScan s)) {
      return p;
    }
    ImmutableBitSet used = RelOptUtil.InputFinder.bits(p.getProjects(), null);
    if (filter != null) {
      used = used.union(RelOptUtil.InputFinder.bits(filter.getCondition()));
    }
    int n = s.getRowType().getFieldCount();
    if (used.cardinality() == n || used.isEmpty()) {
      return p;
    }
    List<Integer> fields = used.asList();
    int[] newIndex = new int[n];
    for (int i = 0; i < fields.size(); i++) {
      newIndex[fields.get(i)] = i;
    }
    RexShuttle shift =
        new RexShuttle() {
          @Override
          public RexNode visitInputRef(RexInputRef ref) {
            return new RexInputRef(newIndex[ref.getIndex()], ref.getType());
          }
        };
    RelNode newScan = s.withFields(fields);
    RelNode below = newScan;
    if (filter != null) {
      below = filter.copy(filter.getTraitSet(), newScan, filter.getCondition().accept(shift));
    }
    List<RexNode> exprs = new ArrayList<>();
    for (RexNode e : p.getProjects()) {
      exprs.add(e.accept(shift));
    }
    return p.copy(p.getTraitSet(), below, exprs, p.getRowType());
  }

  /** Rewrites a predicate over the scan's output into one over the table's full row type. */
  private static RexNode remap(RexNode c, QuiverScan s) {
    return c.accept(
        new RexShuttle() {
          @Override
          public RexNode visitInputRef(RexInputRef ref) {
            return new RexInputRef(s.tableColumn(ref.getIndex()), ref.getType());
          }
        });
  }
}
