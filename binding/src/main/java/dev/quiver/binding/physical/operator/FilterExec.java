package dev.quiver.binding.physical.operator;

import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
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

/**
 * Keeps the rows for which a boolean predicate is true (null counts as false).
 *
 * <p>A conjunction is evaluated a conjunct at a time, cheapest first: each one only decides the
 * rows the earlier ones kept, and once a conjunct drops at least half of a batch, the kept rows are
 * copied to a smaller batch for the rest ({@code p_size = 15 AND p_type LIKE '%BRASS'} runs the
 * LIKE on 2% of the rows). Should a conjunct raise an error on a row an earlier one dropped, or
 * that a later one in the written order would have, the batch is evaluated again with the whole
 * predicate, whose AND evaluates its operands in the written order and retries a failing one on the
 * rows still undecided: the conjunct order never changes which queries fail.
 */
public final class FilterExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final PhysicalExpr predicate;
  // The top-level conjuncts of the predicate, in evaluation order (cheapest first, stable).
  private final List<PhysicalExpr> conjuncts;

  /** Creates the operator; the predicate must be boolean. */
  public FilterExec(ExecutionPlan input, PhysicalExpr predicate) {
    super(input.schema(), List.of(input));
    if (!(predicate.dataType() instanceof ArrowType.Bool)) {
      throw new IllegalArgumentException(
          "filter predicate must be BOOLEAN, got " + predicate.dataType());
    }
    this.input = input;
    this.predicate = predicate;
    this.conjuncts = Conjuncts.inEvaluationOrder(predicate);
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
      // Conjuncts in the order this stream evaluates them, re-ranked from what it measures.
      private final ConjunctOrder order = new ConjunctOrder(conjuncts.size());
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
          if (conjuncts.size() == 1) {
            return keep(owned, predicate);
          }
          try {
            return byConjunct(owned);
          } catch (ResourcesExhaustedException | QueryCancelledException e) {
            throw e;
          } catch (QuiverException e) {
            return keep(owned, predicate);
          }
        }
      }

      /** The rows of {@code batch} for which {@code p} is true, or null; leaves batch open. */
      private VectorSchemaRoot keep(VectorSchemaRoot batch, PhysicalExpr p) {
        int rows = batch.getRowCount();
        int selected;
        try (FieldVector mask = p.evaluate(batch, context.allocator())) {
          selected = select((BitVector) mask, rows);
        }
        return selected == rows
            ? Batches.transfer(batch, context.allocator())
            : take(batch, selected);
      }

      /**
       * Evaluates the conjuncts in order, each on the rows the earlier ones kept: as a selection of
       * the current batch, which is compacted to its selected rows when a conjunct drops at least
       * half of it. Leaves {@code batch} open.
       */
      private VectorSchemaRoot byConjunct(VectorSchemaRoot batch) {
        VectorSchemaRoot current = batch;
        int selected = -1; // -1: every row of current
        try {
          int[] sequence = order.sequence();
          for (int k = 0; k < sequence.length; k++) {
            int c = sequence[k];
            int rows = current.getRowCount();
            int before = selected < 0 ? rows : selected;
            long started = System.nanoTime();
            try (FieldVector mask = conjuncts.get(c).evaluate(current, context.allocator())) {
              selected =
                  selected < 0
                      ? select((BitVector) mask, rows)
                      : refine((BitVector) mask, selected);
            }
            order.record(c, before, selected, System.nanoTime() - started);
            if (selected == 0) {
              order.batchDone();
              return null;
            }
            boolean last = k == sequence.length - 1;
            if (!last && selected < rows && selected * 2 <= rows) {
              VectorSchemaRoot smaller = take(current, selected);
              if (current != batch) {
                current.close();
              }
              current = smaller;
              selected = -1;
            }
          }
          order.batchDone();
          if (selected < 0 || selected == current.getRowCount()) {
            return Batches.transfer(current, context.allocator());
          }
          return take(current, selected);
        } finally {
          if (current != batch) {
            current.close();
          }
        }
      }

      /** Rows {@code selection[0..selected)} of {@code batch}, as a new batch. */
      private VectorSchemaRoot take(VectorSchemaRoot batch, int selected) {
        if (selected == 0) {
          return null;
        }
        if (TakeRuns.worthIt(selected, TakeRuns.runs(selection, selected))) {
          return TakeRuns.take(batch, selection, selected, context.allocator());
        }
        return Take.take(batch, selection, selected, context.allocator());
      }

      /** Keeps the rows of {@code selection[0..selected)} that {@code mask} holds true. */
      private int refine(BitVector mask, int selected) {
        int rows = mask.getValueCount();
        boolean hasNulls = mask.getNullCount() > 0;
        int bytes = (rows + 7) >>> 3;
        long data = Raw.address(mask.getDataBuffer(), bytes);
        long validity = hasNulls ? Raw.address(mask.getValidityBuffer(), bytes) : 0;
        int n = 0;
        for (int i = 0; i < selected; i++) {
          int row = selection[i];
          int bits = Raw.getByte(data + (row >>> 3));
          if (hasNulls) {
            bits &= Raw.getByte(validity + (row >>> 3));
          }
          selection[n] = row;
          n += (bits >>> (row & 7)) & 1;
        }
        return n;
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
