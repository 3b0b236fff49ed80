package dev.quiver.binding.physical.operator;

import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.RowDroppingStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.MaskWords;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.kernel.TakeRuns;
import dev.quiver.binding.physical.scan.ParquetScanExec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Keeps the rows for which a boolean predicate is true (null counts as false).
 *
 * <p>A conjunction is evaluated a conjunct at a time, their true rows ANDed as bit words. The first
 * batches go cheapest first by a static estimate ({@link Conjuncts}); then each stream orders the
 * conjuncts by what it measured, time per row over the fraction of rows dropped ({@link
 * ConjunctOrder}). Once a quarter of the batch or less is left and a costly conjunct (LIKE, a
 * function call, a string test) is still to come, the kept rows are copied to a smaller batch for
 * the rest: {@code p_size = 15 AND p_type LIKE '%BRASS'} runs the LIKE on 2% of the rows, while a
 * date range stays word-wise on the whole batch. Should a conjunct raise an error (on a row an
 * earlier one dropped, say), the batch is evaluated again with the whole predicate, whose AND
 * evaluates its operands in the written order and retries a failing one on the rows still
 * undecided: the conjunct order never changes which queries fail.
 *
 * <p>With a projection, only the listed input columns are emitted: a condition's columns that
 * nothing above reads are neither copied with the kept rows nor passed on.
 */
