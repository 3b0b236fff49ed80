package dev.quiver.binding.sql;

import dev.quiver.binding.optimizer.BottomUp;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;

/**
 * Rewrites {@code INTERSECT ALL} and {@code EXCEPT ALL} as their DISTINCT forms over inputs whose
 * duplicates are numbered, so that the optimizer's window and DISTINCT set-operation machinery
 * plans them (Calcite's INTERSECT_TO_DISTINCT and MINUS_TO_DISTINCT rules only handle DISTINCT, and
 * Quiver has no multiset operator of its own).
 *
 * <p>Each input gets a column {@code k = ROW_NUMBER() OVER (PARTITION BY every column)}: a row that
 * occurs m times on the left carries k = 1..m, and n times on the right k = 1..n. The pairs (row,
 * k) of the left that also occur on the right are then exactly min(m, n) copies of the row (the
 * multiset intersection), and those that do not are max(m - n, 0) copies (the multiset difference);
 * projecting k away leaves the answer. Partitions and the DISTINCT set operations both treat NULLs
 * as equal, as the SQL standard asks of set operations.
 *
 * <p>An n-ary operation folds pairwise from the left, renumbering after each step: {@code A EXCEPT
 * ALL B EXCEPT ALL C} is {@code (A - B) - C}, which keeps m - nB - nC copies, where one numbering
 * against both inputs at once would keep m - max(nB, nC). Run before the optimizer's first program
 * so that it turns the windows and the DISTINCT operations into plannable operators.
 */
final class AllSetOperations {
  private AllSetOperations() {}

  static RelNode apply(RelNode rel, RelBuilder builder) {
    return BottomUp.rewrite(rel, node -> rewrite(node, builder));
  }

  private static RelNode rewrite(RelNode node, RelBuilder builder) {
    if (!(node instanceof SetOp op) || !op.all) {
      return node;
    }
    boolean intersect = node instanceof Intersect;
    if (!intersect && !(node instanceof Minus)) {
      return node;
    }
    List<RelNode> inputs = op.getInputs();
    int width = op.getRowType().getFieldCount();
    RelNode acc = inputs.get(0);
    for (int i = 1; i < inputs.size(); i++) {
      builder.push(numbered(acc, builder)).push(numbered(inputs.get(i), builder));
      if (intersect) {
        builder.intersect(false, 2);
      } else {
        builder.minus(false, 2);
      }
      builder.project(builder.fields().subList(0, width));
      acc = builder.build();
    }
    builder.push(acc);
    if (!builder.peek().getRowType().equals(op.getRowType())) {
      // The pairwise steps derive their own nullability; keep the operation's row type.
      builder.convert(op.getRowType(), true);
    }
    return builder.build();
  }

  /** {@code input} with a last column numbering each row's copies 1, 2, ... */
  private static RelNode numbered(RelNode input, RelBuilder builder) {
    builder.push(input);
    List<RexNode> columns = new ArrayList<>(builder.fields());
    RexNode k =
        builder
            .aggregateCall(SqlStdOperatorTable.ROW_NUMBER)
            .over()
            .partitionBy(builder.fields())
            .toRex();
    columns.add(k);
    List<String> names = new ArrayList<>(input.getRowType().getFieldNames());
    names.add("$copy");
    builder.project(columns, names, true);
    return builder.build();
  }
}
