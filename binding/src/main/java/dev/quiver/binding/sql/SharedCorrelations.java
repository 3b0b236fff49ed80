package dev.quiver.binding.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;

/**
 * Makes every use of a correlation field that a subtree below also uses read it from that subtree,
 * so Calcite's decorrelator links the two instead of losing one.
 *
 * <p>After decorrelation a subtree that used {@code $cor.f} carries the value of {@code f} as one
 * of its columns. The decorrelator gets two cases wrong when the same field is also used above that
 * subtree:
 *
 * <ul>
 *   <li>a filter or projection that needs {@code f} and another field the subtree does not carry
 *       joins a generator of all its fields' values and reads {@code f} from the generator, without
 *       equating it with the subtree's {@code f}: a nested subquery that refers to the outermost
 *       query ({@code WHERE s.k = o.k AND s.v > (SELECT MIN(v) FROM s s2 WHERE s2.k = o.k)}) is
 *       compared with every outer row's minimum;
 *   <li>an inner join of two subtrees that both use {@code f} pairs rows of different outer rows;
 *   <li>the preserved side of an outer join that uses some of the join's fields loses them when the
 *       decorrelator supplies the others ({@link #outerJoin}).
 * </ul>
 *
 * Before decorrelation this pass rewrites such a filter or projection to read {@code f} from a
 * column its input projects ({@code $cor.f} there, which the decorrelator maps to the subtree's
 * copy), and gives such a join the condition {@code left.f IS NOT DISTINCT FROM right.f}. Both are
 * no-ops for the correlated plan ({@code $cor.f} equals itself), so the rows cannot change; only
 * the decorrelated plan gains the links it lacked. A filter left without a correlation variable is
 * marked so that the decorrelator keeps it above those columns ({@link #strip} removes the mark).
 */
final class SharedCorrelations {
  private SharedCorrelations() {}

  /** One field of one correlation variable. */
  record Ref(CorrelationId id, int field) {}

  static RelNode apply(RelNode rel) {
    return hasCorrelate(rel) ? rewrite(rel) : rel;
  }

  private static boolean hasCorrelate(RelNode rel) {
    if (rel instanceof Correlate) {
      return true;
    }
    for (RelNode input : rel.getInputs()) {
      if (hasCorrelate(input)) {
        return true;
      }
    }
    return false;
  }

