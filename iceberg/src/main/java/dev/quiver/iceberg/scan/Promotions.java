package dev.quiver.iceberg.scan;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * The type promotions Iceberg allows a column (int to long, float to double, a decimal to a higher
 * precision at the same scale), applied to vectors read from files written before the promotion.
 */
final class Promotions {
  private Promotions() {}

  /** Whether a file column of {@code file}'s type reads as {@code target}. */
  static boolean readable(Field file, Field target) {
    ArrowType from = file.getType();
    ArrowType to = target.getType();
    if (!file.getChildren().isEmpty() || !target.getChildren().isEmpty()) {
      // Nested columns are read as stored: their fields' evolution is not mapped yet.
      return from.equals(to) && sameChildren(file, target);
    }
    if (from.equals(to)) {
      return true;
    }
    if (from instanceof ArrowType.Int a && to instanceof ArrowType.Int b) {
      return a.getBitWidth() == 32 && b.getBitWidth() == 64 && a.getIsSigned() && b.getIsSigned();
    }
    if (from instanceof ArrowType.FloatingPoint a && to instanceof ArrowType.FloatingPoint b) {
      return a.getPrecision() == FloatingPointPrecision.SINGLE
          && b.getPrecision() == FloatingPointPrecision.DOUBLE;
    }
    if (from instanceof ArrowType.Decimal a && to instanceof ArrowType.Decimal b) {
      return a.getScale() == b.getScale()
          && a.getPrecision() <= b.getPrecision()
          && a.getBitWidth() == 128
          && b.getBitWidth() == 128;
    }
    return false;
  }

  private static boolean sameChildren(Field a, Field b) {
    if (a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      Field x = a.getChildren().get(i);
      Field y = b.getChildren().get(i);
      if (!x.getName().equals(y.getName())
          || !x.getType().equals(y.getType())
          || !sameChildren(x, y)) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code vector} as a vector of {@code target} (its name and type); takes ownership of {@code
   * vector}, closing it, also on failure.
   */
  static FieldVector convert(FieldVector vector, Field target, BufferAllocator allocator) {
    try (vector) {
      int n = vector.getValueCount();
      ArrowType from = vector.getField().getType();
      if (from.equals(target.getType())) {
        TransferPair pair = vector.getTransferPair(target, allocator);
        pair.transfer();
        return (FieldVector) pair.getTo();
      }
      FieldVector out = target.createVector(allocator);
      try {
        if (vector instanceof IntVector in && out instanceof BigIntVector o) {
          o.allocateNew(n);
          for (int i = 0; i < n; i++) {
            if (!in.isNull(i)) {
              o.set(i, in.get(i));
            }
          }
        } else if (vector instanceof Float4Vector in && out instanceof Float8Vector o) {
          o.allocateNew(n);
          for (int i = 0; i < n; i++) {
            if (!in.isNull(i)) {
              o.set(i, in.get(i));
            }
          }
        } else if (vector instanceof DecimalVector in && out instanceof DecimalVector o) {
          // Same scale, so the unscaled 128-bit values carry over as they are.
          o.allocateNew(n);
          o.getDataBuffer().setBytes(0, in.getDataBuffer(), 0, (long) n * DecimalVector.TYPE_WIDTH);
          o.getValidityBuffer()
              .setBytes(0, in.getValidityBuffer(), 0, BitVectorHelper.getValidityBufferSize(n));
        } else {
          throw new IllegalStateException(
              "No promotion from " + from + " to " + target.getType() + " for " + target.getName());
        }
        out.setValueCount(n);
        return out;
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
    }
  }

  /** A vector of {@code rows} NULLs of {@code target}'s type. */
  static FieldVector nulls(Field target, int rows, BufferAllocator allocator) {
    FieldVector v = target.createVector(allocator);
    try {
      v.setInitialCapacity(rows);
      v.allocateNew();
      v.setValueCount(rows);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }
}
