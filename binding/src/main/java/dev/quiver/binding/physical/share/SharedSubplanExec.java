package dev.quiver.binding.physical.share;

import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.OperatorMetrics;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A subplan that {@code readers} parents of one plan read (the plan is then a DAG: this node is the
 * child of each). Each partition of the input runs once per execution, started by whichever reader
 * asks first; every reader gets every batch of the partition, in order ({@link SharedPartition}). A
 * reader never waits for another, so sharing cannot deadlock a plan that ran with a copy per
 * reader: a reader that is ahead pulls the input, one behind reads what was kept.
 *
 * <p>Unlike other operators, each partition is executed once per reader, so this node does not
 * claim its partitions in the {@link TaskContext}; it counts its readers instead and refuses one
 * more than planned.
 */
public final class SharedSubplanExec implements ExecutionPlan {
  private final ExecutionPlan input;
  private final int readers;
  private final int id;
  private final OperatorMetrics metrics = new OperatorMetrics();
  private final Map<TaskContext, SharedPartition[]> executions = new ConcurrentHashMap<>();

  /**
   * Shares {@code input} among {@code readers} parents; {@code id} names it in plans, where its
   * later readers show only a reference to it.
   */
  public SharedSubplanExec(ExecutionPlan input, int readers, int id) {
    if (readers < 2) {
      throw new IllegalArgumentException("a shared subplan needs at least 2 readers: " + readers);
    }
    this.input = input;
    this.readers = readers;
    this.id = id;
  }

  /** The shared input. */
  public ExecutionPlan input() {
    return input;
  }

  /** How many parents read this node. */
  public int readers() {
    return readers;
  }

  /** The number plans show for this node. */
  public int id() {
    return id;
  }

  @Override
  public String name() {
    return "SharedSubplanExec";
  }

  @Override
  public Schema schema() {
    return input.schema();
  }

  @Override
  public Partitioning outputPartitioning() {
    return input.outputPartitioning();
  }

  @Override
  public List<ExecutionPlan> children() {
    return List.of(input);
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new SharedSubplanExec(children.get(0), readers, id);
  }

  @Override
  public BatchStream execute(int partition, TaskContext context) {
    if (partition < 0 || partition >= partitionCount()) {
      throw new IllegalArgumentException(
          name() + " has " + partitionCount() + " partitions; asked for " + partition);
    }
    context.checkCancelled();
    SharedPartition[] partitions =
        executions.computeIfAbsent(
            context,
            c -> {
              SharedPartition[] created = new SharedPartition[partitionCount()];
              c.registerCleanup(() -> release(c));
              return created;
            });
    SharedPartition shared;
    synchronized (partitions) {
      shared = partitions[partition];
      if (shared == null) {
        shared = new SharedPartition(this, partition, context);
        partitions[partition] = shared;
      }
    }
    return shared.newReader();
  }

  /** Frees what the execution of {@code context} still holds (readers that never came or ended). */
  private void release(TaskContext context) {
    SharedPartition[] partitions = executions.remove(context);
    if (partitions == null) {
      return;
    }
    synchronized (partitions) {
      for (SharedPartition p : partitions) {
        if (p != null) {
          p.close();
        }
      }
    }
  }

  @Override
  public String displayDetails() {
    return "id=" + id + ", readers=" + readers;
  }

  @Override
  public OperatorMetrics metrics() {
    return metrics;
  }

  @Override
  public String toString() {
    return name() + ": " + displayDetails();
  }
}
