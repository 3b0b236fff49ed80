package dev.quiver.binding.physical.join;

import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.RowDroppingStream;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Hashing;
import dev.quiver.binding.physical.kernel.Take;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Drops the input rows whose join keys a {@link BloomFilter} of the other side's keys rules out: a
 * runtime filter in front of a join that drops this side's unmatched rows, so that rows which
 * cannot match are not shuffled or probed. Rows with a NULL key are dropped too (such a join never
 * matches them). The filter lets through every row that has a partner and a few percent of the
 * others, so the join still decides; it is only a cheaper way to lose rows early.
 *
 * <p>The filter is built where the other side is computed, so it may arrive after the plan was
 * made: {@code filterId} names it, and the executor that runs the plan supplies it ({@link
 * #withFilter}). Running without one is a bug, not an empty result.
 */
public final class BloomFilterExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final List<PhysicalExpr> keys;
  private final int filterId;
  private final BloomFilter filter;

  /** The operator for filter {@code filterId}; {@code filter} null until it is known. */
  public BloomFilterExec(
      ExecutionPlan input, List<PhysicalExpr> keys, int filterId, BloomFilter filter) {
    super(input.schema(), List.of(input));
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("a Bloom filter needs at least one key");
    }
    this.input = input;
    this.keys = List.copyOf(keys);
    this.filterId = filterId;
    this.filter = filter;
  }

  /** The input plan. */
  public ExecutionPlan input() {
    return input;
  }

  /** The key expressions over the input, in the join's key order. */
  public List<PhysicalExpr> keys() {
    return keys;
  }

  /** Which filter this operator applies (the id of the stage or build that made it). */
  public int filterId() {
    return filterId;
  }

  /** The filter, or null when it has not been supplied yet. */
  public BloomFilter filter() {
    return filter;
  }

  /** This operator applying {@code supplied}. */
  public BloomFilterExec withFilter(BloomFilter supplied) {
    return new BloomFilterExec(input, keys, filterId, supplied);
  }

  @Override
  public Partitioning outputPartitioning() {
    return input.outputPartitioning();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    return new BloomFilterExec(children.get(0), keys, filterId, filter);
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    if (filter == null) {
      throw new IllegalStateException(
          "Bloom filter " + filterId + " was not supplied to the plan that applies it");
    }
    BatchStream in = input.execute(partition, context);
    return new RowDroppingStream(in, schema(), context.batchSize(), context.allocator()) {
      private int[] hashes = new int[0];
      private int[] selection = new int[0];

      /** The rows of {@code batch} the filter lets through, or null for none; closes batch. */
      @Override
      protected VectorSchemaRoot survivors(VectorSchemaRoot batch) {
        try (VectorSchemaRoot owned = batch) {
          int rows = owned.getRowCount();
          if (hashes.length < rows) {
            hashes = new int[rows];
            selection = new int[rows];
          }
          List<FieldVector> keyVectors = new ArrayList<>(keys.size());
          int n = 0;
          try {
            for (PhysicalExpr k : keys) {
              keyVectors.add(k.evaluate(owned, context.allocator()));
            }
            Hashing.hashRows(keyVectors, rows, hashes);
            boolean nulls = false;
            for (FieldVector v : keyVectors) {
              nulls |= v.getNullCount() > 0;
            }
            for (int r = 0; r < rows; r++) {
              if (filter.mightContain(hashes[r]) && (!nulls || noNullKey(keyVectors, r))) {
                selection[n++] = r;
              }
            }
          } finally {
            Batches.closeAll(new ArrayList<AutoCloseable>(keyVectors));
          }
          metrics().recordRuledOut(rows - n);
          if (n == 0) {
            return null;
          }
          return n == rows
              ? Batches.transfer(owned, context.allocator())
              : Take.take(owned, selection, n, context.allocator());
        }
      }
    };
  }

  private static boolean noNullKey(List<FieldVector> keys, int row) {
    for (FieldVector v : keys) {
      if (v.isNull(row)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String displayDetails() {
    return "keys="
        + keys
        + ", filter="
        + filterId
        + (filter == null ? "" : " (" + filter.bits() + " bits)");
  }
}
