package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Passes at most {@code fetch} rows of each partition and keeps its input's partitioning: the part
 * of a {@link LimitExec} that can run below an exchange, so that each partition stops producing
 * once it alone has enough rows (DataFusion's LocalLimitExec). Stops pulling its input as soon as
 * the limit is reached.
 */
public final class LocalLimitExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final long fetch;

  /** Creates the operator; {@code fetch} must not be negative. */
  public LocalLimitExec(ExecutionPlan input, long fetch) {
    super(input.schema(), List.of(input));
    if (fetch < 0) {
      throw new IllegalArgumentException("a local limit needs a fetch >= 0: " + fetch);
    }
    this.input = input;
    this.fetch = fetch;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** Rows kept per partition. */
  public long fetch() {
    return fetch;
  }

  @Override
  public Partitioning outputPartitioning() {
    return input.outputPartitioning();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new LocalLimitExec(children.get(0), fetch);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new BatchStream() {
      private BatchStream current = fetch == 0 ? null : input.execute(partition, context);
      private long remaining = fetch;

      @Override
      public Schema schema() {
        return LocalLimitExec.this.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        if (current == null) {
          return null;
        }
        VectorSchemaRoot batch = current.next();
        if (batch == null) {
          close();
          return null;
        }
        try (VectorSchemaRoot owned = batch) {
          int rows = owned.getRowCount();
          int take = (int) Math.min(rows, remaining);
          remaining -= take;
          if (remaining == 0) {
            close();
          }
          return take == rows
              ? Batches.transfer(owned, context.allocator())
              : Batches.slice(owned, 0, take, context.allocator());
        }
      }

      @Override
      public void close() {
        if (current != null) {
          BatchStream c = current;
          current = null;
          c.close();
        }
      }
    };
  }

  @Override
  public String displayDetails() {
    return "fetch=" + fetch + " per partition";
  }
}
