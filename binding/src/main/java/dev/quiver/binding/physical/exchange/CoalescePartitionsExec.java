package dev.quiver.binding.physical.exchange;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

/** Merges all input partitions into one, pulling every input partition concurrently. */
public final class CoalescePartitionsExec extends BaseExecutionPlan {
  private final ExecutionPlan input;

  /** Creates the operator over {@code input}. */
  public CoalescePartitionsExec(ExecutionPlan input) {
    super(input.schema(), List.of(input));
    this.input = input;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.single();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new CoalescePartitionsExec(children.get(0));
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    int n = input.partitionCount();
    if (n == 1) {
      return input.execute(0, context);
    }
    BatchChannel channel = new BatchChannel(n);
    List<Future<?>> producers = new ArrayList<>(n);
    for (int p = 0; p < n; p++) {
      int part = p;
      producers.add(context.executor().submit(() -> Producers.pump(input, part, context, channel)));
    }
    return new ChannelStream(schema(), channel, () -> Producers.awaitAll(producers));
  }

  @Override
  public String displayDetails() {
    return "partitions=" + input.partitionCount() + " -> 1";
  }
}
