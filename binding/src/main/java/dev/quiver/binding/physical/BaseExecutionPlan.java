package dev.quiver.binding.physical;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Convenience base for operators: fixes schema and children, and wraps every stream so that output
 * rows, batches and time are counted and cancellation is checked between batches. Each partition
 * may be executed at most once per {@link TaskContext}: operators keep per-execution state, and a
 * second run would see it drained.
 */
public abstract class BaseExecutionPlan implements ExecutionPlan {
  private final Schema schema;
  private final List<ExecutionPlan> children;
  private final OperatorMetrics metrics = new OperatorMetrics();
  private volatile String tableName = "";

  protected BaseExecutionPlan(Schema schema, List<ExecutionPlan> children) {
    this.schema = schema;
    this.children = List.copyOf(children);
  }

  @Override
  public String name() {
    return getClass().getSimpleName();
  }

  @Override
  public final String tableName() {
    return tableName;
  }

  /** Names the table this scan reads, for plans (the planner knows it, the provider may not). */
  public final void nameTable(String name) {
    this.tableName = name;
  }

  @Override
  public final Schema schema() {
    return schema;
  }

  @Override
  public final List<ExecutionPlan> children() {
    return children;
  }

  @Override
  public final OperatorMetrics metrics() {
    return metrics;
  }

  @Override
  public final BatchStream execute(int partition, TaskContext context) {
    if (partition < 0 || partition >= partitionCount()) {
      throw new IllegalArgumentException(
          name() + " has " + partitionCount() + " partitions; asked for " + partition);
    }
    context.checkCancelled();
    if (!context.claimPartition(this, partition)) {
      throw new IllegalStateException(
          name()
              + " partition "
              + partition
              + " was executed twice in query "
              + context.queryId()
              + "; each partition runs at most once per execution");
    }
    return new MeteredStream(doExecute(partition, context), context);
  }

  /** Produces output partition {@code partition}; the base class adds metrics. */
  protected abstract BatchStream doExecute(int partition, TaskContext context);

  @Override
  public String toString() {
    return name() + ": " + displayDetails();
  }

  private final class MeteredStream implements BatchStream {
    private final BatchStream inner;
    private final TaskContext context;

    MeteredStream(BatchStream inner, TaskContext context) {
      this.inner = inner;
      this.context = context;
    }

    @Override
    public Schema schema() {
      return inner.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      context.checkCancelled();
      long start = System.nanoTime();
      VectorSchemaRoot batch = inner.next();
      metrics.addElapsed(System.nanoTime() - start);
      if (batch != null) {
        metrics.recordBatch(batch.getRowCount());
      }
      return batch;
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
