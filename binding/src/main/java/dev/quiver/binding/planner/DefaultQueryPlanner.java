package dev.quiver.binding.planner;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.logical.QuiverScan;
import dev.quiver.binding.logical.RelLogicalPlan;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.aggregate.AggregateCall;
import dev.quiver.binding.physical.aggregate.AggregateFunction;
import dev.quiver.binding.physical.aggregate.AggregateMode;
import dev.quiver.binding.physical.aggregate.HashAggregateExec;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.CastExpr;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.join.HashJoinExec;
import dev.quiver.binding.physical.join.NestedLoopJoinExec;
import dev.quiver.binding.physical.join.PartitionMode;
import dev.quiver.binding.physical.operator.EmptyExec;
import dev.quiver.binding.physical.operator.FilterExec;
import dev.quiver.binding.physical.operator.LimitExec;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.physical.operator.UnionExec;
import dev.quiver.binding.physical.operator.ValuesExec;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.physical.sort.SortPreservingMergeExec;
import dev.quiver.binding.physical.window.WindowCall;
import dev.quiver.binding.physical.window.WindowExec;
import dev.quiver.binding.physical.window.WindowFrame;
import dev.quiver.binding.physical.window.WindowFunction;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * The binding's planner: turns an optimized logical plan into a parallel physical plan in the style
 * of DataFusion (partial/final aggregates around a hash repartition, partitioned or collect-build
 * hash joins, per-partition sorts merged in order), then applies the installed physical optimizer
 * rules.
 */
public class DefaultQueryPlanner implements QueryPlanner {
  /**
   * Largest estimated build side (rows) for which a hash join gathers it whole instead of
   * repartitioning.
   */
  public static final String COLLECT_BUILD_THRESHOLD_ROWS =
      BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS.key();

  /** Default of {@link #COLLECT_BUILD_THRESHOLD_ROWS}. */
  public static final long DEFAULT_COLLECT_BUILD_THRESHOLD_ROWS =
      BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS.defaultValue();

  /** Creates the planner. */
  public DefaultQueryPlanner() {}

  @Override
  public ExecutionPlan createPhysicalPlan(LogicalPlan plan, PlanningContext context) {
    if (!(plan instanceof RelLogicalPlan rel)) {
      throw new QuiverException(
          "DefaultQueryPlanner can only plan logical plans made by a Quiver SessionContext, not "
              + plan.getClass().getName());
    }
    ExecutionPlan physical = new Builder(rel, context.config()).plan(rel.rel());
    for (PhysicalOptimizerRule rule : context.physicalOptimizerRules()) {
      physical = rule.optimize(physical, context.config());
      if (physical == null) {
        throw new QuiverException("Physical optimizer rule '" + rule.name() + "' returned no plan");
      }
    }
    return withQuerySchema(physical, TypeMapping.toArrowSchema(rel.rel().getRowType()));
  }

  /**
   * Labels the plan's output with the query's own column names and nullability, which operators
   * do not always derive as Calcite does (an aggregate over a shuffle calls its sums nullable),
   * so that the batches a query returns carry exactly its {@code DataFrame.schema()}. Only the
   * labels change: vectors are moved, not copied.
   */
  static ExecutionPlan withQuerySchema(ExecutionPlan physical, Schema expected) {
    Schema actual = physical.schema();
    if (actual.equals(expected)) {
      return physical;
    }
    List<Field> want = expected.getFields();
    List<Field> got = actual.getFields();
    if (want.size() != got.size()) {
      throw new IllegalStateException(
          "The physical plan returns " + actual + " but the query's schema is " + expected);
    }
    List<PhysicalExpr> exprs = new ArrayList<>(want.size());
    List<String> names = new ArrayList<>(want.size());
    for (int i = 0; i < want.size(); i++) {
      if (!want.get(i).getType().equals(got.get(i).getType())) {
        throw new IllegalStateException(
            "The physical plan returns " + actual + " but the query's schema is " + expected);
      }
      exprs.add(
          new ColumnExpr(
              i,
              got.get(i).getName(),
              want.get(i).getType(),
              want.get(i).isNullable(),
              want.get(i).getChildren()));
      names.add(want.get(i).getName());
    }
    return new ProjectionExec(physical, exprs, names);
  }

  /** Plans one query; holds the per-query translator and settings. */
  private static final class Builder {
    private final RexTranslator translator;
    private final SessionConfig config;
    private final int partitions;
    private final long collectThreshold;
    private final RexBuilder rexBuilder;
    private final RelMetadataQuery mq;