  private static RelNode rewrite(RelNode rel) {
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode rewritten = rewrite(input);
      changed |= rewritten != input;
      inputs.add(rewritten);
    }
    RelNode node = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    if (node instanceof LogicalFilter filter) {
      return filter(filter);
    }
    if (node instanceof LogicalProject project) {
      return project(project);
    }
    if (node instanceof LogicalJoin join && join.getJoinType().projectsRight()) {
      return join(outerJoin(join));
    }
    return node;
  }

  /**
   * An outer join whose preserved side uses some of the join's correlation fields but not all: that
   * side gets the missing ones as columns (projected away again). The decorrelator gives the
   * preserved side of an outer join a generator of the fields it lacks, and in doing so forgets the
   * fields the side already carried, so a LEFT JOIN of two derived tables correlated by different
   * columns lost the left one's correlation. A side that carries them all needs no generator.
   */
  private static LogicalJoin outerJoin(LogicalJoin join) {
    JoinRelType type = join.getJoinType();
    if (!type.generatesNullsOnLeft() && !type.generatesNullsOnRight()) {
      return join;
    }
    Map<Ref, RexFieldAccess> all = used(join);
    RelNode left = type.generatesNullsOnRight() ? carrying(join.getLeft(), all) : join.getLeft();
    RelNode right = type.generatesNullsOnLeft() ? carrying(join.getRight(), all) : join.getRight();
    if (left == join.getLeft() && right == join.getRight()) {
      return join;
    }
    return join.copy(
        join.getTraitSet(), join.getCondition(), left, right, type, join.isSemiJoinDone());
  }

  /** {@code rel}, carrying every field of {@code all} when it carries some of them already. */
  private static RelNode carrying(RelNode rel, Map<Ref, RexFieldAccess> all) {
    Map<Ref, RexFieldAccess> has = used(rel);
    if (has.isEmpty()) {
      return rel;
    }
    List<RexFieldAccess> missing = new ArrayList<>();
    all.forEach(
        (ref, f) -> {
          if (!has.containsKey(ref)) {
            missing.add(f);
          }
        });
    if (missing.isEmpty()) {
      return rel;
    }
    RexBuilder rex = rel.getCluster().getRexBuilder();
    return LogicalProject.create(
        withColumns(rel, missing),
        List.of(),
        rex.identityProjects(rel.getRowType()),
        rel.getRowType().getFieldNames(),
        Set.of());
  }

  private static RelNode filter(LogicalFilter filter) {
    List<RexFieldAccess> shared =
        shared(refs(List.of(filter.getCondition())), used(filter.getInput()));
    if (shared.isEmpty()) {
      return filter;
    }
    int width = filter.getInput().getRowType().getFieldCount();
    RelNode input = withColumns(filter.getInput(), shared);
    RexNode condition = readFromColumns(filter.getCondition(), shared, width);
    if (!RexUtil.containsCorrelation(condition)) {
      condition =
          filter
              .getCluster()
              .getRexBuilder()
              .makeCall(STAYS_ABOVE_COLUMNS, condition, shared.get(0));
    }
    RelNode rewritten = filter.copy(filter.getTraitSet(), input, condition);
    return RelOptUtil.createProject(rewritten, IntStream.range(0, width).boxed().toList());
  }

  /**
   * {@code $STAYS_ABOVE_COLUMNS(condition, $cor.f)} is {@code condition}; it keeps a filter that
   * {@link #filter} made read every correlation field from columns above the projection of those
   * columns. Before decorrelating, Calcite's decorrelator pushes every filter without a correlation
   * variable below the projection under it, which would put {@code $cor.f} back into the condition;
   * it then moves an expression of correlation fields only ({@code IS NULL($cor.f)}, which IS NOT
   * DISTINCT FROM becomes) to the correlate's left side as a field of its own, and a field the
   * subtree below does not carry is read from a generator of all outer values without being equated
   * with the subtree's {@code f}: {@code x IN (SELECT i FROM (SELECT * FROM s WHERE s.k = o.n)
   * WHERE o.n IS NOT DISTINCT FROM i2)} was NULL instead of FALSE for a NULL {@code o.n}. The
   * correlation variable in the call keeps the filter where it is; {@link #strip} removes the call
   * after decorrelation.
   */
  private static final SqlFunction STAYS_ABOVE_COLUMNS =
      new SqlFunction(
          "$STAYS_ABOVE_COLUMNS",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.ARG0,
          null,
          OperandTypes.ANY_ANY,
          SqlFunctionCategory.SYSTEM);

  /** {@code rel} without the calls {@link #filter} added. */
  static RelNode strip(RelNode rel) {
    RexShuttle unwrap =
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            return call.getOperator() == STAYS_ABOVE_COLUMNS
                ? call.getOperands().get(0).accept(this)
                : super.visitCall(call);
          }
        };
    return rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            return super.visit(other).accept(unwrap);
          }
        });
  }

  private static RelNode project(LogicalProject project) {
    List<RexFieldAccess> shared = shared(refs(project.getProjects()), used(project.getInput()));
    if (shared.isEmpty()) {
      return project;
    }
    int width = project.getInput().getRowType().getFieldCount();
    List<RexNode> exprs = new ArrayList<>();
    for (RexNode e : project.getProjects()) {
      exprs.add(readFromColumns(e, shared, width));
    }
    return project.copy(
        project.getTraitSet(),
        withColumns(project.getInput(), shared),
        exprs,
        project.getRowType());
  }

  private static RelNode join(LogicalJoin join) {
    Map<Ref, RexFieldAccess> left = used(join.getLeft());
    Map<Ref, RexFieldAccess> right = used(join.getRight());
    Map<Ref, RexFieldAccess> condition = refs(List.of(join.getCondition()));
    List<RexFieldAccess> both = shared(left, right);
    Map<Ref, RexFieldAccess> leftExtra = new LinkedHashMap<>();
    Map<Ref, RexFieldAccess> rightExtra = new LinkedHashMap<>();
    for (RexFieldAccess f : both) {
      leftExtra.put(ref(f), f);
      rightExtra.put(ref(f), f);
    }
    condition.forEach(
        (ref, f) -> {
          if (left.containsKey(ref)) {
            leftExtra.put(ref, f);
          } else if (right.containsKey(ref)) {
            rightExtra.put(ref, f);
          }
        });
    if (leftExtra.isEmpty() && rightExtra.isEmpty()) {
      return join;
    }
    int leftWidth = join.getLeft().getRowType().getFieldCount();
    int rightWidth = join.getRight().getRowType().getFieldCount();
    List<RexFieldAccess> leftColumns = List.copyOf(leftExtra.values());
    List<RexFieldAccess> rightColumns = List.copyOf(rightExtra.values());
    RelNode newLeft = withColumns(join.getLeft(), leftColumns);
    RelNode newRight = withColumns(join.getRight(), rightColumns);
    int newLeftWidth = leftWidth + leftColumns.size();
    RexBuilder rex = join.getCluster().getRexBuilder();

    // Right fields move past the left side's new columns; the condition's uses of shared fields
    // read the copies (the left one where both sides have it).
    RexNode shifted =
        join.getCondition()
            .accept(
                new RexShuttle() {
                  @Override
                  public RexNode visitInputRef(RexInputRef ref) {
                    return ref.getIndex() < leftWidth
                        ? ref
                        : new RexInputRef(ref.getIndex() + leftColumns.size(), ref.getType());
                  }

                  @Override
                  public RexNode visitFieldAccess(RexFieldAccess access) {
                    Ref r = ref(access);
                    if (r != null) {
                      int i = indexOf(leftColumns, r);
                      if (i >= 0) {
                        return new RexInputRef(leftWidth + i, access.getType());
                      }
                      int j = indexOf(rightColumns, r);
                      if (j >= 0) {
                        return new RexInputRef(newLeftWidth + rightWidth + j, access.getType());
                      }
                    }
                    return super.visitFieldAccess(access);
                  }
                });
    List<RexNode> conjuncts = new ArrayList<>(List.of(shifted));
    for (RexFieldAccess f : both) {
      Ref r = ref(f);
      conjuncts.add(
          rex.makeCall(
              SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
              new RexInputRef(leftWidth + indexOf(leftColumns, r), f.getType()),
              new RexInputRef(newLeftWidth + rightWidth + indexOf(rightColumns, r), f.getType())));
    }
    RelNode rewritten =
        join.copy(
            join.getTraitSet(),
            RexUtil.composeConjunction(rex, conjuncts),
            newLeft,
            newRight,
            join.getJoinType(),
            join.isSemiJoinDone());
    List<Integer> keep = new ArrayList<>();
    IntStream.range(0, leftWidth).forEach(keep::add);
    IntStream.range(newLeftWidth, newLeftWidth + rightWidth).forEach(keep::add);
    return RelOptUtil.createProject(rewritten, keep);
  }

  /** {@code rel} with the given correlation fields appended as columns. */
  private static RelNode withColumns(RelNode rel, List<RexFieldAccess> fields) {
    RexBuilder rex = rel.getCluster().getRexBuilder();
    List<RexNode> exprs = new ArrayList<>(rex.identityProjects(rel.getRowType()));
    List<String> names = new ArrayList<>(rel.getRowType().getFieldNames());
    for (int i = 0; i < fields.size(); i++) {
      exprs.add(fields.get(i));
      names.add("$cor_field" + i);
    }
    return LogicalProject.create(rel, List.of(), exprs, names, Set.of());
  }

  /** {@code e} reading the given correlation fields from the columns appended at {@code width}. */
  private static RexNode readFromColumns(RexNode e, List<RexFieldAccess> fields, int width) {
    return e.accept(
        new RexShuttle() {
          @Override
          public RexNode visitFieldAccess(RexFieldAccess access) {
            Ref r = ref(access);
            int i = r == null ? -1 : indexOf(fields, r);
            return i >= 0
                ? new RexInputRef(width + i, access.getType())
                : super.visitFieldAccess(access);
          }
        });
  }

  private static int indexOf(List<RexFieldAccess> fields, Ref r) {
    for (int i = 0; i < fields.size(); i++) {
      if (r.equals(ref(fields.get(i)))) {
        return i;
      }
    }
    return -1;
  }

  /** The fields of {@code uses} that {@code subtree} also uses, in a stable order. */
  private static List<RexFieldAccess> shared(
      Map<Ref, RexFieldAccess> uses, Map<Ref, RexFieldAccess> subtree) {
    List<RexFieldAccess> shared = new ArrayList<>();
    uses.forEach(
        (ref, f) -> {
          if (subtree.containsKey(ref)) {
            shared.add(f);
          }
        });
    return shared;
  }

  static Ref ref(RexFieldAccess access) {
    return access.getReferenceExpr() instanceof RexCorrelVariable v
        ? new Ref(v.id, access.getField().getIndex())
        : null;
  }

  /** The correlation fields the expressions use. */
  private static Map<Ref, RexFieldAccess> refs(List<RexNode> exprs) {
    Map<Ref, RexFieldAccess> found = new LinkedHashMap<>();
    RexShuttle collect =
        new RexShuttle() {
          @Override
          public RexNode visitFieldAccess(RexFieldAccess access) {
            Ref r = ref(access);
            if (r != null) {
              found.putIfAbsent(r, access);
            }
            return super.visitFieldAccess(access);
          }
        };
    for (RexNode e : exprs) {
      e.accept(collect);
    }
    return found;
  }

  /**
   * The fields of correlation variables defined above {@code rel} that some expression in it uses.
   */
  static Map<Ref, RexFieldAccess> used(RelNode rel) {
    Map<Ref, RexFieldAccess> found = new LinkedHashMap<>();
    List<CorrelationId> defined = new ArrayList<>();
    collect(rel, found, defined);
    found.keySet().removeIf(r -> defined.contains(r.id()));
    return found;
  }

  private static void collect(
      RelNode rel, Map<Ref, RexFieldAccess> found, List<CorrelationId> defined) {
    if (rel instanceof Correlate c) {
      defined.add(c.getCorrelationId());
    }
    defined.addAll(rel.getVariablesSet());
    rel.accept(
        new RexShuttle() {
          @Override
          public RexNode visitFieldAccess(RexFieldAccess access) {
            Ref r = ref(access);
            if (r != null) {
              found.putIfAbsent(r, access);
            }
            return super.visitFieldAccess(access);
          }
        });
    for (RelNode input : rel.getInputs()) {
      collect(input, found, defined);
    }
  }
}
