package dev.quiver.binding.optimizer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Derives, from a disjunction of conjunctions, the restriction each column must meet whichever
 * branch holds, and adds it to the condition: {@code (n1 = 'FRANCE' AND n2 = 'GERMANY') OR (n1 =
 * 'GERMANY' AND n2 = 'FRANCE')} also gets {@code n1 IN ('FRANCE', 'GERMANY')} and the same for n2
 * (TPC-H Q7, Q19). A derived restriction names one column, so the optimizer pushes it below the
 * joins to its table's scan. Every branch that is true makes its derived restriction true, so the
 * condition keeps exactly the rows it kept.
 */
public final class ColumnRestrictions {
  private ColumnRestrictions() {}

  /** {@code condition} with the one-column restrictions its disjunctions imply, ANDed on. */
  public static RexNode derive(RexBuilder rex, RexNode condition) {
    List<RexNode> conjuncts = RelOptUtil.conjunctions(condition);
    List<RexNode> derived = new ArrayList<>();
    for (RexNode c : conjuncts) {
      if (c.getKind() != SqlKind.OR) {
        continue;
      }
      Map<Integer, List<RexNode>> perColumn = null;
      for (RexNode branch : RelOptUtil.disjunctions(c)) {
        Map<Integer, List<RexNode>> onOneColumn = new LinkedHashMap<>();
        for (RexNode part : RelOptUtil.conjunctions(branch)) {
          ImmutableBitSet columns = RelOptUtil.InputFinder.bits(part);
          if (columns.cardinality() == 1
              && RexUtil.isDeterministic(part)
              && !RexUtil.containsCorrelation(part)) {
            onOneColumn.computeIfAbsent(columns.nth(0), k -> new ArrayList<>()).add(part);
          }
        }
        if (perColumn == null) {
          perColumn = new LinkedHashMap<>();
          for (Map.Entry<Integer, List<RexNode>> e : onOneColumn.entrySet()) {
            List<RexNode> branches = new ArrayList<>();
            branches.add(RexUtil.composeConjunction(rex, e.getValue()));
            perColumn.put(e.getKey(), branches);
          }
        } else {
          perColumn.keySet().retainAll(onOneColumn.keySet());
          for (Map.Entry<Integer, List<RexNode>> e : perColumn.entrySet()) {
            e.getValue().add(RexUtil.composeConjunction(rex, onOneColumn.get(e.getKey())));
          }
        }
        if (perColumn.isEmpty()) {
          break;
        }
      }
      if (perColumn != null) {
        for (List<RexNode> branches : perColumn.values()) {
          RexNode restriction = RexUtil.composeDisjunction(rex, branches);
          if (!conjuncts.contains(restriction) && !derived.contains(restriction)) {
            derived.add(restriction);
          }
        }
      }
    }
    if (derived.isEmpty()) {
      return condition;
    }
    List<RexNode> all = new ArrayList<>(conjuncts);
    all.addAll(derived);
    return RexUtil.composeConjunction(rex, all);
  }
}
