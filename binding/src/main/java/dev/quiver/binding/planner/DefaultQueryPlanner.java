package dev.quiver.binding.planner;

import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.logical.RelLogicalPlan;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.operator.ProjectionExec;
import dev.quiver.binding.settings.BindingSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The binding's planner: turns an optimized logical plan into a parallel physical plan in the style
 * of DataFusion (partial/final aggregates around a hash repartition, partitioned or collect-build
 * hash joins, per-partition sorts merged in order), then applies the installed physical optimizer
 * rules. {@link PlanBuilder} plans one query, with {@link AggregatePlanner}, {@link JoinPlanner}
 * and {@link WindowPlanner} for the operators that need exchanges.
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
    ExecutionPlan physical = new PlanBuilder(rel, context.config()).plan(rel.rel());
    for (PhysicalOptimizerRule rule : context.physicalOptimizerRules()) {
      physical = rule.optimize(physical, context.config());
      if (physical == null) {
        throw new QuiverException("Physical optimizer rule '" + rule.name() + "' returned no plan");
      }
    }
    physical = SharedSubplans.finish(physical);
    return context.finish(
        withQuerySchema(physical, TypeMapping.toArrowSchema(rel.rel().getRowType())));
  }

  /**
   * Labels the plan's output with the query's own column names and nullability, which operators do
   * not always derive as Calcite does (an aggregate over a shuffle calls its sums nullable), so
   * that the batches a query returns carry exactly its {@code DataFrame.schema()}. Only the labels
   * change: vectors are moved, not copied.
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
}
