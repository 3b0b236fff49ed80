package dev.quiver.binding.optimizer;

import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;

/**
 * Semi-join reduction of grouped inputs: when an aggregate is joined on one of its group keys with
 * a side whose key values all come from a small filtered table, the aggregate's input is first
 * semi-joined with that table's keys, so that only the groups the join can match are computed.
 *
 * <p>Decorrelated scalar subqueries produce this shape (TPC-H Q17: {@code avg(l_quantity)} per part
 * over all of lineitem, joined with the 200 parts of one brand and container; Q20 and Q2 likewise).
 * Filtering the aggregate's input by a superset of the join side's key values removes whole groups
 * the join would drop and leaves every other group intact, so the result is the same. The key
 * source is recomputed (a filtered scan of one table, cheap by construction) and the semi join is
 * placed as deep as the key column can be followed into the aggregate's input, i.e. next to the
 * scan that owns it, before any join there.
 */
public final class SemiJoinReduction {
  /** A key source must be estimated at most this fraction of the aggregate input's rows. */
  private static final double MAX_SOURCE_FRACTION = 0.5;

  /** ... and its filter must keep at most this fraction of its table, or it filters little. */
  private static final double MAX_SOURCE_SELECTIVITY = 0.5;

  private final RelBuilder builder;
  private final RelMetadataQuery mq;

  private SemiJoinReduction(RelBuilder builder, RelMetadataQuery mq) {
    this.builder = builder;
    this.mq = mq;
  }

  public static RelNode apply(RelNode rel, RelBuilder builder) {
    SemiJoinReduction r = new SemiJoinReduction(builder, rel.getCluster().getMetadataQuery());
    return BottomUp.rewrite(rel, node -> node instanceof Join j ? r.reduce(j) : node);
  }

  /** Reduces the aggregate on either side of {@code join}, if one qualifies. */
  private RelNode reduce(Join join) {
    JoinRelType type = join.getJoinType();
    // Only = keys: the semi join drops NULL keys, which an IS NOT DISTINCT FROM key joins.
    JoinInfo info = strictKeys(join);
    if (info.leftKeys.isEmpty()) {
      return join;
    }
    // The aggregate's side may lose groups only where unmatched rows of it are not emitted.
    boolean leftMayShrink = type == JoinRelType.INNER || type == JoinRelType.RIGHT;
    boolean rightMayShrink =
        type == JoinRelType.INNER || type == JoinRelType.LEFT || type == JoinRelType.SEMI;
    RelNode left = join.getLeft();
    RelNode right = join.getRight();
    for (int i = 0; i < info.leftKeys.size(); i++) {
      if (leftMayShrink) {
        RelNode reduced = reduceSide(left, info.leftKeys.get(i), right, info.rightKeys.get(i));
        if (reduced != null) {
          return join.copy(join.getTraitSet(), List.of(reduced, right));
        }
      }
      if (rightMayShrink) {
        RelNode reduced = reduceSide(right, info.rightKeys.get(i), left, info.leftKeys.get(i));
        if (reduced != null) {
          return join.copy(join.getTraitSet(), List.of(left, reduced));
        }
      }
    }
    return join;
  }

  /**
   * Rewrites {@code side} (an aggregate, possibly under projections and filters, joined on its
   * column {@code key}) to semi-join its input with the key source found in {@code other}'s column
   * {@code otherKey}; null when there is no aggregate or no small source.
   */
  private RelNode reduceSide(RelNode side, int key, RelNode other, int otherKey) {
    Aggregate agg = null;
    int k = key;
    for (RelNode n = side; agg == null; ) {
      if (n instanceof Aggregate a) {
        if (a.getGroupType() != Aggregate.Group.SIMPLE || k >= a.getGroupCount()) {
          return null;
        }
        agg = a;
      } else if (n instanceof Filter f) {
        n = f.getInput();
      } else if (n instanceof Project p && p.getProjects().get(k) instanceof RexInputRef ref) {
        k = ref.getIndex();
        n = p.getInput();
      } else {
        return null;
      }
    }
    int inputKey = agg.getGroupSet().nth(k);
    RelNode input = agg.getInput();
    Source source = bestSource(other, otherKey, null);
    Double inputRows = mq.getRowCount(input);
    if (source == null || inputRows == null || source.rows > MAX_SOURCE_FRACTION * inputRows) {
      return null;
    }
    if (!SqlTypeUtil.equalSansNullability(
        input.getRowType().getFieldList().get(inputKey).getType(),
        source.rel.getRowType().getFieldList().get(source.column).getType())) {
      return null;
    }
    RelNode reducedInput = placeSemiJoin(input, inputKey, source);
    RelNode reducedAgg = agg.copy(agg.getTraitSet(), List.of(reducedInput));
    return replace(side, agg, reducedAgg);
  }

  /** {@code side} with its descendant {@code from} replaced by {@code to}. */
  private static RelNode replace(RelNode side, RelNode from, RelNode to) {
    if (side == from) {
      return to;
    }
    RelNode in = side.getInput(0);
    return side.copy(side.getTraitSet(), List.of(replace(in, from, to)));
  }

  /** A join-free, filtered subtree whose column holds a superset of a join side's key values. */
  private record Source(RelNode rel, int column, double rows) {}

