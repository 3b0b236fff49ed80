package dev.quiver.decorators;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.dataframe.Expr;
import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.settings.SessionConfig;
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

  /** The SQL the frame came from, or null for frames built with DataFrame calls. */
  private final String sql;

  private volatile JobProgress progress;

  private DistributedDataFrame(DataFrame inner, DistributedSessionContext session, String sql) {
    this.inner = inner;
    this.session = session;
    this.sql = sql;
  }

  /** Decorates {@code frame} of {@code session} (unless it already is). */
  public static DataFrame wrap(DataFrame frame, DistributedSessionContext session) {
    return wrap(frame, session, null);
  }

  /** Decorates {@code frame}, made from {@code sql} (null if not), of {@code session}. */
  public static DataFrame wrap(DataFrame frame, DistributedSessionContext session, String sql) {
    return frame instanceof DistributedDataFrame
        ? frame
        : new DistributedDataFrame(frame, session, sql);
  }

  /**
   * The progress of the job this frame's latest (or running) execution submitted to the cluster:
   * empty before one, and for queries run in this process. Safe to call from another thread while
   * {@code collect()} or another execution runs, e.g. to draw a progress bar.
   */
  public Optional<JobProgress> progress() {
    return Optional.ofNullable(progress);
  }

  /** {@link #progress()} of {@code frame} if it is distributed, else empty. */
  public static Optional<JobProgress> progressOf(DataFrame frame) {
    return frame instanceof DistributedDataFrame d ? d.progress() : Optional.empty();
  }

  /** Runs one execution of the frame with its query scope open (the planner reads it). */
  private <T> T running(java.util.function.Supplier<T> action) {
    progress = null;
    return new QueryScope(text(), session.user(), p -> progress = p).run(action);
  }

  private void running(Runnable action) {
    running(
        () -> {
          action.run();
          return null;
        });
  }

  /** The query's text for the scheduler: the SQL, or the first line of the logical plan. */
  private String text() {
    if (sql != null) {
      return sql;
    }
    String plan = inner.logicalPlan().explain().strip();
    int newline = plan.indexOf('\n');
    return "DataFrame: " + (newline < 0 ? plan : plan.substring(0, newline));
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
    return running(inner::collect);
  }

  @Override
  public ArrowReader executeStream() {
    return running(inner::executeStream);
  }

  @Override
  public long count() {
    return running(inner::count);
  }

  @Override
  public void show() {
    running(() -> inner.show());
  }

  @Override
  public void show(int maxRows) {
    running(() -> inner.show(maxRows));
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
    return analyze ? running(() -> inner.explain(true)) : inner.explain(false);
  }

  /** The query's stage graph as Graphviz DOT, or empty when the query runs in this process. */
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
    running(() -> inner.writeParquet(path));
  }

  @Override
  public void writeCsv(String path) {
    running(() -> inner.writeCsv(path));
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
