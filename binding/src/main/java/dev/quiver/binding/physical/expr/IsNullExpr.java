package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** {@code child IS NULL}, or {@code IS NOT NULL} when negated; never null. */
public record IsNullExpr(PhysicalExpr child, boolean negated) implements PhysicalExpr {

  @Override
  public ArrowType dataType() {
    return ArrowType.Bool.INSTANCE;
  }

  @Override
  public boolean nullable() {
    return false;
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(child);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand o = Operand.of(child, batch, allocator)) {
      long[] valid = o.validity();
      if (valid == null) {
        valid = Bits.ones(n);
      }
      long[] value = new long[valid.length];
      for (int j = 0; j < value.length; j++) {
        value[j] = negated ? valid[j] : ~valid[j];
      }
      return BoolWords.write(value, null, n, allocator);
    }
  }

  @Override
  public String toString() {
    return child + (negated ? " IS NOT NULL" : " IS NULL");
  }
}
