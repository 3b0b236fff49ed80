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
 * Skips {@code offset} rows then passes at most {@code fetch} (negative: all). Output is one
 * partition; a multi-partition input is read partition by partition, so its order is kept. Stops
 * pulling its input as soon as the limit is reached.
 */
public final class LimitExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final long offset;
  private final long fetch;

  /** Creates the operator. */
  public LimitExec(ExecutionPlan input, long offset, long fetch) {
    super(input.schema(), List.of(input));
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0: " + offset);
    }
    this.input = input;
    this.offset = offset;
    this.fetch = fetch;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** Rows skipped. */
  public long offset() {
    return offset;
  }

  /** Rows kept after the offset; negative means no limit. */
  public long fetch() {
    return fetch;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.single();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new LimitExec(children.get(0), offset, fetch);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    return new BatchStream() {
      private int inputPartition;
      private BatchStream current;
      private long toSkip = offset;
      private long remaining = fetch < 0 ? Long.MAX_VALUE : fetch;

      @Override
      public Schema schema() {
        return LimitExec.this.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        while (remaining > 0) {
          if (current == null) {
            if (inputPartition >= input.partitionCount()) {
              return null;
            }
            current = input.execute(inputPartition++, context);
          }
          VectorSchemaRoot batch = current.next();
          if (batch == null) {
            current.close();
            current = null;
            continue;
          }
          try (VectorSchemaRoot owned = batch) {
            int rows = owned.getRowCount();
            if (toSkip >= rows) {
              toSkip -= rows;
              continue;
            }
            int start = (int) toSkip;
            toSkip = 0;
            int take = (int) Math.min(rows - start, remaining);
            remaining -= take;
            if (remaining == 0) {
              closeCurrent();
            }
            if (start == 0 && take == rows) {
              return Batches.transfer(owned, context.allocator());
            }
            return Batches.slice(owned, start, take, context.allocator());
          }
        }
        closeCurrent();
        return null;
      }

      private void closeCurrent() {
        if (current != null) {
          current.close();
          current = null;
        }
      }

      @Override
      public void close() {
        closeCurrent();
      }
    };
  }

  @Override
  public String displayDetails() {
    return "offset=" + offset + ", fetch=" + (fetch < 0 ? "none" : Long.toString(fetch));
  }
}
