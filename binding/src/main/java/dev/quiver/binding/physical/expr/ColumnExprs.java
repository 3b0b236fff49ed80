package dev.quiver.binding.physical.expr;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.util.TransferPair;

/** Zero-copy sharing of vectors between owners. */
final class ColumnExprs {
  private ColumnExprs() {}

  /** A new vector owned by the caller that shares {@code v}'s buffers (reference counted). */
  static FieldVector share(FieldVector v, BufferAllocator allocator) {
    if (v instanceof NullVector) {
      return new NullVector("expr", v.getValueCount());
    }
    TransferPair pair = v.getTransferPair(v.getField(), allocator);
    pair.splitAndTransfer(0, v.getValueCount());
    return (FieldVector) pair.getTo();
  }
}
