package dev.quiver.binding.physical.sort;

import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.SortField;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Merges the input's partitions, each already sorted by {@code order}, into one sorted partition,
 * optionally keeping only the first {@code fetch} rows. Input partitions are pulled concurrently.
 */
public final class SortPreservingMergeExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final List<SortField> order;
  private final long fetch;

  /** Creates the operator; {@code fetch < 0} means no limit. */
  public SortPreservingMergeExec(ExecutionPlan input, List<SortField> order, long fetch) {
    super(input.schema(), List.of(input));
    SortKeys.checkSortable(order);
    this.input = input;
    this.order = List.copyOf(order);
    this.fetch = fetch;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The order every input partition follows. */
  public List<SortField> order() {
    return order;
  }

  /** Rows to keep, or a negative number for all. */
  public long fetch() {
    return fetch;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.single();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 1) {
      throw new IllegalArgumentException(
          "SortPreservingMergeExec takes one child, got " + children.size());
    }
    return new SortPreservingMergeExec(children.get(0), order, fetch);
  }

  @Override
  public String displayDetails() {
    return "order=" + order + (fetch >= 0 ? ", fetch=" + fetch : "");
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    if (fetch == 0) {
      return new SortedMerge(schema(), order, List.of(), context.allocator(), 1, 0);
    }
    if (input.partitionCount() == 1) {
      return new LimitedStream(input.execute(0, context), fetch, context);
    }
    PartitionPuller puller = new PartitionPuller(input, context, true);
    List<BatchStream> sources = new ArrayList<>();
    for (int q = 0; q < puller.queueCount(); q++) {
      sources.add(puller.stream(q, schema()));
    }
    SortedMerge merge =
        new SortedMerge(schema(), order, sources, context.allocator(), context.batchSize(), fetch);
    return new BatchStream() {
      @Override
      public Schema schema() {
        return merge.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        try {
          return merge.next();
        } catch (OutOfMemoryException e) {
          throw new ResourcesExhaustedException(
              "Resources exhausted: SortPreservingMergeExec["
                  + order
                  + "] could not allocate "
                  + "Arrow memory ("
                  + e.getMessage()
                  + "); raise quiver.execution.memory_limit",
              e);
        }
      }

      @Override
      public void close() {
        Batches.closeAll(List.of(merge, puller));
      }
    };
  }

  /** Passes a single sorted partition through, cut after {@code fetch} rows. */
  private static final class LimitedStream implements BatchStream {
    private final BatchStream in;
    private final TaskContext context;
    private long remaining;

    LimitedStream(BatchStream in, long fetch, TaskContext context) {
      this.in = in;
      this.context = context;
      this.remaining = fetch < 0 ? Long.MAX_VALUE : fetch;
    }

    @Override
    public Schema schema() {
      return in.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      if (remaining <= 0) {
        return null;
      }
      VectorSchemaRoot b = in.next();
      if (b == null) {
        return null;
      }
      if (b.getRowCount() <= remaining) {
        remaining -= b.getRowCount();
        return b;
      }
      try (b) {
        int n = (int) remaining;
        remaining = 0;
        return Batches.slice(b, 0, n, context.allocator());
      }
    }

    @Override
    public void close() {
      in.close();
    }
  }
}
