package dev.quiver.binding.sql;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Makes every reference of a subquery to an enclosing aggregate query's group keys read the
 * aggregate's columns.
 *
 * <p>Calcite's {@code SqlToRelConverter} gives such a reference a field of the FROM clause's row
 * and then maps it to the group key's column; with two or more keys referenced it merges their
 * correlation variables first and maps only the first one's fields. In {@code SELECT k, v, (SELECT
 * COUNT(*) FROM s WHERE s.a = t.k AND s.b = t.v) FROM t GROUP BY k, v} the reference to {@code v}
 * kept its position in {@code t} (3) over an aggregate row of two columns, which failed planning or
 * read another column ({@code Cannot compare INTEGER with BOOLEAN} when the group keys had
 * aliases). This pass maps such a field of the FROM row to the aggregate column that groups by that
 * FROM column; a field that is no plain group key is left as it was.
 */
final class GroupKeyCorrelations {
  private GroupKeyCorrelations() {}

  static RelNode apply(RelNode rel) {
    return rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            RelNode visited = super.visit(other).accept(NESTED);
            Set<CorrelationId> variables = visited.getVariablesSet();
            if (variables.isEmpty()
                || !(visited instanceof LogicalProject || visited instanceof LogicalFilter)
                || !(underHaving(visited.getInput(0)) instanceof Aggregate aggregate)) {
              return visited;
            }
            RexBuilder rex = visited.getCluster().getRexBuilder();
            return visited.accept(new InSubQueries(variables, aggregate, rex));
          }
        });
  }

  /**
   * The node under the filters of a HAVING clause: a select list over {@code GROUP BY ... HAVING}
   * reads the filter's row, which is the aggregate's.
   */
  private static RelNode underHaving(RelNode input) {
    while (input instanceof Filter filter) {
      input = filter.getInput();
    }
    return input;
  }

  /** Applies the pass to the queries of subqueries too. */
  private static final RexShuttle NESTED =
      new RexShuttle() {
        @Override
        public RexNode visitSubQuery(RexSubQuery subQuery) {
          RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
          RelNode rel = GroupKeyCorrelations.apply(visited.rel);
          return rel == visited.rel ? visited : visited.clone(rel);
        }
      };

  /** Rewrites the misplaced fields of the given variables inside every subquery it meets. */
  private static final class InSubQueries extends RexShuttle {
    private final Set<CorrelationId> variables;
    private final RelDataType row;
    private final RexBuilder rex;

    /** The row the group keys are computed from: the FROM clause's, filtered. */
    private final RelDataType from;

    /** For each column of {@link #from}, the aggregate column that is that column as a key. */
    private final Map<Integer, Integer> keyOf = new HashMap<>();

    InSubQueries(Set<CorrelationId> variables, Aggregate aggregate, RexBuilder rex) {
      this.variables = variables;
      this.row = aggregate.getRowType();
      this.rex = rex;
      RelNode input = aggregate.getInput();
      Project project = input instanceof Project p ? p : null;
      this.from = project == null ? input.getRowType() : project.getInput().getRowType();
      List<Integer> keys = aggregate.getGroupSet().asList();
      for (int i = 0; i < keys.size(); i++) {
        int key = keys.get(i);
        if (project == null) {
          keyOf.putIfAbsent(key, i);
        } else if (project.getProjects().get(key) instanceof RexInputRef ref) {
          keyOf.putIfAbsent(ref.getIndex(), i);
        }
      }
    }

    @Override
    public RexNode visitSubQuery(RexSubQuery subQuery) {
      RexSubQuery visited = (RexSubQuery) super.visitSubQuery(subQuery);
      InSubQueries self = this;
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

    @Override
    public RexNode visitFieldAccess(RexFieldAccess access) {
      if (access.getReferenceExpr() instanceof RexCorrelVariable v
          && variables.contains(v.id)
          && !v.getType().equals(row)
          && sameColumns(v.getType(), from)) {
        Integer column = keyOf.get(access.getField().getIndex());
        if (column != null) {
          return rex.makeFieldAccess(rex.makeCorrel(row, v.id), column);
        }
      }
      return super.visitFieldAccess(access);
    }

    private static boolean sameColumns(RelDataType a, RelDataType b) {
      List<RelDataTypeField> x = a.getFieldList();
      List<RelDataTypeField> y = b.getFieldList();
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!SqlTypeUtil.equalSansNullability(x.get(i).getType(), y.get(i).getType())) {
          return false;
        }
      }
      return true;
    }
  }
}