    Builder(RelLogicalPlan plan, SessionConfig config) {
      this.translator = new RexTranslator(plan.udfs());
      this.config = config;
      this.partitions = config.targetPartitions();
      this.collectThreshold = config.get(BindingSettings.COLLECT_BUILD_THRESHOLD_ROWS);
      this.rexBuilder = plan.rel().getCluster().getRexBuilder();
      this.mq = plan.rel().getCluster().getMetadataQuery();
    }

    ExecutionPlan plan(RelNode rel) {
      if (rel instanceof QuiverScan s) {
        return scan(s, OptionalLong.empty());
      } else if (rel instanceof Filter f) {
        ExecutionPlan input = plan(f.getInput());
        return new FilterExec(input, translate(f.getCondition(), f.getInput().getRowType()));
      } else if (rel instanceof Project p) {
        return project(p);
      } else if (rel instanceof Aggregate a) {
        return aggregate(a);
      } else if (rel instanceof Join j) {
        return join(j);
      } else if (rel instanceof Sort s) {
        return sort(s);
      } else if (rel instanceof Union u) {
        return union(u);
      } else if (rel instanceof Values v) {
        return values(v);
      } else if (rel instanceof Window w) {
        return window(w);
      } else if (rel instanceof Correlate) {
        throw new QuiverException(
            "This correlated subquery could not be turned into a join (a Correlate remained after"
                + " decorrelation); rewrite it with an explicit join or an uncorrelated subquery");
      }
      throw new QuiverException(
          "Cannot plan logical operator "
              + rel.getRelTypeName()
              + " ("
              + RelOptUtil.toString(rel).strip()
              + "); this SQL construct is not supported");
    }

    private PhysicalExpr translate(RexNode node, RelDataType inputType) {
      return translator.translate(RexUtil.expandSearch(rexBuilder, null, node), inputType);
    }

    // ---- scans, projections, values -------------------------------------------------------

    private ExecutionPlan scan(QuiverScan s, OptionalLong limit) {
      RelDataType full = s.getTable().getRowType();
      List<PhysicalExpr> filters = new ArrayList<>();
      for (RexNode f : s.filters()) {
        filters.add(translate(f, full));
      }
      ScanRequest request = new ScanRequest(s.projection(), filters, limit, partitions, config);
      return s.providerTable().provider().scan(request);
    }

    private ExecutionPlan project(Project p) {
      ExecutionPlan input = plan(p.getInput());
      RelDataType inType = p.getInput().getRowType();
      List<PhysicalExpr> exprs = new ArrayList<>();
      for (RexNode e : p.getProjects()) {
        exprs.add(translate(e, inType));
      }
      return new ProjectionExec(input, exprs, p.getRowType().getFieldNames());
    }

    private ExecutionPlan values(Values v) {
      Schema schema = TypeMapping.toArrowSchema(v.getRowType());
      if (v.getTuples().isEmpty()) {
        return new EmptyExec(schema, false);
      }
      List<List<Object>> rows = new ArrayList<>();
      for (List<RexLiteral> tuple : v.getTuples()) {
        List<Object> row = new ArrayList<>();
        for (RexLiteral lit : tuple) {
          row.add(javaValue(lit));
        }
        rows.add(row);
      }
      return new ValuesExec(schema, rows);
    }

    // ---- aggregates -----------------------------------------------------------------------

