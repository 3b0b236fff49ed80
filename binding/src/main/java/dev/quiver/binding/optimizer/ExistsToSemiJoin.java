package dev.quiver.binding.optimizer;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;

/**
 * Turns {@code WHERE ... AND [NOT] EXISTS (SELECT ... FROM s WHERE <correlated conjuncts> AND
 * <local conjuncts>)} into a semi (anti) join of the filter's input with {@code s} filtered by its
 * local conjuncts, on the correlated conjuncts. Calcite's general decorrelation instead joins the
 * subquery with a distinct copy of the whole outer query and joins that back, which computes the
 * outer query again for every EXISTS (TPC-H Q21 scanned lineitem seven times).
 *
 * <p>Only the plain shape is rewritten: a top-level conjunct of a filter whose subquery is
 * projections over one filter, correlated to that filter's own input only in that filter's
 * conditions. Anything else is left to the decorrelator. A filter over a single table is rewritten
 * only when the plan runs in one process: there the join builds on the smaller outer rows and marks
 * them from every partition of the subquery's table (TPC-H Q4, Q22), where the decorrelator's plan
 * semi-joins that table with the outer keys, aggregates its distinct keys and joins them back; a
 * distributed plan cannot share the marks and keeps the decorrelator's plan, whose exchanges carry
 * the few distinct keys. Both forms keep exactly the same rows: EXISTS holds when some row of
 * {@code s} makes the conditions true, which is what a semi join keeps; NOT EXISTS is never
 * unknown, and an anti join keeps the rows with no such match.
 */
public final class ExistsToSemiJoin extends RelShuttleImpl {
  private final RexBuilder rex;
  private final boolean singleTableOuter;

  private ExistsToSemiJoin(RexBuilder rex, boolean singleTableOuter) {
    this.rex = rex;
    this.singleTableOuter = singleTableOuter;
  }

  /**
   * {@code rel} with every rewritable EXISTS / NOT EXISTS conjunct turned into a join; over a
   * single table only when {@code singleTableOuter} (the plan runs in one process).
   */
  public static RelNode apply(RelNode rel, boolean singleTableOuter) {
    return rel.accept(new ExistsToSemiJoin(rel.getCluster().getRexBuilder(), singleTableOuter));
  }

  @Override
  public RelNode visit(LogicalFilter filter) {
    RelNode visited = super.visit(filter);
    if (!(visited instanceof LogicalFilter f)) {
      return visited;
    }
    RelNode input = f.getInput();
    if (!singleTableOuter && !containsJoin(input)) {
      // Recomputing a single-table outer query is cheap, and the decorrelator's plan (distinct
      // subquery keys joined to it) then builds on the smaller side; without shared marks a semi
      // join would build on the subquery's whole table (TPC-H Q4 got slower).
      return f;
    }
    List<RexNode> kept = new ArrayList<>();
    boolean changed = false;
    for (RexNode c : RelOptUtil.conjunctions(f.getCondition())) {
      RelNode joined = rewrite(c, input, f.getVariablesSet());
      if (joined == null) {
        kept.add(c);
      } else {
        input = joined;
        changed = true;
      }
    }
    if (!changed) {
      return f;
    }
    if (kept.isEmpty()) {
      return input;
    }
    // Conjuncts that stay (other subqueries among them) keep their correlation variables.
    return LogicalFilter.create(
        input,
        RexUtil.composeConjunction(rex, kept),
        com.google.common.collect.ImmutableSet.copyOf(f.getVariablesSet()));
  }

  private static boolean containsJoin(RelNode rel) {
    if (rel instanceof org.apache.calcite.rel.core.Join) {
      return true;
    }
    for (RelNode in : rel.getInputs()) {
      if (containsJoin(in)) {
        return true;
      }
    }
    return false;
  }

  /** The semi or anti join replacing conjunct {@code c} over {@code input}, or null. */
  private RelNode rewrite(RexNode c, RelNode input, Set<CorrelationId> outerVariables) {
    boolean negated = c.getKind() == SqlKind.NOT;
    RexNode inner = negated ? ((org.apache.calcite.rex.RexCall) c).getOperands().get(0) : c;
    if (!(inner instanceof RexSubQuery sub) || sub.getKind() != SqlKind.EXISTS) {
      return null;
    }
    RelNode s = sub.rel;
    while (s instanceof Project p
        && p.getProjects().stream().noneMatch(RexUtil::containsCorrelation)) {
      s = p.getInput();
    }
    if (!(s instanceof Filter subFilter)) {
      return null;
    }
    RelNode source = subFilter.getInput();
    if (!RelOptUtil.getVariablesUsed(source).isEmpty()) {
      return null;
    }
    int leftCount = input.getRowType().getFieldCount();
    List<RexNode> on = new ArrayList<>();
    List<RexNode> local = new ArrayList<>();
    for (RexNode part : RelOptUtil.conjunctions(subFilter.getCondition())) {
      if (!RexUtil.containsCorrelation(part)) {
        local.add(part);
        continue;
      }
      RexNode moved = moveToJoin(part, input, outerVariables, leftCount);
      if (moved == null) {
        return null;
      }
      on.add(moved);
    }
    if (on.isEmpty()) {
      return null; // uncorrelated: the decorrelator's single evaluation is already right
    }
    RelNode right =
        local.isEmpty()
            ? source
            : LogicalFilter.create(source, RexUtil.composeConjunction(rex, local));
    return LogicalJoin.create(
        input,
        right,
        List.of(),
        RexUtil.composeConjunction(rex, on),
        Set.of(),
        negated ? JoinRelType.ANTI : JoinRelType.SEMI);
  }

  /**
   * {@code part} over the join's row (outer fields first, then the subquery's), or null when it
   * refers to a correlation variable other than the outer filter's row.
   */
  private RexNode moveToJoin(
      RexNode part, RelNode input, Set<CorrelationId> outerVariables, int leftCount) {
    boolean[] ok = {true};
    RexNode moved =
        part.accept(
            new RexShuttle() {
              @Override
              public RexNode visitInputRef(RexInputRef ref) {
                return new RexInputRef(ref.getIndex() + leftCount, ref.getType());
              }

              @Override
              public RexNode visitFieldAccess(RexFieldAccess access) {
                if (access.getReferenceExpr() instanceof RexCorrelVariable v
                    && outerVariables.contains(v.id)
                    && v.getType().getFieldCount() == leftCount
                    && access.getField().getIndex() < leftCount
                    && v.getType()
                        .getFieldList()
                        .get(access.getField().getIndex())
                        .getType()
                        .equals(
                            input
                                .getRowType()
                                .getFieldList()
                                .get(access.getField().getIndex())
                                .getType())) {
                  return new RexInputRef(access.getField().getIndex(), access.getType());
                }
                ok[0] = false;
                return access;
              }

              @Override
              public RexNode visitCorrelVariable(RexCorrelVariable v) {
                ok[0] = false;
                return v;
              }

              @Override
              public RexNode visitSubQuery(RexSubQuery subQuery) {
                ok[0] = false;
                return subQuery;
              }
            });
    return ok[0] ? moved : null;
  }
}
