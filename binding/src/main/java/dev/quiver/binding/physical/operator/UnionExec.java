package dev.quiver.binding.physical.operator;


import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/** STUB (signature fixed; owner replaces the body). */
public final class UnionExec extends BaseExecutionPlan {
  /** Creates the operator. */
  public UnionExec(List<ExecutionPlan> inputs) {
    super(null, List.of());
    throw new UnsupportedOperationException("pending");
  }

  @Override
  public Partitioning outputPartitioning() {
    throw new UnsupportedOperationException("pending");
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    throw new UnsupportedOperationException("pending");
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    throw new UnsupportedOperationException("pending");
  }

  @Override
  public String displayDetails() {
    throw new UnsupportedOperationException("pending");
  }
}
