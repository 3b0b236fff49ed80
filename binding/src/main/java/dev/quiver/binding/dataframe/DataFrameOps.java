package dev.quiver.binding.dataframe;

import dev.quiver.binding.dataframe.ExprTranslator.Category;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.calcite.plan.Context;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;

/**
 * Builds the logical plan of each DataFrame transformation on top of its input with Calcite's
 * RelBuilder; unknown columns raise {@code UnknownColumnException}, unknown functions {@code
 * UnknownFunctionException}, type mistakes {@code QueryTypeException}.
 *
 * <p>UDF names are resolved by a {@link FunctionResolver}: pass one to the overloads that take it,
 * or put one (or the session's {@link SqlOperatorTable}) in the Calcite {@code Context} of the
 * RelBuilder's planner, which the overloads without it consult. Each method leaves the builder's
 * stack as it found it, also when it fails.
 */
public final class DataFrameOps {
  private DataFrameOps() {}

  /** SELECT exprs FROM input. */
  public static RelNode select(RelBuilder b, RelNode input, List<Expr> exprs) {
    return select(b, input, exprs, resolverOf(b));
  }

  /** SELECT exprs FROM input, resolving UDFs with {@code udfs}. */
  public static RelNode select(
      RelBuilder b, RelNode input, List<Expr> exprs, FunctionResolver udfs) {
    if (exprs.isEmpty()) {
      throw new QuiverException("select(...) needs at least one expression");
    }
    return build(
        b,
        () -> {
          b.push(input);
          ExprTranslator t = ExprTranslator.single(b, udfs);
          List<RexNode> nodes = new ArrayList<>();
          List<String> names = new ArrayList<>();
          for (Expr e : exprs) {
            if (e instanceof Expr.Column c && c.name().equals("*")) {
              for (RelDataTypeField f : input.getRowType().getFieldList()) {
                nodes.add(b.field(f.getIndex()));
                names.add(f.getName());
              }
              continue;
            }
            if (ExprTranslator.containsAggregate(e)) {
              throw new QuiverException(
                  "'"
                      + e
                      + "' is an aggregate; use aggregate(groupBy, aggregates) instead of select");
            }
            nodes.add(t.translate(e));
            names.add(t.nameOf(e));
          }
          b.project(nodes, names);
          return b.build();
        });
  }

  /** input WHERE predicate. */
  public static RelNode filter(RelBuilder b, RelNode input, Expr predicate) {
    return filter(b, input, predicate, resolverOf(b));
  }

  /** input WHERE predicate, resolving UDFs with {@code udfs}. */
  public static RelNode filter(RelBuilder b, RelNode input, Expr predicate, FunctionResolver udfs) {
    return build(
        b,
        () -> {
          b.push(input);
          ExprTranslator t = ExprTranslator.single(b, udfs);
          if (ExprTranslator.containsAggregate(predicate)) {
            throw new QuiverException(
                "filter predicate '"
                    + predicate
                    + "' contains an aggregate; aggregate first, then filter on the aggregate's"
                    + " output column");
          }
          RexNode condition = t.requireBoolean(predicate, t.translate(predicate));
          b.filter(condition);
          return b.build();
        });
  }

  /** GROUP BY groupBy computing aggregates. */
  public static RelNode aggregate(
      RelBuilder b, RelNode input, List<Expr> groupBy, List<Expr> aggregates) {
    return aggregate(b, input, groupBy, aggregates, resolverOf(b));
  }

