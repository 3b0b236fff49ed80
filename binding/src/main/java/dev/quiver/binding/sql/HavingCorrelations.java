package dev.quiver.binding.sql;

import com.google.common.collect.ImmutableSet;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;

/**
 * Gives a HAVING filter the correlation variables its subqueries use.
 *
 * <p>{@code SqlToRelConverter} declares the variable of a subquery in HAVING ({@code HAVING MAX(v)
 * > (SELECT ...) AND NOT EXISTS (SELECT * FROM s WHERE s.k = t.k)}) on the select list's projection
 * above the filter, not on the filter. Calcite's filter rule rewrites a subquery correlated only by
 * the filter's own variables, so the EXISTS became a plain join whose right side still read {@code
 * $cor.k}: planning failed ("cannot be evaluated here"). Where the HAVING holds only a lone EXISTS,
 * {@code ExistsToSemiJoin} hid the problem.
 *
 * <p>When the select list has a correlated subquery of its own, the converter declares the HAVING
 * subquery's variable nowhere at all, and the filter rule rewrote the EXISTS as an uncorrelated
 * join whose decorrelation paired every group with every other ({@code SELECT g, (SELECT COUNT(*)
 * FROM s WHERE s.d = o.g) FROM o GROUP BY g HAVING (SELECT MAX(w) FROM u) > 0 AND NOT (NOT EXISTS
 * (SELECT 1 FROM s WHERE s.k = o.g))} gave each group four times).
 *
 * <p>The variable's row is the filter's input row (the projection reads the filter's rows, which
 * are its input's), so the filter can define it: the variable moves to the filter, or, when the
 * projection's own subqueries use it too, the filter's subqueries get a fresh variable of their
 * own.
 */
final class HavingCorrelations {
  private HavingCorrelations() {}

  static RelNode apply(RelNode rel) {
    Set<CorrelationId> declared = new LinkedHashSet<>();
    collectDeclared(rel, declared);
    return apply(rel, declared);
  }

  private static RelNode apply(RelNode rel, Set<CorrelationId> declaredAnywhere) {
    return rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            RelNode visited = super.visit(other).accept(nested(declaredAnywhere));
            // A HAVING filter: the one over an aggregate, under the select list's projection.
            if (visited instanceof LogicalProject project
                && project.getInput() instanceof LogicalFilter filter
                && filter.getInput() instanceof Aggregate) {
              return move(project, filter, declaredAnywhere);
            }
            return visited;
          }
        });
  }

  /** Applies the pass to the queries of subqueries too. */
  private static RexShuttle nested(Set<CorrelationId> declaredAnywhere) {
    return new RexShuttle() {
      @Override
      public RexNode visitSubQuery(RexSubQuery subQuery) {
        RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
        RelNode rel = HavingCorrelations.apply(visited.rel, declaredAnywhere);
        return rel == visited.rel ? visited : visited.clone(rel);
      }
    };
  }

  /**
   * The variables the filter's subqueries need from the filter's row: those the projection above
   * declares and those nothing in the query declares (the converter loses the declaration of a
   * HAVING subquery's variable when the select list has a correlated subquery of its own) whose row
   * is the filter's.
   */
  private static Set<CorrelationId> needed(
      LogicalProject project, LogicalFilter filter, Set<CorrelationId> declaredAnywhere) {
    Set<CorrelationId> needed = new LinkedHashSet<>();
    RelDataType row = filter.getInput().getRowType();
    RexShuttle collect =
        new RexShuttle() {
          @Override
          public RexNode visitCorrelVariable(RexCorrelVariable variable) {
            if (project.getVariablesSet().contains(variable.id)
                || (!declaredAnywhere.contains(variable.id) && variable.getType().equals(row))) {
              needed.add(variable.id);
            }
            return variable;
          }

          @Override
          public RexNode visitSubQuery(RexSubQuery subQuery) {
            RexShuttle self = this;
            subQuery.rel.accept(
                new RelHomogeneousShuttle() {
                  @Override
                  public RelNode visit(RelNode other) {
                    return super.visit(other).accept(self);
                  }
                });
            return super.visitSubQuery(subQuery);
          }
        };
    filter.getCondition().accept(collect);
    needed.removeAll(filter.getVariablesSet());
    return needed;
  }

  /** Every variable a node of {@code rel}, or of its subqueries, declares. */
  private static void collectDeclared(RelNode rel, Set<CorrelationId> declared) {
    rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            declared.addAll(other.getVariablesSet());
            if (other instanceof Correlate correlate) {
              declared.add(correlate.getCorrelationId());
            }
            other.accept(
                new RexShuttle() {
                  @Override
                  public RexNode visitSubQuery(RexSubQuery subQuery) {
                    collectDeclared(subQuery.rel, declared);
                    return super.visitSubQuery(subQuery);
                  }
                });
            return super.visit(other);
          }
        });
  }

  private static RelNode move(
      LogicalProject project, LogicalFilter filter, Set<CorrelationId> declaredAnywhere) {
    Set<CorrelationId> declared = project.getVariablesSet();
    Set<CorrelationId> filterUses = needed(project, filter, declaredAnywhere);
    if (filterUses.isEmpty()) {
      return project;
    }
    Set<CorrelationId> projectUses = SubQueryOrder.stillUsed(project.getProjects(), declared);
    RexBuilder rex = project.getCluster().getRexBuilder();
    RexNode condition = filter.getCondition();
    Set<CorrelationId> filterVariables = new LinkedHashSet<>(filter.getVariablesSet());
    for (CorrelationId id : filterUses) {
      if (projectUses.contains(id)) {
        CorrelationId fresh = project.getCluster().createCorrel();
        condition = renamed(condition, id, fresh, rex);
        filterVariables.add(fresh);
      } else {
        filterVariables.add(id);
      }
    }
    Set<CorrelationId> projectVariables = new LinkedHashSet<>(declared);
    projectVariables.removeIf(id -> filterUses.contains(id) && !projectUses.contains(id));
    LogicalFilter newFilter =
        LogicalFilter.create(filter.getInput(), condition, ImmutableSet.copyOf(filterVariables));
    return LogicalProject.create(
        newFilter,
        project.getHints(),
        project.getProjects(),
        project.getRowType(),
        projectVariables);
  }

  /** {@code e} with every use of variable {@code from}, in subqueries too, reading {@code to}. */
  private static RexNode renamed(RexNode e, CorrelationId from, CorrelationId to, RexBuilder rex) {
    RexShuttle rename =
        new RexShuttle() {
          @Override
          public RexNode visitCorrelVariable(RexCorrelVariable variable) {
            return variable.id.equals(from) ? rex.makeCorrel(variable.getType(), to) : variable;
          }

          @Override
          public RexNode visitSubQuery(RexSubQuery subQuery) {
            RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
            RexShuttle self = this;
            RelNode rel =
                visited.rel.accept(
                    new RelHomogeneousShuttle() {
                      @Override
                      public RelNode visit(RelNode other) {
                        return super.visit(other).accept(self);
                      }
                    });
            return rel == visited.rel ? visited : visited.clone(rel);
          }
        };
    return e.accept(rename);
  }
}
