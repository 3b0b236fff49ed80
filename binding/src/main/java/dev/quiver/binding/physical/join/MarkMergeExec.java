package dev.quiver.binding.physical.join;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.physical.BaseExecutionPlan;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.Partitioning;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.sort.PartitionPuller;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Finishes a SEMI or ANTI join whose partitions each marked the same build rows against their own
 * share of the right input ({@link HashJoinExec#emittingMarks}): row {@code i} of every input
 * partition is the same build row, so it is kept, in one output partition, when any partition
 * marked it (SEMI) or none did (ANTI). A cluster runs the marking partitions as tasks in several
 * processes and this merge as one task reading them all; the input partitions must therefore list
 * the build rows in one order, which the planner makes canonical by sorting the gathered build
 * input on all its columns (rows that sort equal are equal, and so are their marks).
 */
public final class MarkMergeExec extends BaseExecutionPlan {
  private final ExecutionPlan input;
  private final JoinType joinType;

  /** Creates the merge of {@code input}'s marks for a SEMI or ANTI join. */
  public MarkMergeExec(ExecutionPlan input, JoinType joinType) {
    super(withoutMark(input.schema()), List.of(input));
    if (joinType != JoinType.SEMI && joinType != JoinType.ANTI) {
      throw new IllegalArgumentException("Only SEMI and ANTI join marks merge, got " + joinType);
    }
    this.input = input;
    this.joinType = joinType;
  }

  private static Schema withoutMark(Schema marked) {
    List<Field> fields = marked.getFields();
    if (fields.isEmpty()
        || !fields.get(fields.size() - 1).getName().equals(HashJoinExec.MARK_COLUMN)) {
      throw new IllegalArgumentException(
          "MarkMergeExec needs an input ending with a " + HashJoinExec.MARK_COLUMN + " column");
    }
    return new Schema(fields.subList(0, fields.size() - 1));
  }

  /** The marking join (or what reads its partitions). */
  public ExecutionPlan input() {
    return input;
  }

  /** SEMI (keep rows marked anywhere) or ANTI (keep rows marked nowhere). */
  public JoinType joinType() {
    return joinType;
  }

  @Override
  public Partitioning outputPartitioning() {
    return Partitioning.single();
  }

  @Override
  public ExecutionPlan withNewChildren(List<ExecutionPlan> children) {
    if (children.size() != 1) {
      throw new IllegalArgumentException("MarkMergeExec takes one child, got " + children.size());
    }
    return new MarkMergeExec(children.get(0), joinType);
  }

  @Override
  public String displayDetails() {
    return "join_type=" + joinType + ", inputs=" + input.partitionCount();
  }

  @Override
  protected BatchStream doExecute(int partition, TaskContext context) {
    PartitionPuller puller = new PartitionPuller(input, context, true);
    return new Merge(puller, context);
  }

  /**
   * Reads the marks of input partitions 1..n-1 first (keeping only their bits), then streams
   * partition 0's rows, keeping those whose merged mark is what the join wants.
   */
  private final class Merge implements BatchStream {
    private final PartitionPuller puller;
    private final TaskContext context;
    private long[] marked = new long[16];
    private long[] rowsPerInput;
    private long emittedFrom0;
    private boolean finished;

    Merge(PartitionPuller puller, TaskContext context) {
      this.puller = puller;
      this.context = context;
    }

    @Override
    public Schema schema() {
      return MarkMergeExec.this.schema();
    }

    @Override
    public VectorSchemaRoot next() {
      if (finished) {
        return null;
      }
      if (rowsPerInput == null) {
        rowsPerInput = new long[puller.queueCount()];
        for (int q = 1; q < rowsPerInput.length; q++) {
          VectorSchemaRoot b;
          while ((b = puller.next(q)) != null) {
            try (VectorSchemaRoot batch = b) {
              orMarks(batch, rowsPerInput[q]);
              rowsPerInput[q] += batch.getRowCount();
            }
          }
        }
      }
      boolean wanted = joinType == JoinType.SEMI;
      VectorSchemaRoot b;
      while ((b = puller.next(0)) != null) {
        try (VectorSchemaRoot batch = b) {
          int n = b.getRowCount();
          BitVector mark = (BitVector) b.getVector(b.getFieldVectors().size() - 1);
          int[] keep = new int[n];
          int k = 0;
          for (int i = 0; i < n; i++) {
            long row = emittedFrom0 + i;
            boolean any = mark.get(i) != 0 || (row < bits() && bit(row));
            keep[k] = i;
            k += any == wanted ? 1 : 0;
          }
          emittedFrom0 += n;
          if (k > 0) {
            return withoutMark(b, Arrays.copyOf(keep, k));
          }
        }
      }
      finished = true;
      for (int q = 1; q < rowsPerInput.length; q++) {
        if (rowsPerInput[q] != emittedFrom0) {
          throw new QuiverException(
              "MarkMergeExec: input partition "
                  + q
                  + " marked "
                  + rowsPerInput[q]
                  + " build rows but partition 0 marked "
                  + emittedFrom0
                  + "; the marking partitions must see the same build input");
        }
      }
      return null;
    }

    private long bits() {
      return (long) marked.length << 6;
    }

    private boolean bit(long row) {
      return ((marked[(int) (row >>> 6)] >>> row) & 1L) != 0;
    }

    private void orMarks(VectorSchemaRoot b, long first) {
      int n = b.getRowCount();
      long end = first + n;
      if (end > bits()) {
        long words = Math.max((long) marked.length * 2, (end + 63) >>> 6);
        if (words > Integer.MAX_VALUE - 8) {
          throw new QuiverException("MarkMergeExec: too many build rows to merge marks of");
        }
        marked = Arrays.copyOf(marked, (int) words);
      }
      BitVector mark = (BitVector) b.getVector(b.getFieldVectors().size() - 1);
      for (int i = 0; i < n; i++) {
        if (mark.get(i) != 0) {
          long row = first + i;
          marked[(int) (row >>> 6)] |= 1L << row;
        }
      }
      context.checkCancelled();
    }

    /** Rows {@code keep} of {@code b} without its mark column. */
    private VectorSchemaRoot withoutMark(VectorSchemaRoot b, int[] keep) {
      List<FieldVector> columns = new ArrayList<>(b.getFieldVectors());
      columns.remove(columns.size() - 1);
      try (VectorSchemaRoot rows = new VectorSchemaRoot(columns)) {
        rows.setRowCount(b.getRowCount());
        if (keep.length == b.getRowCount()) {
          List<FieldVector> moved = new ArrayList<>(columns.size());
          for (FieldVector v : columns) {
            TransferPair t = v.getTransferPair(context.allocator());
            t.transfer();
            moved.add((FieldVector) t.getTo());
          }
          return new VectorSchemaRoot(schema().getFields(), moved, keep.length);
        }
        VectorSchemaRoot taken = Take.take(rows, keep, keep.length, context.allocator());
        return new VectorSchemaRoot(schema().getFields(), taken.getFieldVectors(), keep.length);
      }
    }

    @Override
    public void close() {
      Batches.closeAll(List.of(puller));
    }
  }
}
