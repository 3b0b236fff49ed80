package dev.quiver.binding.physical.sort;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** Test-only leaf serving fixed batches per partition; each execution hands out copies. */
public final class MemorySourceExec extends BaseExecutionPlan implements AutoCloseable {
  private final List<List<VectorSchemaRoot>> partitions;

  /** Serves {@code partitions}; the plan owns the batches until {@link #close}. */
  public MemorySourceExec(Schema schema, List<List<VectorSchemaRoot>> partitions) {
    super(schema, List.of());
    this.partitions = partitions;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.unknown(partitions.size());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return this;
  }

  @Override
  public String displayDetails() {
    return "partitions=" + partitions.size();
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    List<VectorSchemaRoot> batches = partitions.get(partition);
    return new BatchStream() {
      private int next;

      @Override
      public Schema schema() {
        return MemorySourceExec.this.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        if (next >= batches.size()) {
          return null;
        }
        VectorSchemaRoot b = batches.get(next++);
        return Batches.slice(b, 0, b.getRowCount(), context.allocator());
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {
    for (List<VectorSchemaRoot> p : partitions) {
      Batches.closeAll(p);
    }
  }
}
