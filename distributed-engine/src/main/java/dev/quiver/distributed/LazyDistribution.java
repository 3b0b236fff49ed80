package dev.quiver.distributed;

import dev.quiver.binding.Extension;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.decorators.Distribution;
import java.util.Optional;

/** A distribution that starts its cluster lifecycle when a session first needs it. */
final class LazyDistribution implements Distribution {
  private final ClusterLifecycle lifecycle;
  private ClusterDistribution started;

  LazyDistribution(ClusterLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  private synchronized ClusterDistribution get() {
    if (started == null) {
      started = new ClusterDistribution(lifecycle.start());
    }
    return started;
  }

  @Override
  public Extension extension() {
    return get().extension();
  }

  @Override
  public void checkRebuildable(String tableName, TableProvider provider) {
    get().checkRebuildable(tableName, provider);
  }

  @Override
  public int scanTasks(TableProvider provider, int targetTasks) {
    return get().scanTasks(provider, targetTasks);
  }

  @Override
  public Optional<String> stageGraphDot(ExecutionPlan physicalPlan) {
    return get().stageGraphDot(physicalPlan);
  }

  @Override
  public String describe() {
    return get().describe();
  }
}
