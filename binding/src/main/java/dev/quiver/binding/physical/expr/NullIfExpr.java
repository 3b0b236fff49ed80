package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** {@code NULLIF(left, right)}: null where left = right, else left. */
public record NullIfExpr(PhysicalExpr left, PhysicalExpr right) implements PhysicalExpr {

  /** Checks that the operands are comparable. */
  public NullIfExpr {
    ComparisonExpr.commonKind(left.dataType(), right.dataType(), "NULLIF");
  }

  @Override
  public ArrowType dataType() {
    return left.dataType();
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(left, right);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand l = Operand.ofVector(left.evaluate(batch, allocator));
        Operand r = Operand.of(right, batch, allocator)) {
      int[] which = new int[n];
      if (!l.allNull() && !r.allNull()) {
        long[] eq = ComparisonExpr.compare(l, r, ComparisonExpr.Op.EQ, n);
        long[] rv = r.validity();
        for (int i = 0; i < n; i++) {
          if (Bits.get(eq, i) && Bits.valid(rv, i)) {
            which[i] = -1;
          }
        }
      }
      return Vectors.gather(dataType(), new FieldVector[] {l.vector}, which, n, allocator);
    }
  }

  @Override
  public String toString() {
    return "NULLIF(" + left + ", " + right + ")";
  }
}
