package dev.quiver.binding.physical;

import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A node of a physical plan. Nodes are immutable and inspectable; a planner outside the binding can
 * rebuild a tree with {@link #withNewChildren}. {@link #execute} may be called once per output
 * partition, from different threads.
 */
public interface ExecutionPlan {
  /** Operator name, e.g. {@code HashJoinExec}. */
  String name();

  /** Output schema. */
  Schema schema();

  /** How output rows are spread over partitions; its count is how many partitions execute takes. */
  Partitioning outputPartitioning();

  /** Input nodes, in order. */
  List<ExecutionPlan> children();

  /** Returns a copy of this node over new children (same count, compatible schemas). */
  ExecutionPlan withNewChildren(List<ExecutionPlan> children);

  /** Starts producing output partition {@code partition}. */
  BatchStream execute(int partition, TaskContext context);

  /** The table a scan reads, as the query named it; empty for other operators (plans show it). */
  default String tableName() {
    return "";
  }

  /** One-line description of the node's parameters, for EXPLAIN. */
  String displayDetails();

  /** Counters accumulated by this node's executions. */
  OperatorMetrics metrics();

  /** Number of output partitions. */
  default int partitionCount() {
    return outputPartitioning().partitionCount();
  }
}
