package dev.quiver.distributed.planner;

import dev.quiver.binding.Extension;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.SessionConfig;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A session of 4 partitions over tables t(k, v) and u(k, w) whose joins shuffle both sides, as for
 * tables too large to broadcast, keeping the physical plan of the last query it planned.
 */
final class PlannedQueries implements AutoCloseable {
  final SessionContext ctx;
  private final AtomicReference<ExecutionPlan> captured = new AtomicReference<>();

  PlannedQueries() {
    this(null);
  }

  /**
   * As {@link #PlannedQueries()}, but with t and u written as Parquet files into {@code dir} (null:
   * in-memory tables).
   */
  PlannedQueries(Path dir) {
    ctx = new SessionContext(new SessionConfig().withTargetPartitions(4));
    ctx.withExtensions(
        new Extension() {
          @Override
          public QueryPlanner queryPlanner(QueryPlanner current) {
            return (plan, context) -> {
              ExecutionPlan p = current.createPhysicalPlan(plan, context);
              captured.set(p);
              return p;
            };
          }
        });
    table(dir, "t", "SELECT x AS k, x * 2 AS v FROM (VALUES (1), (2), (3), (4)) AS s(x)");
    table(dir, "u", "SELECT x AS k, x * 3 AS w FROM (VALUES (1), (2), (3)) AS s(x)");
    ctx.sql("SET quiver.optimizer.hash_join_collect_build_threshold_rows = 0");
  }

  private void table(Path dir, String name, String query) {
    if (dir == null) {
      ctx.sql("CREATE TABLE " + name + " AS " + query);
      return;
    }
    Path file = dir.resolve(name + ".parquet");
    // A row group per row: the scan splits into partitions as a large file's would.
    ctx.sql("COPY (" + query + ") TO '" + file + "' (FORMAT PARQUET, ROW_GROUP_SIZE 1)");
    ctx.registerParquet(name, file.toString());
  }

  /** The physical plan of the last query planned. */
  ExecutionPlan last() {
    return captured.get();
  }

  /** The stages of {@code sql}'s plan. */
  StageGraph stages(String sql) {
    ctx.sql(sql).explain();
    return StagePlanner.plan(last());
  }

  @Override
  public void close() {
    ctx.close();
  }
}
