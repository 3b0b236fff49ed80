package dev.quiver.binding.planner;

import static dev.quiver.binding.planner.PhysicalPlans.column;
import static dev.quiver.binding.planner.PhysicalPlans.columns;
import static dev.quiver.binding.planner.PhysicalPlans.hashedOnSubsetOf;
import static dev.quiver.binding.planner.PhysicalPlans.single;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.exchange.RepartitionExec;
import dev.quiver.binding.physical.expr.CastExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.sort.SortExec;
import dev.quiver.binding.physical.window.WindowCall;
import dev.quiver.binding.physical.window.WindowExec;
import dev.quiver.binding.physical.window.WindowFrame;
import dev.quiver.binding.physical.window.WindowFunction;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexWindowBound;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Plans a {@code Window}: per group of calls sharing a window, the input is hash-partitioned on the
 * PARTITION BY keys (gathered without keys), sorted by those keys and the ORDER BY, and a {@code
 * WindowExec} computes the calls over their frame.
 */
final class WindowPlanner {
  private final PlanBuilder builder;
  private final int partitions;

  WindowPlanner(PlanBuilder builder) {
    this.builder = builder;
    this.partitions = builder.partitions;
  }

  /** Plans {@code w}: one {@code WindowExec} per window group over its own exchange and sort. */
  ExecutionPlan plan(Window w) {
    ExecutionPlan cur = builder.plan(w.getInput());
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
      List<SortField> orderBy = builder.sortFields(exchanged, group.orderKeys.getFieldCollations());
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

  private PhysicalExpr windowOperand(RexNode operand, Window w, int inCount, ExecutionPlan input) {
    if (operand instanceof RexInputRef ref && ref.getIndex() < inCount) {
      return column(input, ref.getIndex());
    }
    if (operand instanceof RexInputRef ref) {
      return builder.translate(
          w.constants.get(ref.getIndex() - inCount), w.getInput().getRowType());
    }
    return builder.translate(operand, w.getInput().getRowType());
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
    if (lit.getType().getSqlTypeName().getFamily() == SqlTypeFamily.INTERVAL_DAY_TIME) {
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
    } else if (lit.getType().getSqlTypeName().getFamily() == SqlTypeFamily.INTERVAL_YEAR_MONTH) {
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
}
