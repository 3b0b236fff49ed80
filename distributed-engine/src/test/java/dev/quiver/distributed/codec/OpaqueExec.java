package dev.quiver.distributed.codec;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.List;

/** A node the binding does not know: passes its child through, tagged with a label. */
final class OpaqueExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final String label;

  OpaqueExec(ExecutionPlan input, String label) {
    super(input.schema(), List.of(input));
    this.input = input;
    this.label = label;
  }

  String label() {
    return label;
  }

  @Override
  public Partitioning outputPartitioning() {
    return input.outputPartitioning();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new OpaqueExec(children.get(0), label);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return input.execute(partition, context);
  }

  @Override
  public String displayDetails() {
    return "label=" + label;
  }
}