  /**
   * GROUP BY groupBy computing aggregates, resolving UDFs with {@code udfs}. An aggregate list item
   * may also be an expression over aggregate calls and group keys (e.g. {@code
   * sum(a).div(count(a))}); the output has the group keys, then the items, in order.
   */
  public static RelNode aggregate(
      RelBuilder b,
      RelNode input,
      List<Expr> groupBy,
      List<Expr> aggregates,
      FunctionResolver udfs) {
    if (groupBy.isEmpty() && aggregates.isEmpty()) {
      throw new QuiverException("aggregate(...) needs at least one group key or aggregate");
    }
    return build(
        b,
        () -> {
          b.push(input);
          ExprTranslator t = ExprTranslator.single(b, udfs);
          // Project the group keys first (in order) and the aggregate arguments after them, as
          // SqlToRelConverter does, so that the output keeps the group keys in the given order.
          List<RexNode> projected = new ArrayList<>();
          List<String> projectedNames = new ArrayList<>();
          List<String> keyNames = new ArrayList<>();
          for (Expr g : groupBy) {
            if (ExprTranslator.containsAggregate(g)) {
              throw new QuiverException(
                  "Group key '"
                      + g
                      + "' contains an aggregate; aggregates go in the aggregate list");
            }
            String name = t.nameOf(g);
            projected.add(t.translate(ExprTranslator.unalias(g)));
            projectedNames.add(name);
            keyNames.add(name);
          }
          int keyCount = keyNames.size();
          // Every distinct aggregate call, computed once; items refer to them by position.
          List<Expr.Aggregate> calls = new ArrayList<>();
          List<String> callNames = new ArrayList<>();
          List<Integer> callArgs = new ArrayList<>();
          List<Integer> direct = new ArrayList<>();
          boolean composite = false;
          for (Expr item : aggregates) {
            Expr inner = ExprTranslator.unalias(item);
            if (inner instanceof Expr.Aggregate a) {
              direct.add(calls.size());
              calls.add(a);
              callNames.add(t.nameOf(item));
              callArgs.add(argument(t, a, projected, projectedNames));
              continue;
            }
            composite = true;
            direct.add(-1);
            List<Expr> nested = new ArrayList<>();
            ExprTranslator.collectAggregates(inner, nested);
            for (Expr n : nested) {
              if (!calls.contains(n)) {
                Expr.Aggregate a = (Expr.Aggregate) n;
                callNames.add("$agg" + calls.size());
                calls.add(a);
                callArgs.add(argument(t, a, projected, projectedNames));
              }
            }
          }
          if (!projected.isEmpty()) {
            b.project(projected, projectedNames);
          }
          List<RexNode> keys = new ArrayList<>();
          for (int i = 0; i < keyCount; i++) {
            keys.add(b.field(i));
          }
          List<RelBuilder.AggCall> aggCalls = new ArrayList<>();
          for (int i = 0; i < calls.size(); i++) {
            aggCalls.add(aggCall(b, calls.get(i), callNames.get(i), callArgs.get(i)));
          }
          b.aggregate(b.groupKey(keys), aggCalls);
          if (composite) {
            Map<Expr, Integer> computed = new HashMap<>();
            for (int i = 0; i < keyCount; i++) {
              computed.putIfAbsent(ExprTranslator.unalias(groupBy.get(i)), i);
            }
            for (int i = 0; i < calls.size(); i++) {
              computed.putIfAbsent(calls.get(i), keyCount + i);
            }
            ExprTranslator post = ExprTranslator.overAggregate(b, udfs, keyCount, computed);
            List<RexNode> nodes = new ArrayList<>();
            List<String> names = new ArrayList<>(keyNames);
            for (int i = 0; i < keyCount; i++) {
              nodes.add(b.field(i));
            }
            for (int i = 0; i < aggregates.size(); i++) {
              Expr item = aggregates.get(i);
              if (direct.get(i) >= 0) {
                nodes.add(b.field(keyCount + direct.get(i)));
              } else {
                try {
                  nodes.add(post.translate(ExprTranslator.unalias(item)));
                } catch (UnknownColumnException e) {
                  throw new QuiverException(
                      "Column '"
                          + e.column()
                          + "' in '"
                          + item
                          + "' is neither a group key nor inside an aggregate: wrap it in one (e.g."
                          + " Expr.max) or add it to the group keys",
                      e);
                }
              }
              names.add(item instanceof Expr.Alias a ? a.name() : item.toString());
            }
            b.project(nodes, names);
          }
          return b.build();
        });
  }

  /**
   * Adds the argument of {@code a} to the pre-aggregate projection (reusing an equal expression)
   * and returns its position, or -1 for COUNT(*).
   */
  private static int argument(
      ExprTranslator t, Expr.Aggregate a, List<RexNode> projected, List<String> names) {
    if (a.arg() == null) {
      return -1;
    }
    RexNode arg = t.translate(a.arg());
    Category c = ExprTranslator.category(arg.getType());
    if ((a.func() == Expr.AggFunc.SUM || a.func() == Expr.AggFunc.AVG) && c != Category.NUMERIC) {
      throw new QueryTypeException(
          "Cannot compute '"
              + a
              + "' over "
              + arg.getType().getFullTypeString().replace(" NOT NULL", "")
              + "; "
              + a.func().name().toLowerCase(java.util.Locale.ROOT)
              + " needs a numeric argument");
    }
    int found = projected.indexOf(arg);
    if (found >= 0) {
      return found;
    }
    names.add(a.arg() instanceof Expr.Column ? t.nameOf(a.arg()) : "$f" + projected.size());
    projected.add(arg);
    return projected.size() - 1;
  }