  /**
   * Follows {@code column} of {@code rel} down to the subtrees that produce its values (through
   * projections, filters, group keys, the preserved sides of joins and the other column of each
   * equi-join key pair) and returns the smallest one that reads a single table through a filter.
   */
  private Source bestSource(RelNode rel, int column, Source best) {
    TableScan scan = filteredSingleTable(rel);
    if (scan != null) {
      Double rows = mq.getRowCount(rel);
      Double tableRows = mq.getRowCount(scan);
      if (rows != null
          && tableRows != null
          && rows <= MAX_SOURCE_SELECTIVITY * tableRows
          && (best == null || rows < best.rows)) {
        best = new Source(rel, column, rows);
      }
    }
    if (rel instanceof Filter f) {
      return bestSource(f.getInput(), column, best);
    }
    if (rel instanceof Project p) {
      return p.getProjects().get(column) instanceof RexInputRef ref
          ? bestSource(p.getInput(), ref.getIndex(), best)
          : best;
    }
    if (rel instanceof Aggregate a) {
      return a.getGroupType() == Aggregate.Group.SIMPLE && column < a.getGroupCount()
          ? bestSource(a.getInput(), a.getGroupSet().nth(column), best)
          : best;
    }
    if (rel instanceof Join j) {
      JoinRelType type = j.getJoinType();
      int nLeft = j.getLeft().getRowType().getFieldCount();
      boolean inLeft = column < nLeft;
      int local = inLeft ? column : column - nLeft;
      // Values of a null-producing side are that side's values or NULL, which never joins.
      best = bestSource(inLeft ? j.getLeft() : j.getRight(), local, best);
      if (type == JoinRelType.INNER || type == JoinRelType.SEMI) {
        // Rows surviving an inner or semi join have equal values in each key pair's columns.
        JoinInfo info = strictKeys(j);
        List<Integer> mine = inLeft ? info.leftKeys : info.rightKeys;
        List<Integer> theirs = inLeft ? info.rightKeys : info.leftKeys;
        for (int i = 0; i < mine.size(); i++) {
          if (mine.get(i) == local) {
            best = bestSource(inLeft ? j.getRight() : j.getLeft(), theirs.get(i), best);
          }
        }
      }
      return best;
    }
    return best;
  }

  /** The join's = key pairs (IS NOT DISTINCT FROM pairs are left among the other conditions). */
  private static JoinInfo strictKeys(Join join) {
    return JoinInfo.createWithStrictEquality(join.getLeft(), join.getRight(), join.getCondition());
  }

  /** The scan of {@code rel} if it reads one table (no join) through a filter, else null. */
  private static TableScan filteredSingleTable(RelNode rel) {
    boolean filtered = false;
    for (RelNode n = rel; ; ) {
      if (n instanceof TableScan scan) {
        return filtered ? scan : null;
      }
      if (n instanceof Filter f) {
        filtered = true;
        n = f.getInput();
      } else if (n instanceof Project || n instanceof Aggregate) {
        n = n.getInput(0);
      } else {
        return null;
      }
    }
  }

  /**
   * Semi-joins {@code rel} with the key source on {@code column}, as close to the scan producing
   * the column as the way down allows: through projections of the column, filters, group keys and
   * the sides of joins whose unmatched rows are not emitted. A chain of projections and filters
   * straight over a scan is kept below the semi join, so that the scan's own filters run first.
   */
  private RelNode placeSemiJoin(RelNode rel, int column, Source source) {
    RelNode deeper = pushDown(rel, column, source);
    return deeper != null ? deeper : semiJoin(rel, column, source);
  }

  /** {@code rel} with the semi join placed inside it, or null to place it on top of it. */
  private RelNode pushDown(RelNode rel, int column, Source source) {
    if (rel instanceof Filter f) {
      RelNode in = pushDown(f.getInput(), column, source);
      return in == null ? null : f.copy(f.getTraitSet(), List.of(in));
    }
    if (rel instanceof Project p) {
      if (!(p.getProjects().get(column) instanceof RexInputRef ref)) {
        return null;
      }
      RelNode in = pushDown(p.getInput(), ref.getIndex(), source);
      return in == null ? null : p.copy(p.getTraitSet(), List.of(in));
    }
    if (rel instanceof Aggregate a) {
      if (a.getGroupType() != Aggregate.Group.SIMPLE || column >= a.getGroupCount()) {
        return null;
      }
      RelNode in = placeSemiJoin(a.getInput(), a.getGroupSet().nth(column), source);
      return a.copy(a.getTraitSet(), List.of(in));
    }
    if (rel instanceof Join j) {
      JoinRelType type = j.getJoinType();
      int nLeft = j.getLeft().getRowType().getFieldCount();
      boolean inLeft = column < nLeft;
      boolean mayShrink =
          inLeft
              ? type == JoinRelType.INNER
                  || type == JoinRelType.LEFT
                  || type == JoinRelType.SEMI
                  || type == JoinRelType.ANTI
              : type == JoinRelType.INNER || type == JoinRelType.RIGHT;
      if (!mayShrink) {
        return null;
      }
      if (inLeft) {
        RelNode l = placeSemiJoin(j.getLeft(), column, source);
        return j.copy(j.getTraitSet(), List.of(l, j.getRight()));
      }
      RelNode r = placeSemiJoin(j.getRight(), column - nLeft, source);
      return j.copy(j.getTraitSet(), List.of(j.getLeft(), r));
    }
    return null;
  }

  private RelNode semiJoin(RelNode rel, int column, Source source) {
    RexNode condition;
    builder.push(rel);
    builder.push(source.rel).project(builder.field(source.column));
    condition = builder.equals(builder.field(2, 0, column), builder.field(2, 1, 0));
    return builder.semiJoin(condition).build();
  }
}
