package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlQuantifyOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * Rewrites {@code IN}, {@code NOT IN}, {@code SOME}/{@code ANY} and {@code ALL} over a subquery
 * whose select list is constant into an {@code EXISTS}: {@code x IN (SELECT 2 FROM s WHERE p)}
 * becomes {@code CASE WHEN EXISTS (SELECT 2 FROM s WHERE p) THEN x = 2 ELSE FALSE END}. Every row
 * of such a subquery holds the same values, so {@code x} is among them exactly when there is a row
 * and {@code x} equals the constant, unknown when either side is NULL, as SQL's three-valued IN
 * says ({@code x op ALL} arrives as {@code NOT (x op' SOME)}, so it follows).
 *
 * <p>A NULL on the left of IN or SOME gets the same treatment: {@code NULL IN (subquery)} is FALSE
 * over no rows and unknown otherwise, an EXISTS again.
 *
 * <p>Calcite's decorrelator answers the correlated form wrongly: it groups the subquery by its
 * constant column, drops that constant key, and then binds the outer operand to the correlation
 * column instead ({@code x NOT IN (SELECT 2 FROM t WHERE t.k = o.k)} kept the rows where x is 2).
 */
final class ConstantSubQueries extends RelShuttleImpl {
  private final RexBuilder rex;
  private final RexShuttle rewriter =
      new RexShuttle() {
        @Override
        public RexNode visitSubQuery(RexSubQuery subQuery) {
          RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
          RexSubQuery inner = visited.clone(visited.rel.accept(ConstantSubQueries.this));
          RexNode rewritten = rewrite(inner);
          return rewritten == null ? inner : rewritten;
        }
      };

  private ConstantSubQueries(RexBuilder rex) {
    this.rex = rex;
  }

  /** {@code rel} with every IN / SOME over a constant select list turned into an EXISTS. */
  static RelNode apply(RelNode rel) {
    return rel.accept(new ConstantSubQueries(rel.getCluster().getRexBuilder()));
  }

  @Override
  public RelNode visit(LogicalFilter filter) {
    LogicalFilter f = (LogicalFilter) super.visit(filter);
    RexNode condition = f.getCondition().accept(rewriter);
    return condition == f.getCondition() ? f : f.copy(f.getTraitSet(), f.getInput(), condition);
  }

  @Override
  public RelNode visit(LogicalProject project) {
    LogicalProject p = (LogicalProject) super.visit(project);
    List<RexNode> exprs = rewriter.apply(p.getProjects());
    return exprs.equals(p.getProjects())
        ? p
        : p.copy(p.getTraitSet(), p.getInput(), exprs, p.getRowType());
  }

  @Override
  public RelNode visit(LogicalJoin join) {
    LogicalJoin j = (LogicalJoin) super.visit(join);
    RexNode condition = j.getCondition().accept(rewriter);
    return condition == j.getCondition()
        ? j
        : j.copy(
            j.getTraitSet(),
            condition,
            j.getLeft(),
            j.getRight(),
            j.getJoinType(),
            j.isSemiJoinDone());
  }

  /** The EXISTS form of {@code sub}, or null when it needs none. */
  private RexNode rewrite(RexSubQuery sub) {
    RexNode nullNeedle = nullNeedle(sub);
    return nullNeedle != null ? nullNeedle : constantSelectList(sub);
  }

  /**
   * {@code NULL IN (subquery)}, or a row of literals with a NULL: never TRUE; FALSE when no row of
   * the subquery could match (every non-NULL literal differs from a non-NULL value), unknown
   * otherwise. {@code NULL op SOME (subquery)} likewise: FALSE over no rows, else unknown.
   * Calcite's rewrite of a correlated subquery answers unknown even over no rows, so {@code NULL
   * NOT IN (SELECT ... WHERE s.k = o.k)} dropped the outer rows it must keep.
   */
  private RexNode nullNeedle(RexSubQuery sub) {
    List<RexNode> needle = sub.getOperands();
    if (!(sub.getKind() == SqlKind.IN || sub.getKind() == SqlKind.SOME)
        || !RexUtil.allLiterals(needle)
        || needle.stream().noneMatch(RexLiteral::isNullLiteral)
        || (sub.getKind() == SqlKind.SOME && needle.size() != 1)) {
      return null;
    }
    RelNode rows = sub.rel;
    List<RexNode> couldMatch = new ArrayList<>();
    for (int i = 0; i < needle.size(); i++) {
      if (!RexLiteral.isNullLiteral(needle.get(i))) {
        RexNode column = rex.makeInputRef(rows, i);
        couldMatch.add(
            rex.makeCall(
                SqlStdOperatorTable.OR,
                rex.makeCall(SqlStdOperatorTable.IS_NULL, column),
                rex.makeCall(SqlStdOperatorTable.EQUALS, column, needle.get(i))));
      }
    }
    if (!couldMatch.isEmpty()) {
      rows = LogicalFilter.create(rows, RexUtil.composeConjunction(rex, couldMatch));
    }
    RexNode result =
        rex.makeCall(
            SqlStdOperatorTable.CASE,
            RexSubQuery.exists(rows),
            rex.makeNullLiteral(sub.getType()),
            rex.makeLiteral(false));
    return rex.ensureType(sub.getType(), result, true);
  }

  /** The EXISTS form of {@code sub}, or null when its select list is not constant. */
  private RexNode constantSelectList(RexSubQuery sub) {
    SqlOperator comparison;
    if (sub.getKind() == SqlKind.IN) {
      comparison = SqlStdOperatorTable.EQUALS;
    } else if (sub.getKind() == SqlKind.SOME
        && sub.getOperator() instanceof SqlQuantifyOperator q) {
      comparison = comparisonOperator(q.comparisonKind);
    } else {
      return null;
    }
    if (comparison == null
        || !(sub.rel instanceof Project top)
        || top.getProjects().size() != sub.getOperands().size()
        || !top.getProjects().stream().allMatch(ConstantSubQueries::isConstant)) {
      return null;
    }
    List<RexNode> matches = new ArrayList<>();
    for (int i = 0; i < sub.getOperands().size(); i++) {
      matches.add(rex.makeCall(comparison, sub.getOperands().get(i), top.getProjects().get(i)));
    }
    RexNode exists = RexSubQuery.exists(sub.rel);
    RexNode result =
        rex.makeCall(
            SqlStdOperatorTable.CASE,
            exists,
            RexUtil.composeConjunction(rex, matches),
            rex.makeLiteral(false));
    return rex.ensureType(sub.getType(), result, true);
  }

  private static boolean isConstant(RexNode e) {
    return RexUtil.isConstant(e) && !RexUtil.containsCorrelation(e) && RexUtil.isDeterministic(e);
  }

  private static SqlOperator comparisonOperator(SqlKind kind) {
    return switch (kind) {
      case EQUALS -> SqlStdOperatorTable.EQUALS;
      case NOT_EQUALS -> SqlStdOperatorTable.NOT_EQUALS;
      case LESS_THAN -> SqlStdOperatorTable.LESS_THAN;
      case LESS_THAN_OR_EQUAL -> SqlStdOperatorTable.LESS_THAN_OR_EQUAL;
      case GREATER_THAN -> SqlStdOperatorTable.GREATER_THAN;
      case GREATER_THAN_OR_EQUAL -> SqlStdOperatorTable.GREATER_THAN_OR_EQUAL;
      default -> null;
    };
  }
}
