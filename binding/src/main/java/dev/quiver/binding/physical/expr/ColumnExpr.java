package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.TransferPair;

/** Reference to input column {@code index}; evaluation shares the column's buffers, no copy. */
public record ColumnExpr(int index, String name, ArrowType dataType, boolean nullable)
    implements PhysicalExpr {

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    FieldVector source = batch.getVector(index);
    TransferPair pair = source.getTransferPair(source.getField(), allocator);
    // A split from offset 0 slices the buffers and bumps their reference counts: zero-copy.
    pair.splitAndTransfer(0, batch.getRowCount());
    return (FieldVector) pair.getTo();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of();
  }

  @Override
  public String toString() {
    return name + "@" + index;
  }
}
