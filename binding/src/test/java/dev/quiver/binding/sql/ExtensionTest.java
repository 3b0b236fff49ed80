package dev.quiver.binding.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quiver.binding.Extension;
import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.logical.LogicalPlan;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.PhysicalOptimizerRule;
import dev.quiver.binding.physical.exchange.CoalescePartitionsExec;
import dev.quiver.binding.planner.PlanningContext;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.SessionConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ExtensionTest {
  /** Wraps the current planner and counts the plans it made. */
  static final class CountingPlanner implements QueryPlanner {
    final QueryPlanner inner;
    final AtomicInteger calls = new AtomicInteger();

    CountingPlanner(QueryPlanner inner) {
      this.inner = inner;
    }

    @Override
    public ExecutionPlan createPhysicalPlan(LogicalPlan plan, PlanningContext context) {
      calls.incrementAndGet();
      return inner.createPhysicalPlan(plan, context);
    }
  }

  /** Puts every plan under a single-partition merge, and counts its runs. */
  static final class MergeRule implements PhysicalOptimizerRule {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public String name() {
      return "merge-all";
    }

    @Override
    public ExecutionPlan optimize(ExecutionPlan plan, SessionConfig config) {
      calls.incrementAndGet();
      return plan instanceof CoalescePartitionsExec ? plan : new CoalescePartitionsExec(plan);
    }
  }

  @Test
  void extensionPlannerWrapsTheDefaultAndItsRulesRun() {
    MergeRule rule = new MergeRule();
    CountingPlanner[] installed = new CountingPlanner[1];
    TableProvider nation = new StatsTable(25, "n_nationkey BIGINT", "n_name VARCHAR");
    Extension ext =
        new Extension() {
          @Override
          public QueryPlanner queryPlanner(QueryPlanner current) {
            installed[0] = new CountingPlanner(current);
            return installed[0];
          }

          @Override
          public List<PhysicalOptimizerRule> physicalOptimizerRules() {
            return List.of(rule);
          }

          @Override
          public Map<String, TableProvider> tables() {
            return Map.of("nation", nation);
          }
        };
    try (SessionContext ctx = new SessionContext(new SessionConfig().withTargetPartitions(3))) {
      QueryPlanner before = ctx.queryPlanner();
      ctx.withExtensions(ext);
      assertThat(ctx.queryPlanner()).isSameAs(installed[0]);
      assertThat(installed[0].inner).isSameAs(before);
      assertThat(ctx.tableNames()).contains("nation");

      String explain = ctx.sql("select n_name from nation where n_nationkey > 3").explain();

      assertThat(installed[0].calls).hasValue(1);
      assertThat(rule.calls).hasValue(1);
      assertThat(explain.lines().filter(l -> l.startsWith("CoalescePartitionsExec"))).hasSize(1);
    }
  }
}
