package dev.quiver.binding.planner;

import static dev.quiver.binding.planner.PhysicalPlans.column;
import static dev.quiver.binding.planner.PhysicalPlans.hashedOnSubsetOf;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.aggregate.AggregateCall;
import dev.quiver.binding.physical.aggregate.AggregateFunction;
import dev.quiver.binding.physical.aggregate.AggregateMode;
import dev.quiver.binding.physical.aggregate.HashAggregateExec;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.operator.ProjectionExec;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;

/**
 * Plans an {@code Aggregate}: the logical calls become physical {@link AggregateCall}s, placed in
 * partial and final {@code HashAggregateExec}s around a hash repartition, with a projection after
 * them where the logical output differs ($SUM0, literal aggregates, reordered columns).
 */
final class AggregatePlanner {
  private final PlanBuilder builder;
  private final RexBuilder rexBuilder;
  private final int partitions;

  AggregatePlanner(PlanBuilder builder) {
    this.builder = builder;
    this.rexBuilder = builder.rexBuilder;
    this.partitions = builder.partitions;
  }

  /** Plans {@code agg}, GROUPING SETS first expanded into one plain aggregate. */
  ExecutionPlan plan(Aggregate agg) {
    if (agg.getGroupType() != Aggregate.Group.SIMPLE) {
      // GROUPING SETS, ROLLUP, CUBE: one plain aggregate keyed by the grouping set too.
      return builder.plan(GroupingSets.expand(agg));
    }
    ExecutionPlan input = builder.plan(agg.getInput());
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
      } else if (fn == AggregateFunction.PERCENTILE_CONT
          || fn == AggregateFunction.PERCENTILE_DISC
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
              fn,
              args,
              call.isDistinct(),
              filter,
              name,
              TypeMapping.toArrow(call.getType()),
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
    ExecutionPlan out = phases(input, keys, groupExprs, groupNames, calls, anyDistinct);
    if (identity) {
      return out;
    }
    RelDataType physicalRow =
        rexBuilder
            .getTypeFactory()
            .createStructType(physicalTypes, physicalNames(physicalTypes.size()));
    List<PhysicalExpr> exprs = new ArrayList<>();
    for (RexNode e : post) {
      exprs.add(builder.translate(e, physicalRow));
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

  /**
   * The aggregate of {@code input} by {@code keys}: one SINGLE aggregate when the input is one
   * partition or already hash-partitioned on a subset of the keys, or when a DISTINCT call needs
   * every row in one place (after an exchange); otherwise PARTIAL, a hash repartition (a gather
   * without keys) and FINAL.
   */
  ExecutionPlan phases(
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
      return new HashAggregateExec(exchanged, AggregateMode.SINGLE, groupExprs, groupNames, calls);
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
      case OTHER_FUNCTION ->
          switch (call.getAggregation().getName().toUpperCase(java.util.Locale.ROOT)) {
            case "MEDIAN" -> AggregateFunction.MEDIAN;
            case "APPROX_PERCENTILE" -> AggregateFunction.PERCENTILE_DISC;
            case "CORR" -> AggregateFunction.CORR;
            default ->
                throw new QuiverException(
                    "Aggregate function " + call.getAggregation().getName() + " is not supported");
          };
      default ->
          throw new QuiverException(
              "Aggregate function " + call.getAggregation().getName() + " is not supported");
    };
  }
}
