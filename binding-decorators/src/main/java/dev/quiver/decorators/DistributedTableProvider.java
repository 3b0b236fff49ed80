package dev.quiver.decorators;

import dev.quiver.binding.datasource.ScanRequest;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.datasource.TableStatistics;
import dev.quiver.binding.physical.ExecutionPlan;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A table provider checked, when it is registered, to be rebuildable on the cluster's executors;
 * its scans are the wrapped provider's.
 */
public final class DistributedTableProvider implements TableProvider {
  private final String name;
  private final TableProvider inner;
  private final Distribution distribution;

  /**
   * Wraps {@code inner}, registered as {@code name}.
   *
   * @throws dev.quiver.binding.errors.QuiverException naming the table when executors cannot
   *     rebuild it
   */
  public DistributedTableProvider(String name, TableProvider inner, Distribution distribution) {
    this.name = name;
    this.inner = inner;
    this.distribution = distribution;
    distribution.checkRebuildable(name, inner);
  }

  /** The table's name. */
  public String name() {
    return name;
  }

  /** The wrapped provider. */
  public TableProvider inner() {
    return inner;
  }

  /** How many tasks a scan of this table runs as when {@code targetTasks} are wanted. */
  public int scanTasks(int targetTasks) {
    return distribution.scanTasks(inner, targetTasks);
  }

  @Override
  public Schema schema() {
    return inner.schema();
  }

  @Override
  public ExecutionPlan scan(ScanRequest request) {
    return inner.scan(request);
  }

  @Override
  public TableStatistics statistics() {
    return inner.statistics();
  }
}
