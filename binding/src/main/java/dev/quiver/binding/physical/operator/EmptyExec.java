package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A source of no rows (a provably empty relation), or of one row with all-null columns (a SELECT
 * without FROM, whose projection then computes the values).
 */
public final class EmptyExec extends BaseExecutionPlan {
  private final boolean produceOneRow;

  /** Creates the source. */
  public EmptyExec(Schema schema, boolean produceOneRow) {
    super(schema, List.of());
    this.produceOneRow = produceOneRow;
  }

  /** Whether the source yields one row rather than none. */
  public boolean produceOneRow() {
    return produceOneRow;
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
    if (!produceOneRow) {
      return SingleBatchStream.of(schema(), () -> null);
    }
    return SingleBatchStream.of(
        schema(),
        () -> {
          VectorSchemaRoot root = VectorSchemaRoot.create(schema(), context.allocator());
          root.allocateNew();
          for (int i = 0; i < schema().getFields().size(); i++) {
            root.getVector(i).setNull(0);
          }
          root.setRowCount(1);
          return root;
        });
  }

  @Override
  public String displayDetails() {
    return produceOneRow ? "one_row" : "no_rows";
  }
}