public final class FilterExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final PhysicalExpr predicate;
  // The top-level conjuncts of the predicate, in evaluation order (cheapest first, stable).
  private final List<PhysicalExpr> conjuncts;
  // Whether each conjunct is costly enough per row to be worth compacting the batch for.
  private final boolean[] costly;
  // The input columns emitted, in order; null: all of them.
  private final int[] projection;

  /** Creates the operator; the predicate must be boolean. */
  public FilterExec(ExecutionPlan input, PhysicalExpr predicate) {
    this(input, predicate, null);
  }

  /**
   * Creates the operator emitting only the input columns {@code projection} lists (distinct, in
   * that order; null for all of them); the predicate must be boolean.
   */
  public FilterExec(ExecutionPlan input, PhysicalExpr predicate, int[] projection) {
    super(projected(input.schema(), projection), List.of(readingFiltered(input, predicate)));
    if (!(predicate.dataType() instanceof ArrowType.Bool)) {
      throw new IllegalArgumentException(
          "filter predicate must be BOOLEAN, got " + predicate.dataType());
    }
    this.input = children().get(0);
    this.predicate = predicate;
    this.projection = projection == null ? null : projection.clone();
    this.conjuncts = Conjuncts.inEvaluationOrder(predicate);
    this.costly = new boolean[conjuncts.size()];
    for (int c = 0; c < costly.length; c++) {
      costly[c] = Conjuncts.costly(conjuncts.get(c));
    }
  }

  /**
   * A Parquet scan input that evaluates the predicate itself as it reads (late materialization), or
   * {@code input} when it cannot or the predicate has a costly conjunct (LIKE, a function, a string
   * test), which this operator evaluates on the fewest rows: handing the scan only the cheap
   * conjuncts made TPC-H q19 1.8 times slower (the rows they keep evaluated twice). A plan decoded
   * elsewhere is rebuilt through this constructor, so the scan there filters too.
   */
  private static ExecutionPlan readingFiltered(ExecutionPlan input, PhysicalExpr predicate) {
    if (!(input instanceof ParquetScanExec scan)
        || !(predicate.dataType() instanceof ArrowType.Bool)
        || Conjuncts.written(predicate).stream().anyMatch(Conjuncts::costly)) {
      return input;
    }
    ParquetScanExec filtering = scan.withFilter(predicate);
    return filtering != null ? filtering : input;
  }

  /** Whether the input, a Parquet scan, has evaluated the predicate as it read. */
  private boolean inputFiltered(TaskContext context) {
    return input instanceof ParquetScanExec scan && scan.filter(context.config()) != null;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The predicate. */
  public PhysicalExpr predicate() {
    return predicate;
  }

  /** The input columns emitted, in order, or null when all of them are. */
  public int[] projection() {
    return projection == null ? null : projection.clone();
  }

  private static Schema projected(Schema in, int[] projection) {
    if (projection == null) {
      return in;
    }
    List<Field> fields = new ArrayList<>(projection.length);
    boolean[] seen = new boolean[in.getFields().size()];
    for (int c : projection) {
      if (c < 0 || c >= seen.length || seen[c]) {
        throw new IllegalArgumentException(
            "filter projection must list distinct input columns, got "
                + Arrays.toString(projection));
      }
      seen[c] = true;
      fields.add(in.getFields().get(c));
    }
    return new Schema(fields);
  }

  /** Hash partitioning on input columns survives when every key column is emitted. */
  @Override
  public Partitioning outputPartitioning() {
    Partitioning in = input.outputPartitioning();
    if (projection == null || in.kind() != Partitioning.Kind.HASH) {
      return in;
    }
    List<PhysicalExpr> mapped = new ArrayList<>();
    for (PhysicalExpr key : in.hashExprs()) {
      int found = -1;
      if (key instanceof ColumnExpr col) {
        for (int i = 0; i < projection.length && found < 0; i++) {
          if (projection[i] == col.index()) {
            found = i;
          }
        }
      }
      if (found < 0) {
        return Partitioning.unknown(in.partitionCount());
      }
      mapped.add(ColumnExpr.of(found, schema().getFields().get(found)));
    }
    return Partitioning.hash(mapped, in.partitionCount());
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new FilterExec(children.get(0), predicate, projection);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    BatchStream in = input.execute(partition, context);
    if (inputFiltered(context)) {
      // The scan has kept only the rows the predicate holds for: emit them, merged to full size.
      return new RowDroppingStream(in, schema(), context.batchSize(), context.allocator()) {
        @Override
        protected VectorSchemaRoot survivors(VectorSchemaRoot batch) {
          try (VectorSchemaRoot owned = batch) {
            return Batches.transfer(emitted(owned), context.allocator());
          }
        }
      };
    }
    return new RowDroppingStream(in, schema(), context.batchSize(), context.allocator()) {
      private int[] selection = new int[0];
      // Conjuncts in the order this stream evaluates them, re-ranked from what it measures.
      private final ConjunctOrder order = new ConjunctOrder(conjuncts.size());

      /** The rows of {@code batch} that pass, or null when none does; closes {@code batch}. */
      @Override
      protected VectorSchemaRoot survivors(VectorSchemaRoot batch) {
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
            ? Batches.transfer(emitted(batch), context.allocator())
            : take(emitted(batch), selected);
      }

      /**
       * Evaluates the conjuncts in order, ANDing their true rows as bit words over the current
       * batch. Once the kept rows are a quarter of the batch or fewer and a costly conjunct (LIKE,
       * a function, a string test) is still to come, the batch is compacted to them, so the costly
       * ones see only those rows; cheap tests (a date range) stay word-wise on the whole batch,
       * where copying the rows would cost more than the tests. Leaves {@code batch} open.
       */
      private VectorSchemaRoot byConjunct(VectorSchemaRoot batch) {
        VectorSchemaRoot current = batch;
        long[] keep = null; // null: every row of current
        int kept = current.getRowCount();
        try {
          int[] sequence = order.sequence();
          for (int k = 0; k < sequence.length; k++) {
            int c = sequence[k];
            int rows = current.getRowCount();
            int before = kept;
            long started = System.nanoTime();
            try (FieldVector mask = conjuncts.get(c).evaluate(current, context.allocator())) {
              keep = MaskWords.andTrue((BitVector) mask, rows, keep);
            }
            kept = MaskWords.count(keep);
            order.record(c, before, kept, System.nanoTime() - started);
            if (kept == 0) {
              order.batchDone();
              return null;
            }
            if (kept * 4 <= rows && costlyAfter(sequence, k)) {
              int n = selectWords(keep, rows);
              VectorSchemaRoot smaller = take(current, n);
              if (current != batch) {
                current.close();
              }
              current = smaller;
              keep = null;
            }
          }
          order.batchDone();
          if (keep == null || kept == current.getRowCount()) {
            return Batches.transfer(emitted(current), context.allocator());
          }
          int n = selectWords(keep, current.getRowCount());
          return take(emitted(current), n);
        } finally {
          if (current != batch) {
            current.close();
          }
        }
      }

      /** Whether a conjunct after position {@code k} of {@code sequence} is costly. */
      private boolean costlyAfter(int[] sequence, int k) {
        for (int j = k + 1; j < sequence.length; j++) {
          if (costly[sequence[j]]) {
            return true;
          }
        }
        return false;
      }

      /** Fills {@code selection} with the rows set in {@code keep}; returns how many. */
      private int selectWords(long[] keep, int rows) {
        if (selection.length < rows) {
          selection = new int[rows];
        }
        return MaskWords.toRows(keep, selection);
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

      private int select(BitVector mask, int rows) {
        if (selection.length < rows) {
          selection = new int[rows];
        }
        return MaskWords.trueRows(mask, rows, selection);
      }
    };
  }

  /**
   * The emitted columns of {@code batch}, as a view that shares its vectors (the caller closes
   * {@code batch}, never the view).
   */
  private VectorSchemaRoot emitted(VectorSchemaRoot batch) {
    if (projection == null) {
      return batch;
    }
    List<FieldVector> vectors = new ArrayList<>(projection.length);
    for (int c : projection) {
      vectors.add(batch.getVector(c));
    }
    return new VectorSchemaRoot(schema().getFields(), vectors, batch.getRowCount());
  }

  @Override
  public String displayDetails() {
    if (projection == null) {
      return "predicate=" + predicate;
    }
    List<String> names = new ArrayList<>(projection.length);
    for (Field f : schema().getFields()) {
      names.add(f.getName());
    }
    return "predicate=" + predicate + ", projection=[" + String.join(", ", names) + "]";
  }
}
