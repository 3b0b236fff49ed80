package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Logical NOT; NOT NULL is NULL. */
public record NotExpr(PhysicalExpr child) implements PhysicalExpr {

  /** Checks the operand is boolean. */
  public NotExpr {
    BoolWords.checkBool(child, "NOT");
  }

  @Override
  public ArrowType dataType() {
    return ArrowType.Bool.INSTANCE;
  }

  @Override
  public boolean nullable() {
    return child.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(child);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (FieldVector v = child.evaluate(batch, allocator)) {
      BoolWords b = BoolWords.of(v, n);
      long[] value = new long[b.value.length];
      for (int j = 0; j < value.length; j++) {
        value[j] = ~b.value[j];
      }
      return BoolWords.write(value, b.valid, n, allocator);
    }
  }

  @Override
  public String toString() {
    return "NOT " + child;
  }
}
