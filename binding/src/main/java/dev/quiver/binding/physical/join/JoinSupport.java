package dev.quiver.binding.physical.join;

import dev.quiver.binding.dataframe.JoinType;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import dev.quiver.binding.physical.BatchStream;
import dev.quiver.binding.physical.ExecutionPlan;
import dev.quiver.binding.physical.MemoryReservation;
import dev.quiver.binding.physical.TaskContext;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.kernel.Batches;
import dev.quiver.binding.physical.kernel.Take;
import dev.quiver.binding.physical.sort.PartitionPuller;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/** Helpers shared by the join operators: schemas, output assembly, filters and input gathering. */
final class JoinSupport {
  private JoinSupport() {}

  /** Output schema: left ++ right with padded sides nullable, or left only for SEMI/ANTI. */
  static Schema outputSchema(Schema left, Schema right, JoinType type) {
    if (type == JoinType.SEMI || type == JoinType.ANTI) {
      return left;
    }
    boolean leftPadded = type == JoinType.RIGHT || type == JoinType.FULL;
    boolean rightPadded = type == JoinType.LEFT || type == JoinType.FULL;
    List<Field> fields = new ArrayList<>();
    for (Field f : left.getFields()) {
      fields.add(leftPadded ? nullable(f) : f);
    }
    for (Field f : right.getFields()) {
      fields.add(rightPadded ? nullable(f) : f);
    }
    return new Schema(fields);
  }

  /** The fields of {@code schema} that {@code projection} lists (all when null). */
  /** {@code left}'s fields followed by the non-null boolean mark a join emitting marks adds. */
  static Schema withMarkColumn(Schema left) {
    List<Field> fields = new ArrayList<>(left.getFields());
    fields.add(
        new Field(
            HashJoinExec.MARK_COLUMN,
            FieldType.notNullable(org.apache.arrow.vector.types.pojo.ArrowType.Bool.INSTANCE),
            null));
    return new Schema(fields);
  }

  /**
   * Rows {@code [offset, offset + count)} of {@code rows} with their bits of {@code marks} (null:
   * none set) as a last boolean column, in {@code schema} (see {@link #withMarkColumn}).
   */
  static VectorSchemaRoot sliceWithMarks(
      Schema schema,
      VectorSchemaRoot rows,
      int offset,
      int count,
      long[] marks,
      BufferAllocator allocator) {
    int[] idx = new int[count];
    for (int i = 0; i < count; i++) {
      idx[i] = offset + i;
    }
    List<FieldVector> vectors = new ArrayList<>(schema.getFields().size());
    try (VectorSchemaRoot taken = Take.take(rows, idx, count, allocator)) {
      for (FieldVector v : taken.getFieldVectors()) {
        TransferPair t = v.getTransferPair(allocator);
        t.transfer();
        vectors.add((FieldVector) t.getTo());
      }
    }
    Field markField = schema.getFields().get(schema.getFields().size() - 1);
    BitVector mark = (BitVector) markField.createVector(allocator);
    vectors.add(mark);
    try {
      mark.allocateNew(count);
      for (int i = 0; i < count; i++) {
        int row = offset + i;
        mark.set(i, marks != null && ((marks[row >>> 6] >>> row) & 1L) != 0 ? 1 : 0);
      }
      mark.setValueCount(count);
    } catch (RuntimeException e) {
      Batches.closeAll(new ArrayList<AutoCloseable>(vectors));
      throw e;
    }
    VectorSchemaRoot out = new VectorSchemaRoot(schema.getFields(), vectors, count);
    return out;
  }

  static Schema projected(Schema schema, int[] projection) {
    if (projection == null) {
      return schema;
    }
    List<Field> fields = new ArrayList<>(projection.length);
    boolean[] seen = new boolean[schema.getFields().size()];
    for (int c : projection) {
      if (c < 0 || c >= seen.length || seen[c]) {
        throw new IllegalArgumentException(
            "join projection must list distinct output columns, got "
                + java.util.Arrays.toString(projection));
      }
      seen[c] = true;
      fields.add(schema.getFields().get(c));
    }
    return new Schema(fields);
  }

  /** Schema a join filter sees: left ++ right columns. */
  static Schema filterSchema(Schema left, Schema right) {
    List<Field> fields = new ArrayList<>(left.getFields());
    fields.addAll(right.getFields());
    return new Schema(fields);
  }

  private static Field nullable(Field f) {
    if (f.isNullable()) {
      return f;
    }
    FieldType t = new FieldType(true, f.getType(), f.getDictionary(), f.getMetadata());
    return new Field(f.getName(), t, f.getChildren());
  }

  /** Whether build rows without a match must be emitted (build side on the left). */
  static boolean emitsUnmatchedLeft(JoinType type) {
    return type == JoinType.LEFT || type == JoinType.FULL;
  }