    private ExecutionPlan aggregate(Aggregate agg) {
      if (agg.getGroupType() != Aggregate.Group.SIMPLE) {
        // GROUPING SETS, ROLLUP, CUBE: one plain aggregate keyed by the grouping set too.
        return plan(GroupingSets.expand(agg));
      }
      ExecutionPlan input = plan(agg.getInput());
      List<Integer> keys = agg.getGroupSet().asList();
      List<String> outNames = agg.getRowType().getFieldNames();
      List<PhysicalExpr> groupExprs = new ArrayList<>();
      List<String> groupNames = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        RelDataTypeField key = agg.getInput().getRowType().getFieldList().get(keys.get(i));
        TypeMapping.requireFlat(key.getType(), key.getName(), "GROUP BY or DISTINCT");
        groupExprs.add(column(input, keys.get(i)));
        groupNames.add(outNames.get(i));
      }
      List<AggregateCall> calls = new ArrayList<>();
      // How each logical output column is computed from the physical aggregate's output.
      List<RexNode> post = new ArrayList<>();
      List<RelDataType> physicalTypes = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        RelDataType t = agg.getRowType().getFieldList().get(i).getType();
        post.add(new RexInputRef(i, t));
        physicalTypes.add(t);
      }
      boolean identity = true;
      boolean anyDistinct = false;
      List<org.apache.calcite.rel.core.AggregateCall> logicalCalls = agg.getAggCallList();
      for (int i = 0; i < logicalCalls.size(); i++) {
        org.apache.calcite.rel.core.AggregateCall call = logicalCalls.get(i);
        String name = outNames.get(keys.size() + i);
        SqlKind kind = call.getAggregation().getKind();
        if (kind == SqlKind.LITERAL_AGG) {
          post.add(call.rexList.get(0));
          identity = false;
          continue;
        }
        AggregateFunction fn = aggregateFunction(call);
        if (fn == AggregateFunction.SINGLE_VALUE && !keys.isEmpty()) {
          // A decorrelated scalar subquery groups the inner rows by their correlation values,
          // all of them, before the join keeps those the outer rows use: failing on a group of
          // several rows here could fail a query whose outer rows never reach that group.
          // Such a subquery stays ANY_VALUE until the check can move after the join.
          fn = AggregateFunction.ANY_VALUE;
        }
        List<PhysicalExpr> args = new ArrayList<>();
        for (int a : call.getArgList()) {
          if (kind != SqlKind.COUNT) {
            RelDataTypeField arg = agg.getInput().getRowType().getFieldList().get(a);
            TypeMapping.requireFlat(
                arg.getType(), arg.getName(), call.getAggregation().getName() + "(...)");
          }
          args.add(column(input, a));
        }
        List<Boolean> descending = new ArrayList<>();
        if (fn == AggregateFunction.PERCENTILE_DISC && kind != SqlKind.PERCENTILE_DISC) {
          // approx_percentile(x, f): percentile_disc(f) WITHIN GROUP (ORDER BY x).
          args = new ArrayList<>(List.of(args.get(1), args.get(0)));
          descending.add(false);
        } else if (fn == AggregateFunction.PERCENTILE_CONT || fn == AggregateFunction.PERCENTILE_DISC
            || fn == AggregateFunction.STRING_AGG) {
          // WITHIN GROUP (ORDER BY ...) / string_agg(s, sep ORDER BY ...): the keys follow.
          for (org.apache.calcite.rel.RelFieldCollation key : call.collation.getFieldCollations()) {
            args.add(column(input, key.getFieldIndex()));
            descending.add(key.getDirection().isDescending());
          }
          if (fn != AggregateFunction.STRING_AGG && descending.size() != 1) {
            throw new QueryTypeException(
                call.getAggregation().getName()
                    + " needs WITHIN GROUP (ORDER BY x) with exactly one key, as in "
                    + "percentile_cont(0.5) WITHIN GROUP (ORDER BY x)");
          }
        }
        PhysicalExpr filter = call.filterArg >= 0 ? column(input, call.filterArg) : null;
        AggregateCall physical =
            new AggregateCall(
                fn, args, call.isDistinct(), filter, name, TypeMapping.toArrow(call.getType()),
                descending);
        anyDistinct |= physical.needsRawRows();
        calls.add(physical);
        int physicalIndex = physicalTypes.size();
        physicalTypes.add(call.getType());
        RexNode ref = new RexInputRef(physicalIndex, call.getType());
        if (kind == SqlKind.SUM0) {
          // $SUM0 is SUM that yields 0 instead of NULL for empty input.
          ref =
              rexBuilder.makeCall(
                  SqlStdOperatorTable.COALESCE, ref, rexBuilder.makeZeroLiteral(call.getType()));
          identity = false;
        }
        post.add(ref);
        if (physicalIndex != post.size() - 1) {
          identity = false;
        }
      }
      ExecutionPlan out = aggregatePhases(input, keys, groupExprs, groupNames, calls, anyDistinct);
      if (identity) {
        return out;
      }
      RelDataType physicalRow =
          rexBuilder
              .getTypeFactory()
              .createStructType(physicalTypes, physicalNames(physicalTypes.size()));
      List<PhysicalExpr> exprs = new ArrayList<>();
      for (RexNode e : post) {
        exprs.add(translate(e, physicalRow));
      }
      return new ProjectionExec(out, exprs, outNames);
    }

    private static List<String> physicalNames(int n) {
      List<String> names = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        names.add("$p" + i);
      }
      return names;
    }

    private ExecutionPlan aggregatePhases(
        ExecutionPlan input,
        List<Integer> keys,
        List<PhysicalExpr> groupExprs,
        List<String> groupNames,
        List<AggregateCall> calls,
        boolean anyDistinct) {
      if (input.partitionCount() == 1 || (!keys.isEmpty() && hashedOnSubsetOf(input, keys))) {
        return new HashAggregateExec(input, AggregateMode.SINGLE, groupExprs, groupNames, calls);
      }
      if (anyDistinct) {
        ExecutionPlan exchanged =
            keys.isEmpty()
                ? new CoalescePartitionsExec(input)
                : new RepartitionExec(input, Partitioning.hash(groupExprs, partitions));
        return new HashAggregateExec(
            exchanged, AggregateMode.SINGLE, groupExprs, groupNames, calls);
      }
      ExecutionPlan partial =
          new HashAggregateExec(input, AggregateMode.PARTIAL, groupExprs, groupNames, calls);
      List<PhysicalExpr> finalGroups = new ArrayList<>();
      for (int i = 0; i < groupExprs.size(); i++) {
        finalGroups.add(column(partial, i));
      }
      ExecutionPlan exchanged =
          keys.isEmpty()
              ? new CoalescePartitionsExec(partial)
              : new RepartitionExec(partial, Partitioning.hash(finalGroups, partitions));
      return new HashAggregateExec(exchanged, AggregateMode.FINAL, finalGroups, groupNames, calls);
    }

    private static AggregateFunction aggregateFunction(
        org.apache.calcite.rel.core.AggregateCall call) {
      SqlKind kind = call.getAggregation().getKind();
      return switch (kind) {
        case COUNT -> AggregateFunction.COUNT;
        case SUM, SUM0 -> AggregateFunction.SUM;
        case AVG -> AggregateFunction.AVG;
        case MIN -> AggregateFunction.MIN;
        case MAX -> AggregateFunction.MAX;
        case ANY_VALUE -> AggregateFunction.ANY_VALUE;
        case SINGLE_VALUE -> AggregateFunction.SINGLE_VALUE;
        case STDDEV_SAMP -> AggregateFunction.STDDEV_SAMP;
        case STDDEV_POP -> AggregateFunction.STDDEV_POP;
        case VAR_SAMP -> AggregateFunction.VAR_SAMP;
        case VAR_POP -> AggregateFunction.VAR_POP;
        case PERCENTILE_CONT -> AggregateFunction.PERCENTILE_CONT;
        case PERCENTILE_DISC -> AggregateFunction.PERCENTILE_DISC;
        case LISTAGG, STRING_AGG -> AggregateFunction.STRING_AGG;
        case ARG_MIN -> AggregateFunction.ARG_MIN;
        case ARG_MAX -> AggregateFunction.ARG_MAX;
        case COVAR_POP -> AggregateFunction.COVAR_POP;
        case COVAR_SAMP -> AggregateFunction.COVAR_SAMP;
        case OTHER_FUNCTION -> switch (call.getAggregation().getName().toUpperCase(java.util.Locale.ROOT)) {
          case "MEDIAN" -> AggregateFunction.MEDIAN;
          case "APPROX_PERCENTILE" -> AggregateFunction.PERCENTILE_DISC;
          case "CORR" -> AggregateFunction.CORR;
          default -> throw new QuiverException(
              "Aggregate function " + call.getAggregation().getName() + " is not supported");
        };
        default ->
            throw new QuiverException(
                "Aggregate function " + call.getAggregation().getName() + " is not supported");
      };
    }

    // ---- joins ----------------------------------------------------------------------------

    private ExecutionPlan join(Join j) {
      JoinType type = joinType(j.getJoinType());
      RelNode l = j.getLeft();
      RelNode r = j.getRight();
      int nl = l.getRowType().getFieldCount();
      List<Integer> lk = new ArrayList<>();
      List<Integer> rk = new ArrayList<>();
      List<Boolean> filterNulls = new ArrayList<>();
      List<RexNode> rest = new ArrayList<>();
      RelOptUtil.splitJoinCondition(l, r, j.getCondition(), lk, rk, filterNulls, rest);
      for (int k : lk) {
        RelDataTypeField key = l.getRowType().getFieldList().get(k);
        TypeMapping.requireFlat(key.getType(), key.getName(), "JOIN ON");
      }
      boolean nullEqualsNull = !filterNulls.isEmpty() && filterNulls.stream().noneMatch(b -> b);
      if (!nullEqualsNull && filterNulls.contains(Boolean.FALSE)) {
        // Mixed = and IS NOT DISTINCT FROM keys: hash on the = keys, check the others after.
        List<Integer> lk2 = new ArrayList<>();
        List<Integer> rk2 = new ArrayList<>();
        for (int i = 0; i < lk.size(); i++) {
          if (filterNulls.get(i)) {
            lk2.add(lk.get(i));
            rk2.add(rk.get(i));
          } else {
            rest.add(
                rexBuilder.makeCall(
                    SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
                    rexBuilder.makeInputRef(l, lk.get(i)),
                    new RexInputRef(
                        nl + rk.get(i), r.getRowType().getFieldList().get(rk.get(i)).getType())));
          }
        }
        lk = lk2;
        rk = rk2;
      }
      RexNode residual = rest.isEmpty() ? null : RexUtil.composeConjunction(rexBuilder, rest);
      if (residual != null && residual.isAlwaysTrue()) {
        residual = null;
      }
      RelDataType concat =
          rexBuilder.getTypeFactory().createJoinType(l.getRowType(), r.getRowType());
      ExecutionPlan left = plan(l);
      ExecutionPlan right = plan(r);
      if (lk.isEmpty()) {
        PhysicalExpr filter = residual == null ? null : translate(residual, concat);
        ExecutionPlan nlLeft = single(left);
        ExecutionPlan nlRight =
            type == JoinType.INNER || type == JoinType.RIGHT ? right : single(right);
        return new NestedLoopJoinExec(nlLeft, nlRight, type, filter);
      }
      double lRows = rows(l);
      double rRows = rows(r);
      boolean swappable =
          type == JoinType.INNER
              || type == JoinType.LEFT
              || type == JoinType.RIGHT
              || type == JoinType.FULL;
      if (swappable && lRows > rRows) {
        int nr = r.getRowType().getFieldCount();
        RexNode swappedResidual = residual == null ? null : swapInputs(residual, nl, nr);
        RelDataType swappedConcat =
            rexBuilder.getTypeFactory().createJoinType(r.getRowType(), l.getRowType());
        ExecutionPlan joined =
            hashJoin(
                right,
                left,
                rk,
                lk,
                swap(type),
                swappedResidual,
                swappedConcat,
                rRows,
                false,
                nullEqualsNull);
        List<PhysicalExpr> exprs = new ArrayList<>();
        for (int i = 0; i < nl; i++) {
          exprs.add(column(joined, nr + i));
        }
        for (int i = 0; i < nr; i++) {
          exprs.add(column(joined, i));
        }
        return new ProjectionExec(joined, exprs, j.getRowType().getFieldNames());
      }
      boolean semi = type == JoinType.SEMI || type == JoinType.ANTI;
      // A SEMI/ANTI join hashes the smaller left input and marks its rows as a right input too
      // large to gather streams past.
      boolean semiBuildsLeft = semi && rRows > collectThreshold && lRows < rRows;
      double buildRows = semi && !semiBuildsLeft ? rRows : lRows;
      return hashJoin(
          left, right, lk, rk, type, residual, concat, buildRows, semiBuildsLeft, nullEqualsNull);
    }

    private ExecutionPlan hashJoin(
        ExecutionPlan left,
        ExecutionPlan right,
        List<Integer> lk,
        List<Integer> rk,
        JoinType type,
        RexNode residual,
        RelDataType concat,
        double buildRows,
        boolean semiBuildsLeft,
        boolean nullEqualsNull) {
      PhysicalExpr filter = residual == null ? null : translate(residual, concat);
      boolean leftIsBuild = type != JoinType.SEMI && type != JoinType.ANTI;
      // Collecting the build side is only safe when unmatched build rows need not be emitted (nor,
      // for a SEMI/ANTI join built on the left, matched ones: one process's marks are unknown to
      // the other processes of a distributed run).
      boolean collectSafe =
          !semiBuildsLeft
              && (type == JoinType.INNER
                  || type == JoinType.RIGHT
                  || type == JoinType.SEMI
                  || type == JoinType.ANTI);
      if (collectSafe && (buildRows <= collectThreshold || partitions == 1)) {
        ExecutionPlan l = leftIsBuild ? single(left) : left;
        ExecutionPlan r = leftIsBuild ? right : single(right);
        return new HashJoinExec(
            l,
            r,
            columns(l, lk),
            columns(r, rk),
            type,
            filter,
            PartitionMode.COLLECT_BUILD,
            nullEqualsNull);
      }
      ExecutionPlan l;
      ExecutionPlan r;
      if (partitions == 1) {
        l = single(left);
        r = single(right);
      } else {
        l = hashed(left, lk);
        r = hashed(right, rk);
      }
      return new HashJoinExec(l, r, columns(l, lk), columns(r, rk), type, filter,
          PartitionMode.PARTITIONED, nullEqualsNull, semiBuildsLeft);
    }

    private static JoinType joinType(JoinRelType t) {
      return switch (t) {
        case INNER -> JoinType.INNER;
        case LEFT -> JoinType.LEFT;
        case RIGHT -> JoinType.RIGHT;
        case FULL -> JoinType.FULL;
        case SEMI -> JoinType.SEMI;
        case ANTI -> JoinType.ANTI;
        default -> throw new QuiverException("Join type " + t + " is not supported");
      };
    }

    private static JoinType swap(JoinType t) {
      return switch (t) {
        case LEFT -> JoinType.RIGHT;
        case RIGHT -> JoinType.LEFT;
        default -> t;
      };
    }

    private static RexNode swapInputs(RexNode e, int nl, int nr) {
      return e.accept(
          new RexShuttle() {
            @Override
            public RexNode visitInputRef(RexInputRef ref) {
              int i = ref.getIndex();
              return new RexInputRef(i < nl ? i + nr : i - nl, ref.getType());
            }
          });
    }

    private double rows(RelNode rel) {
      Double d = mq.getRowCount(rel);
      return d == null ? Double.MAX_VALUE : d;
    }

    // ---- sort, limit, union ---------------------------------------------------------------

    private ExecutionPlan sort(Sort s) {
      long offset = s.offset == null ? 0 : longValue(s.offset, "OFFSET");
      long fetch = s.fetch == null ? -1 : longValue(s.fetch, "LIMIT");
      if (s.getCollation().getFieldCollations().isEmpty()) {
        ExecutionPlan input =
            s.getInput() instanceof QuiverScan scan && fetch >= 0
                ? scan(scan, OptionalLong.of(offset + fetch))
                : plan(s.getInput());
        if (offset == 0 && fetch < 0) {
          return input;
        }
        return new LimitExec(single(input), offset, fetch);
      }
      ExecutionPlan input = plan(s.getInput());
      List<SortField> order = sortFields(input, s.getCollation().getFieldCollations());
      long total = fetch < 0 ? -1 : offset + fetch;
      ExecutionPlan sorted;
      if (input.partitionCount() == 1) {
        sorted = new SortExec(input, order, total, false);
      } else {
        sorted = new SortPreservingMergeExec(new SortExec(input, order, total, true), order, total);
      }
      return offset > 0 ? new LimitExec(sorted, offset, fetch) : sorted;
    }

    private List<SortField> sortFields(ExecutionPlan input, List<RelFieldCollation> collations) {
      List<SortField> order = new ArrayList<>();
      for (RelFieldCollation fc : collations) {
        boolean asc = !fc.getDirection().isDescending();
        boolean nullsFirst = fc.nullDirection == RelFieldCollation.NullDirection.FIRST;
        order.add(new SortField(column(input, fc.getFieldIndex()), asc, nullsFirst));
      }
      return order;
    }

    private static long longValue(RexNode node, String what) {
      if (node instanceof RexLiteral lit) {
        Long v = lit.getValueAs(Long.class);
        if (v != null && v >= 0) {
          return v;
        }
      }
      throw new QuiverException(what + " must be a non-negative integer literal, got " + node);
    }

    private ExecutionPlan union(Union u) {
      List<ExecutionPlan> inputs = new ArrayList<>();
      for (RelNode in : u.getInputs()) {
        inputs.add(plan(in));
      }
      ExecutionPlan all = new UnionExec(inputs);
      if (u.all) {
        return all;
      }
      List<Integer> keys = new ArrayList<>();
      List<PhysicalExpr> groups = new ArrayList<>();
      for (int i = 0; i < u.getRowType().getFieldCount(); i++) {
        keys.add(i);
        groups.add(column(all, i));
      }
      return aggregatePhases(all, keys, groups, u.getRowType().getFieldNames(), List.of(), false);
    }

    // ---- windows --------------------------------------------------------------------------

    private ExecutionPlan window(Window w) {
      ExecutionPlan cur = plan(w.getInput());
      int inCount = w.getInput().getRowType().getFieldCount();
      List<String> outNames = w.getRowType().getFieldNames();
      int out = inCount;
      for (Window.Group group : w.groups) {
        List<Integer> keys = group.keys.asList();
        for (int k : keys) {
          RelDataTypeField key = w.getInput().getRowType().getFieldList().get(k);
          TypeMapping.requireFlat(key.getType(), key.getName(), "PARTITION BY");
        }
        List<PhysicalExpr> partitionBy = columns(cur, keys);
        ExecutionPlan exchanged;
        if (keys.isEmpty()) {
          exchanged = single(cur);
        } else if (cur.partitionCount() == 1 || hashedOnSubsetOf(cur, keys)) {
          exchanged = cur;
        } else {
          exchanged = new RepartitionExec(cur, Partitioning.hash(partitionBy, partitions));
        }
        List<SortField> orderBy = sortFields(exchanged, group.orderKeys.getFieldCollations());
        List<SortField> sortKeys = new ArrayList<>();
        for (PhysicalExpr k : partitionBy) {
          sortKeys.add(new SortField(k, true, false));
        }
        sortKeys.addAll(orderBy);
        ExecutionPlan sorted =
            sortKeys.isEmpty() ? exchanged : new SortExec(exchanged, sortKeys, -1, true);
        SqlTypeName orderType =
            orderBy.size() == 1
                ? w.getInput()
                    .getRowType()
                    .getFieldList()
                    .get(group.orderKeys.getFieldCollations().get(0).getFieldIndex())
                    .getType()
                    .getSqlTypeName()
                : null;
        WindowFrame frame =
            new WindowFrame(
                group.isRows,
                bound(group.lowerBound, w, inCount, orderType),
                bound(group.upperBound, w, inCount, orderType));
        List<WindowCall> calls = new ArrayList<>();
        for (Window.RexWinAggCall call : group.aggCalls) {
          List<PhysicalExpr> args = new ArrayList<>();
          for (RexNode operand : call.getOperands()) {
            args.add(windowOperand(operand, w, inCount, sorted));
          }
          WindowFunction function = windowFunction(call);
          TypeMapping.requireFlat(
              call.getType(), call.getOperator().getName() + "(...)", "OVER (a window function)");
          ArrowType outType = TypeMapping.toArrow(call.getType());
          if ((function == WindowFunction.LAG || function == WindowFunction.LEAD)
              && args.size() == 3) {
            // LAG(bigint_column, 1, -1): the value and its default meet in one column of the
            // call's type (the INTEGER literal default would not fit a BIGINT column).
            for (int a : new int[] {0, 2}) {
              if (!args.get(a).dataType().equals(outType)) {
                args.set(a, new CastExpr(args.get(a), outType));
              }
            }
          }
          calls.add(
              new WindowCall(
                  function,
                  args,
                  partitionBy,
                  orderBy,
                  frame,
                  outNames.get(out++),
                  TypeMapping.toArrow(call.getType())));
        }
        cur = new WindowExec(sorted, calls);
      }
      return cur;
    }

    private PhysicalExpr windowOperand(
        RexNode operand, Window w, int inCount, ExecutionPlan input) {
      if (operand instanceof RexInputRef ref && ref.getIndex() < inCount) {
        return column(input, ref.getIndex());
      }
      if (operand instanceof RexInputRef ref) {
        return translate(w.constants.get(ref.getIndex() - inCount), w.getInput().getRowType());
      }
      return translate(operand, w.getInput().getRowType());
    }

    private static WindowFrame.Bound bound(
        RexWindowBound b, Window w, int inCount, SqlTypeName orderType) {
      if (b.isUnboundedPreceding()) {
        return new WindowFrame.Bound(WindowFrame.BoundKind.UNBOUNDED_PRECEDING, 0);
      }
      if (b.isUnboundedFollowing()) {
        return new WindowFrame.Bound(WindowFrame.BoundKind.UNBOUNDED_FOLLOWING, 0);
      }
      if (b.isCurrentRow()) {
        return new WindowFrame.Bound(WindowFrame.BoundKind.CURRENT_ROW, 0);
      }
      RexNode offset = b.getOffset();
      RexLiteral lit =
          offset instanceof RexInputRef ref && ref.getIndex() >= inCount
              ? w.constants.get(ref.getIndex() - inCount)
              : offset instanceof RexLiteral l ? l : null;
      if (lit == null || lit.getValueAs(Long.class) == null) {
        throw new QuiverException("Window frame offsets must be integer literals, got " + offset);
      }
      long v = lit.getValueAs(Long.class);
      if (lit.getType().getSqlTypeName().getFamily()
          == SqlTypeFamily.INTERVAL_DAY_TIME) {
        // Calcite gives day-time intervals in milliseconds; the window compares order keys in
        // their own unit: days for DATE, microseconds for TIMESTAMP.
        if (orderType == SqlTypeName.DATE) {
          v = v / 86_400_000L;
        } else if (orderType == SqlTypeName.TIMESTAMP) {
          v = v * 1000L;
        } else {
          throw new QuiverException(
              "RANGE frames with an interval offset need one DATE or TIMESTAMP ORDER BY key");
        }
      } else if (lit.getType().getSqlTypeName().getFamily()
          == SqlTypeFamily.INTERVAL_YEAR_MONTH) {
        throw new QuiverException(
            "RANGE frames with a year-month interval offset are not supported; use days");
      }
      return new WindowFrame.Bound(
          b.isPreceding() ? WindowFrame.BoundKind.PRECEDING : WindowFrame.BoundKind.FOLLOWING, v);
    }

    private static WindowFunction windowFunction(Window.RexWinAggCall call) {
      SqlKind kind = call.getOperator().getKind();
      return switch (kind) {
        case ROW_NUMBER -> WindowFunction.ROW_NUMBER;
        case RANK -> WindowFunction.RANK;
        case DENSE_RANK -> WindowFunction.DENSE_RANK;
        case PERCENT_RANK -> WindowFunction.PERCENT_RANK;
        case CUME_DIST -> WindowFunction.CUME_DIST;
        case NTILE -> WindowFunction.NTILE;
        case LAG -> WindowFunction.LAG;
        case LEAD -> WindowFunction.LEAD;
        case FIRST_VALUE -> WindowFunction.FIRST_VALUE;
        case LAST_VALUE -> WindowFunction.LAST_VALUE;
        case COUNT -> WindowFunction.COUNT;
        case SUM, SUM0 -> WindowFunction.SUM;
        case AVG -> WindowFunction.AVG;
        case MIN -> WindowFunction.MIN;
        case MAX -> WindowFunction.MAX;
        default ->
            throw new QuiverException(
                "Window function " + call.getOperator().getName() + " is not supported");
      };
    }

    // ---- helpers --------------------------------------------------------------------------

    private static ColumnExpr column(ExecutionPlan plan, int index) {
      return ColumnExpr.of(index, plan.schema().getFields().get(index));
    }

    private static List<PhysicalExpr> columns(ExecutionPlan plan, List<Integer> indices) {
      List<PhysicalExpr> out = new ArrayList<>();
      for (int i : indices) {
        out.add(column(plan, i));
      }
      return out;
    }

    private static ExecutionPlan single(ExecutionPlan plan) {
      return plan.partitionCount() > 1 ? new CoalescePartitionsExec(plan) : plan;
    }

    /** Hash-partitions {@code plan} on exactly {@code keys} (in order), unless it already is. */
    private ExecutionPlan hashed(ExecutionPlan plan, List<Integer> keys) {
      Partitioning p = plan.outputPartitioning();
      if (p.kind() == Partitioning.Kind.HASH
          && p.partitionCount() == partitions
          && indices(p.hashExprs()).equals(keys)) {
        return plan;
      }
      return new RepartitionExec(plan, Partitioning.hash(columns(plan, keys), partitions));
    }

    /** True if equal values of {@code keys} are guaranteed to be in the same partition. */
    private static boolean hashedOnSubsetOf(ExecutionPlan plan, List<Integer> keys) {
      Partitioning p = plan.outputPartitioning();
      if (p.kind() != Partitioning.Kind.HASH || p.hashExprs().isEmpty()) {
        return false;
      }
      List<Integer> idx = indices(p.hashExprs());
      return idx != null && new HashSet<>(keys).containsAll(idx);
    }

    private static List<Integer> indices(List<PhysicalExpr> exprs) {
      List<Integer> out = new ArrayList<>();
      for (PhysicalExpr e : exprs) {
        if (!(e instanceof ColumnExpr c)) {
          return null;
        }
        out.add(c.index());
      }
      return out;
    }

    private static Object javaValue(RexLiteral lit) {
      if (lit.isNull()) {
        return null;
      }
      return switch (lit.getType().getSqlTypeName()) {
        case TINYINT, SMALLINT, INTEGER, BIGINT -> lit.getValueAs(Long.class);
        case DECIMAL -> lit.getValueAs(BigDecimal.class).setScale(lit.getType().getScale());
        case FLOAT, REAL, DOUBLE -> lit.getValueAs(Double.class);
        case CHAR, VARCHAR -> lit.getValueAs(String.class);
        case BOOLEAN -> lit.getValueAs(Boolean.class);
        case DATE -> LocalDate.ofEpochDay(lit.getValueAs(DateString.class).getDaysSinceEpoch());
        // TimestampString's text keeps every fractional digit; its millis would drop micros.
        case TIMESTAMP ->
            LocalDateTime.parse(
                lit.getValueAs(TimestampString.class).toString().replace(' ', 'T'));
        default ->
            throw new QuiverException(
                "Literal " + lit + " of type " + lit.getType() + " is not supported in VALUES");
      };
    }
  }
}
