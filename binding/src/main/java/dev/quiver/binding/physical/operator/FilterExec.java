package dev.quiver.binding.physical.operator;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.BatchCoalescer;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Raw;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.kernel.TakeRuns;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BitVector;
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
      throw new IllegalArgumentException(
          "filter predicate must be BOOLEAN, got " + predicate.dataType());
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
      // A selective predicate leaves small batches; merge them to full-size ones.
      private final BatchCoalescer coalescer =
          new BatchCoalescer(context.batchSize(), context.allocator());
      private final ArrayDeque<VectorSchemaRoot> ready = new ArrayDeque<>();
      private boolean inputDone;

      @Override
      public Schema schema() {
        return FilterExec.this.schema();
      }

      @Override
      public VectorSchemaRoot next() {
        while (ready.isEmpty()) {
          if (inputDone) {
            return null;
          }
          VectorSchemaRoot batch = in.next();
          if (batch == null) {
            inputDone = true;
            return coalescer.flush();
          }
          VectorSchemaRoot kept = filter(batch);
          if (kept != null) {
            ready.addAll(coalescer.add(kept));
          }
        }
        return ready.poll();
      }

      /** The rows of {@code batch} that pass, or null when none does; closes {@code batch}. */
      private VectorSchemaRoot filter(VectorSchemaRoot batch) {
        try (VectorSchemaRoot owned = batch) {
          int rows = owned.getRowCount();
          int selected;
          try (FieldVector mask = predicate.evaluate(owned, context.allocator())) {
            selected = select((BitVector) mask, rows);
          }
          if (selected == 0) {
            return null;
          }
          if (selected == rows) {
            return Batches.transfer(owned, context.allocator());
          }
          if (TakeRuns.worthIt(selected, TakeRuns.runs(selection, selected))) {
            return TakeRuns.take(owned, selection, selected, context.allocator());
          }
          return Take.take(owned, selection, selected, context.allocator());
        }
      }

      private int select(BitVector mask, int rows) {
        if (selection.length < rows) {
          selection = new int[rows];
        }
        boolean hasNulls = mask.getNullCount() > 0;
        int bytes = (rows + 7) >>> 3;
        long data = Raw.address(mask.getDataBuffer(), bytes);
        long validity = hasNulls ? Raw.address(mask.getValidityBuffer(), bytes) : 0;
        int n = 0;
        // A byte of the mask at a time: the selected rows of each are its set bits.
        for (int b = 0; b < bytes; b++) {
          int bits = Raw.getByte(data + b) & 0xFF;
          if (hasNulls) {
            bits &= Raw.getByte(validity + b);
          }
          if (b == bytes - 1 && (rows & 7) != 0) {
            bits &= (1 << (rows & 7)) - 1;
          }
          while (bits != 0) {
            selection[n++] = (b << 3) + Integer.numberOfTrailingZeros(bits);
            bits &= bits - 1;
          }
        }
        return n;
      }

      @Override
      public void close() {
        List<AutoCloseable> all = new ArrayList<>(ready);
        ready.clear();
        all.add(coalescer);
        all.add(in);
        Batches.closeAll(all);
      }
    };
  }

  @Override
  public String displayDetails() {
    return "predicate=" + predicate;
  }
}
