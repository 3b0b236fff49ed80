package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Converts struct, list and map vectors read from files to the engine's internal types: the target
 * vector takes over the source's buffers node by node (the layouts of a struct, list or map do not
 * depend on the names or zones of their parts), and only leaves whose values change (a timestamp in
 * another unit, a LargeUtf8 string) are converted by {@link TypeNormalizer}.
 */
final class NestedVectors {
  private NestedVectors() {}

  /** Returns {@code vector} as {@code target}'s type; closes {@code vector}. */
  static FieldVector convert(FieldVector vector, Field target, BufferAllocator allocator) {
    if (vector.getField().equals(target)) {
      return vector;
    }
    FieldVector out = target.createVector(allocator);
    try {
      load(vector, out, target, allocator);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    } finally {
      vector.close();
    }
  }

  private static void load(
      FieldVector from, FieldVector to, Field target, BufferAllocator allocator) {
    ArrowType fromType = from.getField().getType();
    ArrowType toType = target.getType();
    List<FieldVector> fromChildren = from.getChildrenFromFields();
    List<FieldVector> toChildren = to.getChildrenFromFields();
    boolean nested = !target.getChildren().isEmpty();
    if (nested) {
      if (fromType.getTypeID() != toType.getTypeID() || fromChildren.size() != toChildren.size()) {
        throw new DataSourceException(
            "Cannot read column part '"
                + target.getName()
                + "' of type "
                + fromType
                + " as "
                + toType);
      }
      to.loadFieldBuffers(
          new ArrowFieldNode(from.getValueCount(), from.getNullCount()), from.getFieldBuffers());
      for (int i = 0; i < toChildren.size(); i++) {
        load(fromChildren.get(i), toChildren.get(i), target.getChildren().get(i), allocator);
      }
      return;
    }
    if (sameLayout(fromType, toType)) {
      to.loadFieldBuffers(
          new ArrowFieldNode(from.getValueCount(), from.getNullCount()), from.getFieldBuffers());
      return;
    }
    TransferPair pair = from.getTransferPair(from.getField(), allocator);
    pair.transfer();
    try (FieldVector converted =
        TypeNormalizer.convert((FieldVector) pair.getTo(), target, null, allocator)) {
      to.loadFieldBuffers(
          new ArrowFieldNode(converted.getValueCount(), converted.getNullCount()),
          converted.getFieldBuffers());
    }
  }

  /** Whether values of the two leaf types have the same bytes (e.g. timestamps of one unit). */
  private static boolean sameLayout(ArrowType a, ArrowType b) {
    if (a.equals(b)) {
      return true;
    }
    if (a instanceof ArrowType.Timestamp x && b instanceof ArrowType.Timestamp y) {
      return x.getUnit() == y.getUnit();
    }
    return false;
  }
}
