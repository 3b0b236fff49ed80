package dev.quiver.decorators;

import dev.quiver.binding.Extension;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.physical.ExecutionPlan;
import java.util.Optional;

/**
 * What a distributed engine supplies to the decorators: the extension that makes a session's
 * queries run distributed, and the checks and renderings the decorators expose.
 */
public interface Distribution {
  /** The extension installed into every decorated session (its planner cuts plans into stages). */
  Extension extension();

  /**
   * Checks that the cluster's executors can rebuild what {@code provider}'s scans produce; throws a
   * {@code QuiverException} naming the table and the reason when they cannot.
   */
  void checkRebuildable(String tableName, TableProvider provider);

  /** How many tasks a scan of {@code provider} would run as, for {@code targetTasks} wanted. */
  int scanTasks(TableProvider provider, int targetTasks);

  /** A Graphviz DOT rendering of the stage graph of a planned query, if it is distributed. */
  Optional<String> stageGraphDot(ExecutionPlan physicalPlan);

  /** Where queries run, for messages (e.g. "cluster at 127.0.0.1:50050"). */
  String describe();
}
