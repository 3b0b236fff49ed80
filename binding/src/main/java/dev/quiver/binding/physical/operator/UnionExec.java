package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Concatenates inputs of the same column types (UNION ALL). Output partitions are the inputs'
 * partitions one after another; names come from the first input.
 */
public final class UnionExec extends BaseExecutionPlan {
  private final List<ExecutionPlan> inputs;

  /** Creates the operator over at least one input. */
  public UnionExec(List<ExecutionPlan> inputs) {
    super(unionSchema(inputs), inputs);
    this.inputs = List.copyOf(inputs);
  }

  private static Schema unionSchema(List<ExecutionPlan> inputs) {
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("UNION needs at least one input");
    }
    List<Field> first = inputs.get(0).schema().getFields();
    List<Field> fields = new ArrayList<>();
    for (int c = 0; c < first.size(); c++) {
      boolean nullable = false;
      for (ExecutionPlan in : inputs) {
        List<Field> f = in.schema().getFields();
        if (f.size() != first.size() || !f.get(c).getType().equals(first.get(c).getType())) {
          throw new IllegalArgumentException(
              "UNION inputs differ in column "
                  + (c + 1)
                  + ": "
                  + first.get(c)
                  + " vs "
                  + (c < f.size() ? f.get(c) : "missing"));
        }
        nullable |= f.get(c).isNullable();
      }
      fields.add(
          new Field(
              first.get(c).getName(),
              new FieldType(nullable, first.get(c).getType(), null),
              first.get(c).getChildren()));
    }
    return new Schema(fields);
  }

  @Override
  public Partitioning outputPartitioning() {
    int total = 0;
    for (ExecutionPlan in : inputs) {
      total += in.partitionCount();
    }
    return Partitioning.unknown(total);
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new UnionExec(children);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    int p = partition;
    for (ExecutionPlan in : inputs) {
      if (p < in.partitionCount()) {
        BatchStream stream = in.execute(p, context);
        return new BatchStream() {
          @Override
          public Schema schema() {
            return UnionExec.this.schema();
          }

          @Override
          public VectorSchemaRoot next() {
            VectorSchemaRoot batch = stream.next();
            if (batch == null) {
              return null;
            }
            try (VectorSchemaRoot owned = batch) {
              return conform(owned, context);
            }
          }

          @Override
          public void close() {
            stream.close();
          }
        };
      }
      p -= in.partitionCount();
    }
    throw new IllegalStateException("unreachable");
  }

  /** Moves the batch's buffers under the union's field names and nullability. */
  private VectorSchemaRoot conform(VectorSchemaRoot batch, TaskContext context) {
    if (batch.getSchema().equals(schema())) {
      return Batches.transfer(batch, context.allocator());
    }
    List<FieldVector> out = new ArrayList<>();
    List<Field> fields = schema().getFields();
    for (int c = 0; c < fields.size(); c++) {
      FieldVector v = batch.getVector(c);
      TransferPair pair = v.getTransferPair(fields.get(c), context.allocator());
      pair.transfer();
      out.add((FieldVector) pair.getTo());
    }
    return new VectorSchemaRoot(schema(), out, batch.getRowCount());
  }

  @Override
  public String displayDetails() {
    return "inputs=" + inputs.size();
  }
}
