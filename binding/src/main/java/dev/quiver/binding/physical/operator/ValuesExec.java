package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.ValueWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;

/** Literal rows (SQL VALUES) as a one-partition source. */
public final class ValuesExec extends BaseExecutionPlan {
  private final List<List<Object>> rows;

  /** Creates the source; values follow the literal convention of {@link ValueWriter}. */
  public ValuesExec(Schema schema, List<List<Object>> rows) {
    super(schema, List.of());
    List<List<Object>> copy = new ArrayList<>();
    for (List<Object> row : rows) {
      copy.add(Collections.unmodifiableList(new ArrayList<>(row)));
    }
    this.rows = Collections.unmodifiableList(copy);
  }

  /** The literal rows. */
  public List<List<Object>> rows() {
    return rows;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.single();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return this;
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return SingleBatchStream.of(
        schema(), () -> ValueWriter.batch(schema(), rows, context.allocator()));
  }

  @Override
  public String displayDetails() {
    return "rows=" + rows.size();
  }
}
