package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Keeps the rows for which a boolean predicate is true (null counts as false). */
public final class FilterExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final PhysicalExpr predicate;

  /** Creates the operator; the predicate must be boolean. */
  public FilterExec(ExecutionPlan input, PhysicalExpr predicate) {
    super(input.schema(), List.of(input));
    if (!(predicate.dataType() instanceof ArrowType.Bool)) {
      throw new IllegalArgumentException("filter predicate must be BOOLEAN, got " + predicate.dataType());
    }
    this.input = input;
    this.predicate = predicate;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The predicate. */
  public PhysicalExpr predicate() {
    return predicate;
  }

  @Override
  public Partitioning outputPartitioning() {
    return input.outputPartitioning();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new FilterExec(children.get(0), predicate);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    BatchStream in = input.execute(partition, context);
    return new BatchStream() {
      private int[] selection = new int[0];

      @Override
      public Schema schema() {
        return FilterExec.this.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        while (true) {
          VectorSchemaRoot batch = in.next();
          if (batch == null) {
            return null;
          }
          try (VectorSchemaRoot owned = batch) {
            int rows = owned.getRowCount();
            int selected;
            try (FieldVector mask = predicate.evaluate(owned, context.allocator())) {
              selected = select((BitVector) mask, rows);
            }
            if (selected == 0) {
              continue;
            }
            if (selected == rows) {
              return Batches.transfer(owned, context.allocator());
            }
            return Take.take(owned, selection, selected, context.allocator());
          }
        }
      }

      private int select(BitVector mask, int rows) {
        if (selection.length < rows) {
          selection = new int[rows];
        }
        ArrowBuf data = mask.getDataBuffer();
        ArrowBuf validity = mask.getValidityBuffer();
        boolean hasNulls = mask.getNullCount() > 0;
        int n = 0;
        for (int i = 0; i < rows; i++) {
          if (BitVectorHelper.get(data, i) != 0 && (!hasNulls || BitVectorHelper.get(validity, i) != 0)) {
            selection[n++] = i;
          }
        }
        return n;
      }

      @Override
      public void close() {
        in.close();
      }
    };
  }

  @Override
  public String displayDetails() {
    return "predicate=" + predicate;
  }
}
