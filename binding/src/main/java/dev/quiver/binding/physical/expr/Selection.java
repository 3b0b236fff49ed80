package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryCancelledException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.ResourcesExhaustedException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Evaluation restricted to selected rows, for CASE, AND and OR: a branch is first evaluated on the
 * whole batch (fast); only if that raises a data error is it re-evaluated on the rows that actually
 * reach it, so {@code CASE WHEN x <> 0 THEN 1 / x END} does not fail on x = 0.
 */
final class Selection {
  private Selection() {}

  static boolean all(long[] mask, int n) {
    int full = n >>> 6;
    for (int j = 0; j < full; j++) {
      if (mask[j] != -1L) {
        return false;
      }
    }
    int rem = n & 63;
    return rem == 0 || (mask[full] & ((1L << rem) - 1)) == ((1L << rem) - 1);
  }

  static boolean none(long[] mask) {
    for (long w : mask) {
      if (w != 0) {
        return false;
      }
    }
    return true;
  }

  /** Evaluates {@code e}; rows outside {@code mask} may hold anything (nulls if re-evaluated). */
  static FieldVector evaluate(
      PhysicalExpr e, VectorSchemaRoot batch, long[] mask, BufferAllocator allocator) {
    int n = batch.getRowCount();
    if (mask == null || all(mask, n)) {
      return e.evaluate(batch, allocator);
    }
    try {
      return e.evaluate(batch, allocator);
    } catch (ResourcesExhaustedException | QueryCancelledException ex) {
      throw ex;
    } catch (QuiverException ex) {
      return evaluateOn(e, batch, mask, allocator);
    }
  }

  /** Evaluates {@code e} only on the rows in {@code mask}; other rows are null. */
  static FieldVector evaluateOn(
      PhysicalExpr e, VectorSchemaRoot batch, long[] mask, BufferAllocator allocator) {
    int n = batch.getRowCount();
    int count = 0;
    for (long w : mask) {
      count += Long.bitCount(w);
    }
    int[] rows = new int[count];
    int k = 0;
    for (int i = 0; i < n && k < count; i++) {
      if (Bits.get(mask, i)) {
        rows[k++] = i;
      }
    }
    try (VectorSchemaRoot sub = take(batch, rows, allocator);
        FieldVector part = e.evaluate(sub, allocator)) {
      FieldVector out = part.getField().createVector(allocator);
      try {
        out.setInitialCapacity(Math.max(n, 1));
        out.allocateNew();
        for (int j = 0; j < rows.length && !(out instanceof NullVector); j++) {
          out.copyFromSafe(j, rows[j], part);
        }
        out.setValueCount(n);
        return out;
      } catch (RuntimeException ex) {
        out.close();
        throw Vectors.rethrow(ex);
      }
    }
  }

  /** A new batch holding rows {@code rows} of {@code batch}, in order. */
  static VectorSchemaRoot take(VectorSchemaRoot batch, int[] rows, BufferAllocator allocator) {
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (FieldVector v : batch.getFieldVectors()) {
        FieldVector t = v.getField().createVector(allocator);
        vectors.add(t);
        t.setInitialCapacity(Math.max(rows.length, 1));
        t.allocateNew();
        for (int j = 0; j < rows.length && !(t instanceof NullVector); j++) {
          t.copyFromSafe(rows[j], j, v);
        }
        t.setValueCount(rows.length);
      }
    } catch (RuntimeException ex) {
      vectors.forEach(FieldVector::close);
      throw Vectors.rethrow(ex);
    }
    return new VectorSchemaRoot(batch.getSchema().getFields(), vectors, rows.length);
  }
}