  private static RelBuilder.AggCall aggCall(
      RelBuilder b, Expr.Aggregate a, String name, int argIndex) {
    if (argIndex < 0) {
      return b.countStar(name);
    }
    RexNode arg = b.field(argIndex);
    switch (a.func()) {
      case SUM:
        return b.sum(a.distinct(), name, arg);
      case AVG:
        return b.avg(a.distinct(), name, arg);
      case MIN:
        return b.aggregateCall(SqlStdOperatorTable.MIN, arg).distinct(a.distinct()).as(name);
      case MAX:
        return b.aggregateCall(SqlStdOperatorTable.MAX, arg).distinct(a.distinct()).as(name);
      case COUNT:
        return b.count(a.distinct(), name, arg);
      default:
        throw new IllegalStateException("unknown aggregate " + a.func());
    }
  }

  /** Equi-join on named columns. */
  public static RelNode join(
      RelBuilder b,
      RelNode left,
      RelNode right,
      JoinType type,
      List<String> leftColumns,
      List<String> rightColumns) {
    if (leftColumns.size() != rightColumns.size() || leftColumns.isEmpty()) {
      throw new QuiverException(
          "join needs the same, non-zero number of left and right columns; got "
              + leftColumns
              + " and "
              + rightColumns);
    }
    return build(
        b,
        () -> {
          b.push(left);
          b.push(right);
          List<RexNode> conditions = new ArrayList<>();
          for (int i = 0; i < leftColumns.size(); i++) {
            RexNode l = b.field(2, 0, fieldIndex(left.getRowType(), leftColumns.get(i), "left"));
            RexNode r = b.field(2, 1, fieldIndex(right.getRowType(), rightColumns.get(i), "right"));
            Category lc = ExprTranslator.category(l.getType());
            Category rc = ExprTranslator.category(r.getType());
            if (lc != rc || lc == Category.OTHER) {
              throw new QueryTypeException(
                  "Cannot join "
                      + leftColumns.get(i)
                      + " ("
                      + l.getType()
                      + ") with "
                      + rightColumns.get(i)
                      + " ("
                      + r.getType()
                      + "); cast one side first");
            }
            conditions.add(b.equals(l, r));
          }
          b.join(joinType(type), b.and(conditions));
          return b.build();
        });
  }

  /** Join on a predicate over both sides. */
  public static RelNode join(RelBuilder b, RelNode left, RelNode right, JoinType type, Expr on) {
    return join(b, left, right, type, on, resolverOf(b));
  }

  /**
   * Join on a predicate over both sides, resolving UDFs with {@code udfs}. Columns are named as in
   * their input; a name both inputs have is ambiguous and rejected.
   */
  public static RelNode join(
      RelBuilder b, RelNode left, RelNode right, JoinType type, Expr on, FunctionResolver udfs) {
    return build(
        b,
        () -> {
          b.push(left);
          b.push(right);
          if (ExprTranslator.containsAggregate(on)) {
            throw new QuiverException("join condition '" + on + "' may not contain an aggregate");
          }
          ExprTranslator t = ExprTranslator.join(b, udfs);
          RexNode condition = t.requireBoolean(on, t.translate(on));
          b.join(joinType(type), condition);
          return b.build();
        });
  }

  /** ORDER BY keys. */
  public static RelNode sort(RelBuilder b, RelNode input, List<Expr> keys) {
    return sort(b, input, keys, resolverOf(b));
  }

  /** ORDER BY keys, resolving UDFs with {@code udfs}. */
  public static RelNode sort(RelBuilder b, RelNode input, List<Expr> keys, FunctionResolver udfs) {
    return build(
        b,
        () -> {
          b.push(input);
          ExprTranslator t = ExprTranslator.single(b, udfs);
          List<RexNode> nodes = new ArrayList<>();
          for (Expr k : keys) {
            if (ExprTranslator.containsAggregate(k)) {
              throw new QuiverException(
                  "Sort key '" + k + "' contains an aggregate; aggregate first, then sort");
            }
            Expr.SortKey key = k instanceof Expr.SortKey s ? s : (Expr.SortKey) k.asc();
            RexNode node = t.translate(ExprTranslator.unalias(key.expr()));
            if (!key.ascending()) {
              node = b.desc(node);
            }
            // Explicit always: Calcite's default puts nulls first when descending; the SQL front
            // end (NullCollation.LAST) puts them last.
            node = key.isNullsFirst() ? b.nullsFirst(node) : b.nullsLast(node);
            nodes.add(node);
          }
          b.sort(nodes);
          return b.build();
        });
  }

