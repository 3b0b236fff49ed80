package dev.quiver.decorators;

import dev.quiver.binding.DataFrame;
import dev.quiver.binding.Expr;
import dev.quiver.binding.JoinType;
import dev.quiver.binding.LogicalPlan;
import dev.quiver.binding.PlanningContext;
import dev.quiver.binding.SessionConfig;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@link DataFrame} of a {@link DistributedSessionContext}. Its queries already run distributed
 * (the session's planner cuts them into stages); this decorator keeps every derived frame
 * decorated, unwraps frames passed back into the binding, and adds the stage graph rendering.
 */
public final class DistributedDataFrame implements DataFrame {
  private final DataFrame inner;
  private final DistributedSessionContext session;

  private DistributedDataFrame(DataFrame inner, DistributedSessionContext session) {
    this.inner = inner;
    this.session = session;
  }

  /** Decorates {@code frame} of {@code session} (unless it already is). */
  public static DataFrame wrap(DataFrame frame, DistributedSessionContext session) {
    return frame instanceof DistributedDataFrame ? frame : new DistributedDataFrame(frame, session);
  }

  /** The binding's frame underneath (for passing back into the binding). */
  public static DataFrame unwrap(DataFrame frame) {
    return frame instanceof DistributedDataFrame d ? d.inner : frame;
  }

  private DataFrame wrap(DataFrame frame) {
    return wrap(frame, session);
  }

  @Override
  public DataFrame select(Expr... exprs) {
    return wrap(inner.select(exprs));
  }

  @Override
  public DataFrame select(String... columns) {
    return wrap(inner.select(columns));
  }

  @Override
  public DataFrame filter(Expr predicate) {
    return wrap(inner.filter(predicate));
  }

  @Override
  public DataFrame aggregate(List<Expr> groupBy, List<Expr> aggregates) {
    return wrap(inner.aggregate(groupBy, aggregates));
  }

  @Override
  public DataFrame join(
      DataFrame right, JoinType type, List<String> leftColumns, List<String> rightColumns) {
    return wrap(inner.join(unwrap(right), type, leftColumns, rightColumns));
  }

  @Override
  public DataFrame join(DataFrame right, JoinType type, Expr on) {
    return wrap(inner.join(unwrap(right), type, on));
  }

  @Override
  public DataFrame sort(Expr... keys) {
    return wrap(inner.sort(keys));
  }

  @Override
  public DataFrame limit(long fetch) {
    return wrap(inner.limit(fetch));
  }

  @Override
  public DataFrame limit(long offset, long fetch) {
    return wrap(inner.limit(offset, fetch));
  }

  @Override
  public DataFrame union(DataFrame other) {
    return wrap(inner.union(unwrap(other)));
  }

  @Override
  public DataFrame distinct() {
    return wrap(inner.distinct());
  }

  @Override
  public List<VectorSchemaRoot> collect() {
    return inner.collect();
  }

  @Override
  public ArrowReader executeStream() {
    return inner.executeStream();
  }

  @Override
  public long count() {
    return inner.count();
  }

  @Override
  public void show() {
    inner.show();
  }

  @Override
  public void show(int maxRows) {
    inner.show(maxRows);
  }

  @Override
  public Schema schema() {
    return inner.schema();
  }

  @Override
  public String explain() {
    return inner.explain();
  }

  @Override
  public String explain(boolean analyze) {
    return inner.explain(analyze);
  }

  /**
   * The query's stage graph as Graphviz DOT, or empty when the query has nothing to distribute.
   */
  public Optional<String> explainDot() {
    SessionConfig config = session.config().copy();
    ExecutionPlan physical =
        session
            .queryPlanner()
            .createPhysicalPlan(
                inner.logicalPlan(),
                new PlanningContext() {
                  @Override
                  public SessionConfig config() {
                    return config;
                  }

                  @Override
                  public List<PhysicalOptimizerRule> physicalOptimizerRules() {
                    return List.of();
                  }
                });
    return session.distribution().stageGraphDot(physical);
  }

  @Override
  public void writeParquet(String path) {
    inner.writeParquet(path);
  }

  @Override
  public void writeCsv(String path) {
    inner.writeCsv(path);
  }

  @Override
  public LogicalPlan logicalPlan() {
    return inner.logicalPlan();
  }

  @Override
  public String toString() {
    return "DistributedDataFrame(" + inner + ")";
  }
}