  /** Whether probe rows without a match must be emitted (probe side on the right). */
  static boolean emitsUnmatchedRight(JoinType type) {
    return type == JoinType.RIGHT || type == JoinType.FULL;
  }

  /**
   * Gathers rows {@code li[0..n)} of {@code left} and {@code ri[0..n)} of {@code right} (-1 = null)
   * into one batch of {@code schema} (left columns first).
   */
  static VectorSchemaRoot gatherPairs(
      Schema schema,
      VectorSchemaRoot left,
      int[] li,
      VectorSchemaRoot right,
      int[] ri,
      int n,
      BufferAllocator allocator) {
    return gatherPairs(schema, left, null, li, right, null, ri, n, allocator);
  }

  /**
   * As {@link #gatherPairs(Schema, VectorSchemaRoot, int[], VectorSchemaRoot, int[], int,
   * BufferAllocator)} with, per side, which columns may have nulls ({@link #columnsWithNulls}), or
   * null to count them: a build side gathered batch after batch counts them once.
   */
  static VectorSchemaRoot gatherPairs(
      Schema schema,
      VectorSchemaRoot left,
      boolean[] leftNulls,
      int[] li,
      VectorSchemaRoot right,
      boolean[] rightNulls,
      int[] ri,
      int n,
      BufferAllocator allocator) {
    return gatherPairs(schema, left, leftNulls, li, right, rightNulls, ri, n, allocator, null);
  }

  /**
   * As above, gathering only the left ++ right columns {@code projection} lists into {@code schema}
   * (all of them when null).
   */
  static VectorSchemaRoot gatherPairs(
      Schema schema,
      VectorSchemaRoot left,
      boolean[] leftNulls,
      int[] li,
      VectorSchemaRoot right,
      boolean[] rightNulls,
      int[] ri,
      int n,
      BufferAllocator allocator,
      int[] projection) {
    if (projection != null) {
      List<FieldVector> out = new ArrayList<>(projection.length);
      try {
        int leftWidth = left.getFieldVectors().size();
        for (int c = 0; c < projection.length; c++) {
          int col = projection[c];
          boolean fromLeft = col < leftWidth;
          FieldVector v = fromLeft ? left.getVector(col) : right.getVector(col - leftWidth);
          boolean[] nullsOf = fromLeft ? leftNulls : rightNulls;
          int i = fromLeft ? col : col - leftWidth;
          boolean nulls = nullsOf != null ? nullsOf[i] : v.getNullCount() > 0;
          FieldVector taken = Take.take(v, nulls, fromLeft ? li : ri, n, allocator);
          out.add(retype(taken, schema.getFields().get(c), allocator));
        }
      } catch (RuntimeException e) {
        out.forEach(FieldVector::close);
        throw e;
      }
      return new VectorSchemaRoot(schema, out, n);
    }
    List<FieldVector> out = new ArrayList<>(schema.getFields().size());
    try {
      int c = 0;
      List<FieldVector> lv = left.getFieldVectors();
      for (int i = 0; i < lv.size(); i++) {
        FieldVector v = lv.get(i);
        boolean nulls = leftNulls != null ? leftNulls[i] : v.getNullCount() > 0;
        FieldVector taken = Take.take(v, nulls, li, n, allocator);
        out.add(retype(taken, schema.getFields().get(c++), allocator));
      }
      if (right != null) {
        List<FieldVector> rv = right.getFieldVectors();
        for (int i = 0; i < rv.size(); i++) {
          FieldVector v = rv.get(i);
          boolean nulls = rightNulls != null ? rightNulls[i] : v.getNullCount() > 0;
          FieldVector taken = Take.take(v, nulls, ri, n, allocator);
          out.add(retype(taken, schema.getFields().get(c++), allocator));
        }
      }
    } catch (RuntimeException e) {
      out.forEach(FieldVector::close);
      throw e;
    }
    return new VectorSchemaRoot(schema, out, n);
  }

  /** Whether each column of {@code batch} has a null, for gathering from it repeatedly. */
  static boolean[] columnsWithNulls(VectorSchemaRoot batch) {
    List<FieldVector> vectors = batch.getFieldVectors();
    boolean[] out = new boolean[vectors.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = vectors.get(i).getNullCount() > 0;
    }
    return out;
  }

  /** Gives a vector the field of the output schema (nullability) without copying data. */
  private static FieldVector retype(FieldVector v, Field field, BufferAllocator allocator) {
    if (v.getField().equals(field)) {
      return v;
    }
    TransferPair pair = v.getTransferPair(field, allocator);
    pair.transfer();
    v.close();
    return (FieldVector) pair.getTo();
  }

