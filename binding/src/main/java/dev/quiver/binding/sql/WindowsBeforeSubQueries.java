package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.util.Pair;

/**
 * Computes the window calls of a projection that also holds a subquery in a projection of their own
 * below it, so that the subquery sees each window's value as a plain column.
 *
 * <p>Calcite's subquery removal moves the left side of {@code x IN (SELECT ...)} into the
 * subquery's condition when the subquery is correlated. With {@code x} a window call, {@code
 * ROW_NUMBER() OVER (ORDER BY a) IN (SELECT y FROM t WHERE t.d = outer.d)}, the window then ran
 * over the subquery's rows instead of the query's ({@code ROW_NUMBER} was even planned with a
 * column of the wrong table as its argument). A window call is computed over the projection's input
 * rows either way, so computing it one projection lower means the same. Run before subqueries are
 * removed.
 */
final class WindowsBeforeSubQueries extends RelShuttleImpl {
  private WindowsBeforeSubQueries() {}

  static RelNode apply(RelNode rel) {
    return rel.accept(new WindowsBeforeSubQueries());
  }

  @Override
  public RelNode visit(LogicalProject project) {
    RelNode visited = super.visit(project);
    if (!(visited instanceof LogicalProject p)
        || !RexOver.containsOver(p.getProjects(), null)
        || !RexUtil.SubQueryFinder.containsSubQuery(p)) {
      return visited;
    }
    RelNode input = p.getInput();
    int inputCount = input.getRowType().getFieldCount();
    Map<RexNode, Integer> windows = new LinkedHashMap<>();
    RexShuttle toColumns =
        new RexShuttle() {
          @Override
          public RexNode visitOver(RexOver over) {
            int index = windows.computeIfAbsent(over, o -> inputCount + windows.size());
            return new RexInputRef(index, over.getType());
          }

          @Override
          public RexNode visitSubQuery(RexSubQuery subQuery) {
            // Windows inside the subquery's own plan belong to it; only its operands are ours.
            List<RexNode> operands = new ArrayList<>();
            boolean changed = false;
            for (RexNode operand : subQuery.getOperands()) {
              RexNode rewritten = operand.accept(this);
              changed |= rewritten != operand;
              operands.add(rewritten);
            }
            return changed ? subQuery.clone(subQuery.getType(), operands) : subQuery;
          }
        };
    List<RexNode> upper = new ArrayList<>();
    for (RexNode e : p.getProjects()) {
      upper.add(e.accept(toColumns));
    }
    List<RexNode> lower = new ArrayList<>();
    List<String> lowerNames = new ArrayList<>();
    for (int i = 0; i < inputCount; i++) {
      lower.add(RexInputRef.of(i, input.getRowType()));
      lowerNames.add(input.getRowType().getFieldNames().get(i));
    }
    for (RexNode over : windows.keySet()) {
      lower.add(over);
      lowerNames.add("$window" + lowerNames.size());
    }
    LogicalProject below =
        LogicalProject.create(input, List.of(), lower, lowerNames, p.getVariablesSet());
    return LogicalProject.create(
        below, p.getHints(), upper, Pair.right(p.getNamedProjects()), p.getVariablesSet());
  }
}
