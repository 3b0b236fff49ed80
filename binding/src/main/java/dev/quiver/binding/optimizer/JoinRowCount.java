package dev.quiver.binding.optimizer;

import dev.quiver.binding.logical.ProviderTable;
import dev.quiver.binding.logical.QuiverScan;
import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.metadata.RelMdRowCount;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;

/**
 * Row-count estimate for inner equi-joins under the foreign-key assumption: when a join key is a
 * table's first column (taken to be its primary key, as in TPC-H-like schemas), each row of the
 * other side matches at most one row, so the join has as many rows as the other side (scaled by the
 * key side's filter selectivity). Calcite's default (product times a fixed selectivity) makes key
 * joins with large tables look far costlier than many-to-many joins of small ones, which leads join
 * reordering into huge intermediate results.
 */
public final class JoinRowCount extends RelMdRowCount {
  JoinRowCount() {}

  /** Estimate for joins; Calcite's when the foreign-key rule does not apply. */
  @Override
  public Double getRowCount(Join join, RelMetadataQuery mq) {
    Double estimate = foreignKeyEstimate(join, mq);
    return estimate != null ? estimate : super.getRowCount(join, mq);
  }

  private static Double foreignKeyEstimate(Join join, RelMetadataQuery mq) {
    if (join.getJoinType() != JoinRelType.INNER) {
      return null;
    }
    JoinInfo info = join.analyzeCondition();
    if (info.leftKeys.isEmpty()) {
      return null;
    }
    Double leftRows = mq.getRowCount(join.getLeft());
    Double rightRows = mq.getRowCount(join.getRight());
    if (leftRows == null || rightRows == null) {
      return null;
    }
    double best = Double.NaN;
    for (int i = 0; i < info.leftKeys.size(); i++) {
      double rightBase = keyTableRows(join.getRight(), info.rightKeys.get(i));
      double leftBase = keyTableRows(join.getLeft(), info.leftKeys.get(i));
      // The key side with fewer base rows is the more plausible primary key.
      if (rightBase > 0 && (leftBase <= 0 || rightBase <= leftBase)) {
        best = min(best, leftRows * Math.min(1d, rightRows / rightBase));
      } else if (leftBase > 0) {
        best = min(best, rightRows * Math.min(1d, leftRows / leftBase));
      }
    }
    if (Double.isNaN(best)) {
      return null;
    }
    if (!info.isEqui()) {
      best *= 0.5;
    }
    return Math.max(1d, best);
  }

  private static double min(double a, double b) {
    return Double.isNaN(a) ? b : Math.min(a, b);
  }

  /** Base row count of the table whose first column {@code field} is, or -1. */
  private static double keyTableRows(RelNode rel, int field) {
    RelNode r = unwrap(rel);
    while (true) {
      if (r instanceof QuiverScan s) {
        return s.tableColumn(field) == 0
            ? ProviderTable.estimatedRows(s.providerTable().provider())
            : -1;
      } else if (r instanceof Filter f) {
        r = unwrap(f.getInput());
      } else if (r instanceof Project p) {
        RexNode e = p.getProjects().get(field);
        if (!(e instanceof RexInputRef ref)) {
          return -1;
        }
        field = ref.getIndex();
        r = unwrap(p.getInput());
      } else if (r instanceof Join j) {
        int nl = j.getLeft().getRowType().getFieldCount();
        if (!j.getJoinType().projectsRight() || field < nl) {
          r = unwrap(j.getLeft());
        } else {
          field -= nl;
          r = unwrap(j.getRight());
        }
      } else {
        return -1;
      }
    }
  }

  private static RelNode unwrap(RelNode rel) {
    return rel instanceof HepRelVertex v ? v.getCurrentRel() : rel;
  }
}
