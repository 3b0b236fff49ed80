package dev.quiver.binding.unnest;

import dev.quiver.binding.planner.SingleRowFunction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.rex.RexWindow;
import org.apache.calcite.rex.RexWindowBounds;
import org.apache.calcite.rex.RexWindowExclusion;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Removes every correlate (dependent join) from a plan by pushing it down its right side until no
 * correlation is left (Neumann and Kemper, "Unnesting Arbitrary Queries", BTW 2015).
 *
 * <p>A correlate {@code L ⟕_cor R(cor)} becomes {@code L ⋈ R'} on the outer columns R reads, where
 * {@code R'} computes R once per value of those columns: for every value {@code d} of the domain
 * {@code D = DISTINCT L.cols}, R's rows with {@code cor = d}, tagged with {@code d} (the domain
 * columns, appended to R's own). {@link #push} builds {@code R'} node by node: an uncorrelated
 * subtree is crossed with D; a filter, projection, join, set operation keeps its rows per domain
 * value; an aggregate also groups by the domain (and, without GROUP BY, joins its groups back to
 * the domain so that a value with no rows still gets its one row, with COUNT 0: the COUNT bug);
 * window functions are partitioned by the domain, and LIMIT / OFFSET become ROW_NUMBER over a
 * partition per domain value. A filter over an uncorrelated input that equates every domain column
 * with one of that input's columns reads the domain from those columns instead of joining D; the
 * extra values it yields join no outer row. Correlates are removed innermost first, so a reference
 * to an enclosing query is an opaque parameter while an inner one is removed, and becomes an
 * ordinary correlation of the enclosing correlate afterwards (nesting at any depth).
 *
 * <p>A scalar subquery's SINGLE_VALUE fails only for the outer rows that read it: its groups' row
 * counts go along and the value is read through {@link SingleRowFunction} after the join, as the
 * Calcite path does.
 *
 * <p>Shapes it does not handle raise {@link UnsupportedShape} before anything is returned, and the
 * caller plans the query with Calcite's decorrelator instead: correlated FULL joins, GROUPING SETS
 * or aggregates whose empty-input value it does not know in a correlated subquery without GROUP BY,
 * a LIMIT that is not a literal, and correlated nodes other than filters, projections, aggregates,
 * joins, set operations and sorts (UNNEST, table functions).
 */
public final class Unnesting {
  /** A correlated shape this unnesting does not handle; the query takes the Calcite path. */
  public static final class UnsupportedShape extends RuntimeException {
    UnsupportedShape(String what) {
      super("subquery unnesting does not handle " + what);
    }
  }

  private final RexBuilder rex;
  private final Map<RelNode, Set<CorrelationId>> variables = new IdentityHashMap<>();

  private Unnesting(RexBuilder rex) {
    this.rex = rex;
  }

  /**
   * {@code rel} without correlates; throws {@link UnsupportedShape} for a shape it does not handle.
   */
  public static RelNode apply(RelNode rel) {
    Unnesting u = new Unnesting(rel.getCluster().getRexBuilder());
    return u.uncorrelated(u.unnestAll(rel));
  }

  private RelNode unnestAll(RelNode rel) {
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode in : rel.getInputs()) {
      RelNode n = unnestAll(in);
      changed |= n != in;
      inputs.add(n);
    }
    RelNode r = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    return r instanceof Correlate c ? conform(unnest(c), c.getRowType(), 0) : r;
  }

  /** The outer columns a correlate's right side reads, and the domain of their values. */
  private final class Domain {
    final CorrelationId id;
    final List<Integer> fields;
    final RelNode outer;
    private RelNode relation;

    Domain(CorrelationId id, List<Integer> fields, RelNode outer) {
      this.id = id;
      this.fields = fields;
      this.outer = outer;
    }

    int size() {
      return fields.size();
    }

    int slot(int field) {
      return fields.indexOf(field);
    }

    /** D: the distinct values of the outer columns. */
    RelNode relation() {
      if (relation == null) {
        relation =
            LogicalAggregate.create(outer, List.of(), ImmutableBitSet.of(fields), null, List.of());
      }
      return relation;
    }
  }

  private RelNode unnest(Correlate c) {
    RelNode left = c.getLeft();
    RelNode right = c.getRight();
    JoinRelType type = c.getJoinType();
    SortedSet<Integer> used = fieldsUsed(right, c.getCorrelationId());
    if (used.isEmpty()) {
      return LogicalJoin.create(left, right, List.of(), rex.makeLiteral(true), Set.of(), type);
    }
    Domain d = new Domain(c.getCorrelationId(), List.copyOf(used), left);
    RelNode top = topScalarAggregate(c, d);
    if (top != null) {
      return top;
    }
    RelNode pushed = push(right, d);
    int nl = left.getRowType().getFieldCount();
    int nr = right.getRowType().getFieldCount();
    RexNode condition = sameDomain(left, d.fields, pushed, nr);
    Join join = LogicalJoin.create(left, pushed, List.of(), condition, Set.of(), type);
    if (!type.projectsRight()) {
      return join;
    }
    List<RexNode> exprs = new ArrayList<>();
    for (int i = 0; i < nl + nr; i++) {
      exprs.add(ref(join, i));
    }
    return LogicalProject.create(join, List.of(), exprs, c.getRowType().getFieldNames(), Set.of());
  }

  /**
   * A correlate whose right side is an aggregate without GROUP BY under projections (a scalar
   * subquery's value) joins its outer rows directly to the per-domain aggregate, without building
   * D: {@code L ⟕ Γ_{d; aggs}(R')} on the outer columns, the empty-input values of the aggregates
   * where no group matched and the projections on top. Null when {@code c} is not such a correlate.
   */
  private RelNode topScalarAggregate(Correlate c, Domain d) {
    if (c.getJoinType() != JoinRelType.LEFT && c.getJoinType() != JoinRelType.INNER) {
      return null;
    }
    List<Project> projects = new ArrayList<>();
    RelNode r = c.getRight();
    while (r instanceof Project p) {
      if (RexOver.containsOver(p.getProjects(), null)) {
        return null;
      }
      projects.add(p);
      r = p.getInput();
    }
    if (!(r instanceof Aggregate a)
        || a.getGroupCount() != 0
        || a.getGroupType() != Aggregate.Group.SIMPLE
        || !variables(a.getInput()).contains(d.id)) {
      return null;
    }
    Grouped g = scalarAggregate(a, push(a.getInput(), d), c.getLeft(), d.fields);
    List<RexNode> env = g.values();
    for (int i = projects.size() - 1; i >= 0; i--) {
      List<RexNode> below = env;
      List<RexNode> next = new ArrayList<>();
      for (RexNode e : projects.get(i).getProjects()) {
        RexNode inlined =
            e.accept(
                new RexShuttle() {
                  @Override
                  public RexNode visitInputRef(RexInputRef ref) {
                    return below.get(ref.getIndex());
                  }
                });
        next.add(bind(inlined, d, j -> ref(g.join(), d.fields.get(j))));
      }
      env = next;
    }
    List<RexNode> exprs = new ArrayList<>();
    for (int i = 0; i < c.getLeft().getRowType().getFieldCount(); i++) {
      exprs.add(ref(g.join(), i));
    }
    exprs.addAll(env);
    return LogicalProject.create(
        g.join(), List.of(), exprs, c.getRowType().getFieldNames(), Set.of());
  }

  /**
   * {@code r} computed once per domain value: r's columns, then the domain's. Its first columns
   * keep r's types exactly, so that the expressions above still read them.
   */
  private RelNode push(RelNode r, Domain d) {
    if (!variables(r).contains(d.id)) {
      return LogicalJoin.create(
          r, d.relation(), List.of(), rex.makeLiteral(true), Set.of(), JoinRelType.INNER);
    }
    RelNode out;
    if (r instanceof Filter f) {
      out = pushFilter(f, d);
    } else if (r instanceof Project p) {
      out = pushProject(p, d);
    } else if (r instanceof Aggregate a) {
      out = pushAggregate(a, d);
    } else if (r instanceof Join j) {
      out = pushJoin(j, d);
    } else if (r instanceof Union || r instanceof Intersect || r instanceof Minus) {
      SetOp s = (SetOp) r;
      List<RelNode> inputs = new ArrayList<>();
      for (RelNode in : s.getInputs()) {
        inputs.add(push(in, d));
      }
      out = s.copy(s.getTraitSet(), inputs, s.all);
    } else if (r instanceof Sort s) {
      out = pushSort(s, d);
    } else {
      throw new UnsupportedShape("a correlated " + r.getRelTypeName());
    }
    return conform(out, r.getRowType(), d.size());
  }

  private RelNode pushFilter(Filter f, Domain d) {
    RelNode in = f.getInput();
    if (!variables(in).contains(d.id)) {
      RelNode substituted = substitute(f, d);
      if (substituted != null) {
        return substituted;
      }
    }
    RelNode pushed = push(in, d);
    int n = in.getRowType().getFieldCount();
    return LogicalFilter.create(pushed, bind(f.getCondition(), d, j -> ref(pushed, n + j)));
  }

  /**
   * A filter over an uncorrelated input whose conjuncts equate every domain column with a column of
   * the input: the domain values are read from those columns (D replaced by its equivalent inner
   * columns), which need no join with D. The rows of a domain value are the input's rows where the
   * column holds that value; values no outer row has are dropped by the join back to the outer
   * rows, and a NULL column matches no outer value ({@code =}), so those rows go.
   */
  private RelNode substitute(Filter f, Domain d) {
    RexNode[] equal = new RexNode[d.size()];
    List<RexNode> rest = new ArrayList<>();
    for (RexNode c : org.apache.calcite.plan.RelOptUtil.conjunctions(f.getCondition())) {
      if (c.getKind() == SqlKind.EQUALS && c instanceof RexCall call && assign(call, d, equal)) {
        continue;
      }
      rest.add(c);
    }
    List<RexNode> conditions = new ArrayList<>();
    for (RexNode e : equal) {
      if (e == null) {
        return null;
      }
      if (e.getType().isNullable()) {
        conditions.add(rex.makeCall(SqlStdOperatorTable.IS_NOT_NULL, e));
      }
    }
    for (RexNode c : rest) {
      conditions.add(bind(c, d, j -> equal[j]));
    }
    RelNode in = f.getInput();
    RelNode filtered =
        conditions.isEmpty()
            ? in
            : LogicalFilter.create(in, RexUtil.composeConjunction(rex, conditions));
    List<RexNode> exprs = new ArrayList<>();
    List<String> names = new ArrayList<>(in.getRowType().getFieldNames());
    for (int i = 0; i < names.size(); i++) {
      exprs.add(ref(filtered, i));
    }
    for (int j = 0; j < equal.length; j++) {
      exprs.add(equal[j]);
      names.add("$d" + j);
    }
    return LogicalProject.create(filtered, List.of(), exprs, names, Set.of());
  }

  /** Records {@code $cor.f = column} (either way round) as the column standing for {@code f}. */
  private boolean assign(RexCall call, Domain d, RexNode[] equal) {
    for (int side = 0; side < 2; side++) {
      RexNode a = call.getOperands().get(side);
      RexNode b = call.getOperands().get(1 - side);
      if (a instanceof RexFieldAccess fa
          && fa.getReferenceExpr() instanceof RexCorrelVariable v
          && v.id.equals(d.id)
          && b instanceof RexInputRef
          && SqlTypeUtil.equalSansNullability(rex.getTypeFactory(), a.getType(), b.getType())) {
        int j = d.slot(fa.getField().getIndex());
        if (equal[j] == null) {
          equal[j] = b;
          return true;
        }
      }
    }
    return false;
  }

  private RelNode pushProject(Project p, Domain d) {
    RelNode pushed = push(p.getInput(), d);
    int n = p.getInput().getRowType().getFieldCount();
    List<RexNode> deltas = new ArrayList<>();
    for (int j = 0; j < d.size(); j++) {
      deltas.add(ref(pushed, n + j));
    }
    RexShuttle partition =
        new RexShuttle() {
          @Override
          public RexNode visitOver(RexOver over) {
            RexOver visited = (RexOver) super.visitOver(over);
            return partitioned(visited, deltas);
          }
        };
    List<RexNode> exprs = new ArrayList<>();
    for (RexNode e : p.getProjects()) {
      exprs.add(bind(e, d, deltas::get).accept(partition));
    }
    exprs.addAll(deltas);
    return LogicalProject.create(pushed, p.getHints(), exprs, names(p, d), Set.of());
  }

  /** A window function over the same window, partitioned also by the domain columns. */
  private RexNode partitioned(RexOver over, List<RexNode> deltas) {
    RexWindow w = over.getWindow();
    List<RexNode> keys = new ArrayList<>(w.partitionKeys);
    keys.addAll(deltas);
    return rex.makeOver(
        over.getType(),
        over.getAggOperator(),
        over.getOperands(),
        keys,
        w.orderKeys,
        w.getLowerBound(),
        w.getUpperBound(),
        w.getExclude(),
        w.isRows(),
        true,
        false,
        over.isDistinct(),
        over.ignoreNulls());
  }

  private RelNode pushAggregate(Aggregate a, Domain d) {
    if (a.getGroupType() != Aggregate.Group.SIMPLE) {
      throw new UnsupportedShape("GROUPING SETS in a correlated subquery");
    }
    RelNode pushed = push(a.getInput(), d);
    int n = a.getInput().getRowType().getFieldCount();
    int k = d.size();
    if (a.getGroupCount() == 0) {
      Grouped g = scalarAggregate(a, pushed, d.relation(), range(0, k));
      List<RexNode> exprs = new ArrayList<>(g.values());
      for (int j = 0; j < k; j++) {
        exprs.add(ref(g.join(), j));
      }
      return LogicalProject.create(g.join(), List.of(), exprs, names(a, d), Set.of());
    }
    ImmutableBitSet groups = a.getGroupSet().union(ImmutableBitSet.range(n, n + k));
    int g = a.getGroupCount();
    List<AggregateCall> calls = adapt(a.getAggCallList(), pushed, g, g + k);
    Aggregate agg = LogicalAggregate.create(pushed, a.getHints(), groups, null, calls);
    // The aggregate puts the domain columns (the highest input columns) after the group keys.
    List<RexNode> exprs = new ArrayList<>();
    for (int i = 0; i < g; i++) {
      exprs.add(ref(agg, i));
    }
    for (int i = 0; i < calls.size(); i++) {
      exprs.add(ref(agg, g + k + i));
    }
    for (int j = 0; j < k; j++) {
      exprs.add(ref(agg, g + j));
    }
    return LogicalProject.create(agg, List.of(), exprs, names(a, d), Set.of());
  }

  /** A join of {@code partner}'s rows to their aggregate, and the aggregates' values over it. */
  private record Grouped(Join join, List<RexNode> values) {}

  /**
   * An aggregate without GROUP BY computed per domain value: grouped by the domain columns of its
   * pushed input and LEFT-joined from {@code partner} (D, or the outer rows themselves) on {@code
   * partnerColumns}, so that a domain value without rows still gets its row. Its values: COUNT-like
   * aggregates 0 where no group matched (the COUNT bug), the others NULL as over no rows, and a
   * SINGLE_VALUE checked to have come from at most one row, for the partner rows only.
   */
  private Grouped scalarAggregate(
      Aggregate a, RelNode pushed, RelNode partner, List<Integer> partnerColumns) {
    int n = a.getInput().getRowType().getFieldCount();
    int k = partnerColumns.size();
    List<AggregateCall> calls = adapt(a.getAggCallList(), pushed, 0, k);
    boolean single = false;
    List<RexNode> empty = new ArrayList<>();
    for (AggregateCall call : a.getAggCallList()) {
      empty.add(emptyValue(call));
      single |= call.getAggregation().getKind() == SqlKind.SINGLE_VALUE;
    }
    if (single) {
      calls.add(
          AggregateCall.create(
              SqlStdOperatorTable.COUNT,
              false,
              false,
              false,
              List.of(),
              List.of(),
              -1,
              null,
              RelCollations.EMPTY,
              rex.getTypeFactory().createSqlType(SqlTypeName.BIGINT),
              "$rows"));
    }
    Aggregate agg =
        LogicalAggregate.create(pushed, a.getHints(), ImmutableBitSet.range(n, n + k), null, calls);
    Join join =
        LogicalJoin.create(
            partner,
            agg,
            List.of(),
            sameDomain(partner, partnerColumns, agg, 0),
            Set.of(),
            JoinRelType.LEFT);
    int first = partner.getRowType().getFieldCount() + k;
    RexNode anchor = ref(join, partnerColumns.get(0));
    List<RexNode> values = new ArrayList<>();
    for (int i = 0; i < a.getAggCallList().size(); i++) {
      AggregateCall call = a.getAggCallList().get(i);
      RexNode value = ref(join, first + i);
      if (empty.get(i) != null) {
        value =
            rex.makeCall(
                call.getType(),
                SqlStdOperatorTable.CASE,
                List.of(rex.makeCall(SqlStdOperatorTable.IS_NULL, value), empty.get(i), value));
      } else if (call.getAggregation().getKind() == SqlKind.SINGLE_VALUE) {
        value =
            rex.makeCall(
                rex.getTypeFactory().createTypeWithNullability(value.getType(), true),
                SingleRowFunction.INSTANCE,
                List.of(value, ref(join, first + calls.size() - 1), anchor));
      }
      values.add(value);
    }
    return new Grouped(join, values);
  }

  /**
   * What an aggregate gives over no rows where that is not NULL (COUNT's 0, LITERAL_AGG's literal),
   * else null; other aggregates are refused, since a domain value without rows would get a wrong
   * value.
   */
  private RexNode emptyValue(AggregateCall call) {
    return switch (call.getAggregation().getKind()) {
      case COUNT, SUM0, REGR_COUNT -> rex.makeZeroLiteral(call.getType());
      case LITERAL_AGG -> call.rexList.get(0);
      case SUM,
          MIN,
          MAX,
          AVG,
          SINGLE_VALUE,
          ANY_VALUE,
          STDDEV_POP,
          STDDEV_SAMP,
          VAR_POP,
          VAR_SAMP,
          BIT_AND,
          BIT_OR,
          BIT_XOR,
          COVAR_POP,
          COVAR_SAMP,
          REGR_SXX,
          REGR_SYY,
          MODE,
          ARG_MAX,
          ARG_MIN,
          FIRST_VALUE,
          LAST_VALUE,
          LISTAGG,
          STRING_AGG,
          GROUP_CONCAT ->
          null;
      default ->
          throw new UnsupportedShape(
              call.getAggregation().getName() + " in a correlated subquery without GROUP BY");
    };
  }

  private List<AggregateCall> adapt(List<AggregateCall> calls, RelNode input, int from, int to) {
    List<AggregateCall> out = new ArrayList<>();
    for (AggregateCall call : calls) {
      out.add(call.adaptTo(input, call.getArgList(), call.filterArg, from, to));
    }
    return out;
  }

  private RelNode pushJoin(Join j, Domain d) {
    JoinRelType type = j.getJoinType();
    RelNode l = j.getLeft();
    RelNode r = j.getRight();
    boolean leftUses = variables(l).contains(d.id);
    boolean rightUses = variables(r).contains(d.id);
    boolean pushLeft;
    boolean pushRight;
    switch (type) {
      case INNER -> {
        pushLeft = leftUses || !rightUses;
        pushRight = rightUses;
      }
      case LEFT, SEMI, ANTI -> {
        // The left side keeps its rows per domain value, matched or not: it needs the domain.
        pushLeft = true;
        pushRight = rightUses;
      }
      case RIGHT -> {
        pushLeft = leftUses;
        pushRight = true;
      }
      default -> throw new UnsupportedShape("a correlated " + type + " join");
    }
    int k = d.size();
    int nl = l.getRowType().getFieldCount();
    int nr = r.getRowType().getFieldCount();
    RelNode l2 = pushLeft ? push(l, d) : l;
    RelNode r2 = pushRight ? push(r, d) : r;
    int nl2 = l2.getRowType().getFieldCount();
    List<RelDataTypeField> fields = new ArrayList<>(l2.getRowType().getFieldList());
    fields.addAll(r2.getRowType().getFieldList());
    int deltaAt = pushLeft && type != JoinRelType.RIGHT ? nl : nl2 + nr;
    RexNode condition = RexUtil.shift(j.getCondition(), nl, nl2 - nl);
    condition = bind(condition, d, i -> ref(fields, deltaAt + i));
    if (pushLeft && pushRight) {
      List<RexNode> both = new ArrayList<>();
      both.add(condition);
      for (int i = 0; i < k; i++) {
        both.add(same(ref(fields, nl + i), ref(fields, nl2 + nr + i)));
      }
      condition = RexUtil.composeConjunction(rex, both);
    }
    Join join = LogicalJoin.create(l2, r2, j.getHints(), condition, Set.of(), type);
    List<RexNode> exprs = new ArrayList<>();
    for (int i = 0; i < nl; i++) {
      exprs.add(ref(join, i));
    }
    if (type.projectsRight()) {
      for (int i = 0; i < nr; i++) {
        exprs.add(ref(join, nl2 + i));
      }
    }
    for (int i = 0; i < k; i++) {
      exprs.add(ref(join, deltaAt + i));
    }
    return LogicalProject.create(join, List.of(), exprs, names(j, d), Set.of());
  }

  /**
   * LIMIT / OFFSET per domain value: ROW_NUMBER over a partition per value, in the sort's order; an
   * ORDER BY without them means nothing in a subquery and goes.
   */
  private RelNode pushSort(Sort s, Domain d) {
    RelNode pushed = push(s.getInput(), d);
    if (s.fetch == null && s.offset == null) {
      return pushed;
    }
    long offset = literal(s.offset, 0);
    long fetch = literal(s.fetch, -1);
    int n = s.getInput().getRowType().getFieldCount();
    int k = d.size();
    List<RexNode> keys = new ArrayList<>();
    for (int j = 0; j < k; j++) {
      keys.add(ref(pushed, n + j));
    }
    List<RexFieldCollation> order = new ArrayList<>();
    for (RelFieldCollation fc : s.getCollation().getFieldCollations()) {
      Set<SqlKind> flags = new HashSet<>();
      if (fc.getDirection().isDescending()) {
        flags.add(SqlKind.DESCENDING);
      }
      RelFieldCollation.NullDirection nulls =
          fc.nullDirection == RelFieldCollation.NullDirection.UNSPECIFIED
              ? fc.getDirection().defaultNullDirection()
              : fc.nullDirection;
      flags.add(
          nulls == RelFieldCollation.NullDirection.FIRST
              ? SqlKind.NULLS_FIRST
              : SqlKind.NULLS_LAST);
      order.add(new RexFieldCollation(ref(pushed, fc.getFieldIndex()), flags));
    }
    RelDataType bigint = rex.getTypeFactory().createSqlType(SqlTypeName.BIGINT);
    RexNode rowNumber =
        rex.makeOver(
            bigint,
            SqlStdOperatorTable.ROW_NUMBER,
            List.of(),
            keys,
            com.google.common.collect.ImmutableList.copyOf(order),
            RexWindowBounds.UNBOUNDED_PRECEDING,
            RexWindowBounds.CURRENT_ROW,
            RexWindowExclusion.EXCLUDE_NO_OTHER,
            true,
            true,
            false,
            false,
            false);
    List<RexNode> exprs = new ArrayList<>();
    List<String> names = new ArrayList<>(pushed.getRowType().getFieldNames());
    for (int i = 0; i < n + k; i++) {
      exprs.add(ref(pushed, i));
    }
    exprs.add(rowNumber);
    names.add("$rn");
    RelNode numbered = LogicalProject.create(pushed, List.of(), exprs, names, Set.of());
    RexNode rn = ref(numbered, n + k);
    List<RexNode> bounds = new ArrayList<>();
    bounds.add(
        rex.makeCall(SqlStdOperatorTable.GREATER_THAN, rn, rex.makeBigintLiteral(big(offset))));
    if (fetch >= 0) {
      bounds.add(
          rex.makeCall(
              SqlStdOperatorTable.LESS_THAN_OR_EQUAL,
              rn,
              rex.makeBigintLiteral(big(offset + fetch))));
    }
    RelNode kept = LogicalFilter.create(numbered, RexUtil.composeConjunction(rex, bounds));
    return LogicalProject.create(
        kept, List.of(), exprs.subList(0, n + k), names.subList(0, n + k), Set.of());
  }

  private static java.math.BigDecimal big(long v) {
    return java.math.BigDecimal.valueOf(v);
  }

  private static long literal(RexNode e, long absent) {
    if (e == null) {
      return absent;
    }
    if (e instanceof RexLiteral lit && lit.getValueAs(Long.class) != null) {
      return lit.getValueAs(Long.class);
    }
    throw new UnsupportedShape("a LIMIT or OFFSET that is not a literal in a correlated subquery");
  }

  /**
   * The condition that columns {@code aColumns} of {@code a} equal the domain columns of {@code b}
   * starting at {@code bFirst}, as the join {@code a ⋈ b} sees them.
   */
  private RexNode sameDomain(RelNode a, List<Integer> aColumns, RelNode b, int bFirst) {
    List<RelDataTypeField> fields = new ArrayList<>(a.getRowType().getFieldList());
    fields.addAll(b.getRowType().getFieldList());
    int na = a.getRowType().getFieldCount();
    List<RexNode> conditions = new ArrayList<>();
    for (int j = 0; j < aColumns.size(); j++) {
      conditions.add(same(ref(fields, aColumns.get(j)), ref(fields, na + bFirst + j)));
    }
    return RexUtil.composeConjunction(rex, conditions);
  }

  /** {@code =} where one side cannot be NULL, else IS NOT DISTINCT FROM (a NULL domain value). */
  private RexNode same(RexNode a, RexNode b) {
    return rex.makeCall(
        a.getType().isNullable() && b.getType().isNullable()
            ? SqlStdOperatorTable.IS_NOT_DISTINCT_FROM
            : SqlStdOperatorTable.EQUALS,
        a,
        b);
  }

  /** {@code e} with the domain's correlation fields replaced by {@code slot}'s expressions. */
  private static RexNode bind(RexNode e, Domain d, IntFunction<RexNode> slot) {
    return e.accept(
        new RexShuttle() {
          @Override
          public RexNode visitFieldAccess(RexFieldAccess fa) {
            if (fa.getReferenceExpr() instanceof RexCorrelVariable v && v.id.equals(d.id)) {
              return slot.apply(d.slot(fa.getField().getIndex()));
            }
            return super.visitFieldAccess(fa);
          }
        });
  }

  /** The correlation variables a subtree uses. */
  private Set<CorrelationId> variables(RelNode r) {
    Set<CorrelationId> known = variables.get(r);
    if (known != null) {
      return known;
    }
    Set<CorrelationId> out = new HashSet<>();
    r.accept(
        new RexShuttle() {
          @Override
          public RexNode visitCorrelVariable(RexCorrelVariable v) {
            out.add(v.id);
            return v;
          }

          @Override
          public RexNode visitSubQuery(RexSubQuery q) {
            throw new UnsupportedShape("a subquery left in an expression");
          }
        });
    for (RelNode in : r.getInputs()) {
      out.addAll(variables(in));
    }
    variables.put(r, out);
    return out;
  }

  /** The fields of variable {@code id} that {@code r} reads. */
  private static SortedSet<Integer> fieldsUsed(RelNode r, CorrelationId id) {
    SortedSet<Integer> out = new TreeSet<>();
    RexShuttle finder =
        new RexShuttle() {
          @Override
          public RexNode visitFieldAccess(RexFieldAccess fa) {
            if (fa.getReferenceExpr() instanceof RexCorrelVariable v && v.id.equals(id)) {
              out.add(fa.getField().getIndex());
              return fa;
            }
            return super.visitFieldAccess(fa);
          }

          @Override
          public RexNode visitCorrelVariable(RexCorrelVariable v) {
            if (v.id.equals(id)) {
              throw new UnsupportedShape("a correlation variable read as a whole row");
            }
            return v;
          }
        };
    new Object() {
      void walk(RelNode n) {
        n.accept(finder);
        n.getInputs().forEach(this::walk);
      }
    }.walk(r);
    return out;
  }

  /**
   * The plan with no correlation left, nodes' variable sets cleared; a correlate or variable still
   * there is a shape this class missed, refused rather than planned.
   */
  private RelNode uncorrelated(RelNode rel) {
    return rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            RelNode r = super.visit(other);
            if (r instanceof Correlate) {
              throw new UnsupportedShape("a correlate left after unnesting");
            }
            if (!variables(r).isEmpty()) {
              throw new UnsupportedShape("a correlation variable left after unnesting");
            }
            if (r instanceof Filter f && !f.getVariablesSet().isEmpty()) {
              return LogicalFilter.create(f.getInput(), f.getCondition());
            }
            if (r instanceof Project p && !p.getVariablesSet().isEmpty()) {
              return LogicalProject.create(
                  p.getInput(), p.getHints(), p.getProjects(), p.getRowType(), Set.of());
            }
            if (r instanceof Join j && !j.getVariablesSet().isEmpty()) {
              return LogicalJoin.create(
                  j.getLeft(),
                  j.getRight(),
                  j.getHints(),
                  j.getCondition(),
                  Set.of(),
                  j.getJoinType());
            }
            return r;
          }
        });
  }

  /**
   * {@code rel} with its first columns of exactly the types of {@code want} (casting where grouping
   * by the domain or joining to it changed a nullability), and its {@code extra} columns after.
   */
  private RelNode conform(RelNode rel, RelDataType want, int extra) {
    List<RelDataTypeField> have = rel.getRowType().getFieldList();
    List<RelDataTypeField> wanted = want.getFieldList();
    boolean same = true;
    for (int i = 0; i < wanted.size(); i++) {
      same &= have.get(i).getType().equals(wanted.get(i).getType());
    }
    if (same) {
      return rel;
    }
    List<RexNode> exprs = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < wanted.size() + extra; i++) {
      RexNode e = ref(rel, i);
      if (i < wanted.size()) {
        RelDataType t = wanted.get(i).getType();
        exprs.add(e.getType().equals(t) ? e : rex.makeAbstractCast(t, e, false));
        names.add(wanted.get(i).getName());
      } else {
        exprs.add(e);
        names.add(have.get(i).getName());
      }
    }
    return LogicalProject.create(rel, List.of(), exprs, names, Set.of());
  }

  private static List<String> names(RelNode r, Domain d) {
    List<String> names = new ArrayList<>(r.getRowType().getFieldNames());
    for (int j = 0; j < d.size(); j++) {
      names.add("$d" + j);
    }
    return names;
  }

  private static List<Integer> range(int from, int to) {
    List<Integer> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  private static RexInputRef ref(RelNode r, int i) {
    return RexInputRef.of(i, r.getRowType());
  }

  private static RexInputRef ref(List<RelDataTypeField> fields, int i) {
    return new RexInputRef(i, fields.get(i).getType());
  }
}