  /** Evaluates a join filter; null results count as false. */
  static boolean[] evaluateFilter(
      PhysicalExpr filter, VectorSchemaRoot batch, BufferAllocator alloc) {
    int n = batch.getRowCount();
    boolean[] keep = new boolean[n];
    try (FieldVector v = filter.evaluate(batch, alloc)) {
      if (v instanceof BitVector bits) {
        ArrowBuf data = bits.getDataBuffer();
        ArrowBuf validity = bits.getValidityBuffer();
        boolean hasNulls = bits.getNullCount() > 0;
        for (int i = 0; i < n; i++) {
          keep[i] =
              BitVectorHelper.get(data, i) != 0
                  && (!hasNulls || BitVectorHelper.get(validity, i) != 0);
        }
      } else if (v.getField().getType().getTypeID()
          != org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID.Null) {
        throw new dev.quiver.binding.errors.QueryTypeException(
            "Join filter " + filter + " must be boolean but is " + v.getField().getType());
      }
    }
    return keep;
  }

  /** Keeps the rows of {@code batch} whose {@code keep} flag is set; closes {@code batch}. */
  static VectorSchemaRoot select(VectorSchemaRoot batch, boolean[] keep, BufferAllocator alloc) {
    int n = batch.getRowCount();
    int[] idx = new int[n];
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (keep[i]) {
        idx[k++] = i;
      }
    }
    if (k == n) {
      return batch;
    }
    try (batch) {
      return Take.take(batch, idx, k, alloc);
    }
  }

  /**
   * Drains one partition ({@code partition >= 0}) or all partitions (-1, pulled concurrently) of
   * {@code plan} into a single batch, reserving its bytes; the reservation stays with the caller.
   */
  static VectorSchemaRoot gather(
      ExecutionPlan plan, int partition, TaskContext context, MemoryReservation reservation) {
    List<VectorSchemaRoot> batches = new ArrayList<>();
    BufferAllocator alloc = context.allocator();
    try {
      if (partition >= 0 || plan.partitionCount() == 1) {
        try (BatchStream s = plan.execute(Math.max(partition, 0), context)) {
          drainInto(s::next, batches, reservation);
        }
      } else {
        try (PartitionPuller puller = new PartitionPuller(plan, context, false)) {
          drainInto(() -> puller.next(0), batches, reservation);
        }
      }
      if (batches.size() == 1) {
        VectorSchemaRoot only = batches.get(0);
        batches.clear();
        return only;
      }
      reservation.grow(batches.stream().mapToLong(Batches::sizeInBytes).sum());
      VectorSchemaRoot all = Batches.concat(plan.schema(), batches, alloc);
      Batches.closeAll(batches);
      batches.clear();
      reservation.resize(Batches.sizeInBytes(all));
      return all;
    } catch (OutOfMemoryException e) {
      throw new ResourcesExhaustedException(
          "Resources exhausted: "
              + reservation.consumer()
              + " could not allocate Arrow memory ("
              + e.getMessage()
              + "); raise quiver.execution.memory_limit",
          e);
    } finally {
      Batches.closeAll(batches);
    }
  }

  private static void drainInto(
      java.util.function.Supplier<VectorSchemaRoot> next,
      List<VectorSchemaRoot> batches,
      MemoryReservation reservation) {
    VectorSchemaRoot b;
    while ((b = next.get()) != null) {
      if (b.getRowCount() == 0) {
        b.close();
        continue;
      }
      batches.add(b);
      reservation.grow(Batches.sizeInBytes(b));
    }
  }

  /** Shifts column references by {@code offset} (for right-side expressions in the output). */
  static List<PhysicalExpr> shift(List<PhysicalExpr> exprs, int offset) {
    List<PhysicalExpr> out = new ArrayList<>();
    for (PhysicalExpr e : exprs) {
      if (!(e instanceof ColumnExpr c)) {
        return null;
      }
      out.add(
          new ColumnExpr(
              c.index() + offset, c.name(), c.dataType(), c.nullable(), c.childFields()));
    }
    return out;
  }

  /** Sets bit {@code i}. */
  static void setBit(long[] bits, int i) {
    bits[i >>> 6] |= 1L << i;
  }

  /** Row numbers whose flag equals {@code wanted}, ascending. */
  static int[] rowsWhere(boolean[] flags, boolean wanted) {
    int[] idx = new int[flags.length];
    int k = 0;
    // Branch-free: every row is written, and the count moves past it only when it qualifies (an
    // unpredictable branch per row cost more than the write).
    for (int i = 0; i < flags.length; i++) {
      idx[k] = i;
      k += flags[i] == wanted ? 1 : 0;
    }
    return Arrays.copyOf(idx, k);
  }

  /** Row numbers in {@code [0, count)} whose bit equals {@code wanted}, ascending. */
  static int[] rowsWhere(long[] bits, int count, boolean wanted) {
    int[] idx = new int[count];
    int k = 0;
    long flip = wanted ? 0 : -1L;
    for (int i = 0; i < count; i++) {
      idx[k] = i;
      k += (int) (((bits[i >>> 6] ^ flip) >>> i) & 1L);
    }
    return Arrays.copyOf(idx, k);
  }
}