  /** OFFSET offset FETCH fetch (fetch < 0: no limit). */
  public static RelNode limit(RelBuilder b, RelNode input, long offset, long fetch) {
    if (offset < 0) {
      throw new QuiverException("limit offset must be >= 0, got " + offset);
    }
    return build(
        b,
        () -> {
          b.push(input);
          b.sortLimit(offset, fetch < 0 ? -1 : fetch, new RexNode[0]);
          return b.build();
        });
  }

  /** UNION ALL. */
  public static RelNode union(RelBuilder b, RelNode left, RelNode right) {
    RelDataType l = left.getRowType();
    RelDataType r = right.getRowType();
    if (l.getFieldCount() != r.getFieldCount()) {
      throw new QueryTypeException(
          "union needs the same number of columns on both sides: left has "
              + l.getFieldNames()
              + ", right has "
              + r.getFieldNames());
    }
    for (int i = 0; i < l.getFieldCount(); i++) {
      RelDataType lt = l.getFieldList().get(i).getType();
      RelDataType rt = r.getFieldList().get(i).getType();
      if (b.getTypeFactory().leastRestrictive(List.of(lt, rt)) == null) {
        throw new QueryTypeException(
            "union column "
                + (i + 1)
                + " ("
                + l.getFieldNames().get(i)
                + ") is "
                + lt
                + " on the left but "
                + rt
                + " on the right; cast one side first");
      }
    }
    return build(
        b,
        () -> {
          b.push(left);
          b.push(right);
          b.union(true);
          return b.build();
        });
  }

  /** SELECT DISTINCT *. */
  public static RelNode distinct(RelBuilder b, RelNode input) {
    return build(
        b,
        () -> {
          b.push(input);
          b.distinct();
          return b.build();
        });
  }

  /**
   * The UDF resolver found in the Calcite context of {@code b}'s planner: a {@link
   * FunctionResolver}, else a {@link SqlOperatorTable}, else none.
   */
  public static FunctionResolver resolverOf(RelBuilder b) {
    Context context = b.getCluster().getPlanner().getContext();
    FunctionResolver resolver = context.unwrap(FunctionResolver.class);
    if (resolver != null) {
      return resolver;
    }
    SqlOperatorTable table = context.unwrap(SqlOperatorTable.class);
    return table != null ? FunctionResolver.of(table) : FunctionResolver.none();
  }

  private static int fieldIndex(RelDataType row, String name, String side) {
    List<String> names = row.getFieldNames();
    int index = names.indexOf(name);
    if (index >= 0) {
      return index;
    }
    int found = -1;
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i).equalsIgnoreCase(name)) {
        if (found >= 0) {
          throw new QuiverException(
              "Column '"
                  + name
                  + "' is ambiguous in the "
                  + side
                  + " input; use the exact spelling");
        }
        found = i;
      }
    }
    if (found < 0) {
      throw new UnknownColumnException(name, Suggestions.closest(name, names));
    }
    return found;
  }

  private static JoinRelType joinType(JoinType type) {
    switch (type) {
      case INNER:
        return JoinRelType.INNER;
      case LEFT:
        return JoinRelType.LEFT;
      case RIGHT:
        return JoinRelType.RIGHT;
      case FULL:
        return JoinRelType.FULL;
      case SEMI:
        return JoinRelType.SEMI;
      case ANTI:
        return JoinRelType.ANTI;
      default:
        throw new IllegalStateException("unknown join type " + type);
    }
  }

  /** Runs {@code body}, restoring the builder's stack and typing Calcite's errors when it fails. */
  private static RelNode build(RelBuilder b, Supplier<RelNode> body) {
    int depth = b.size();
    try {
      return body.get();
    } catch (RuntimeException e) {
      while (b.size() > depth) {
        b.build();
      }
      if (e instanceof QuiverException) {
        throw e;
      }
      throw new QuiverException("Cannot build the DataFrame plan: " + e.getMessage(), e);
    }
  }
}
