package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** {@code left IS [NOT] DISTINCT FROM right}: equality where two nulls are equal; never null. */
public record IsDistinctFromExpr(PhysicalExpr left, PhysicalExpr right, boolean negated)
    implements PhysicalExpr {

  /** Checks that the operands are comparable. */
  public IsDistinctFromExpr {
    ComparisonExpr.commonKind(left.dataType(), right.dataType(), "IS DISTINCT FROM");
  }

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
    return List.of(left, right);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand l = Operand.of(left, batch, allocator);
        Operand r = Operand.of(right, batch, allocator)) {
      long[] va = l.validity() == null ? Bits.ones(n) : l.validity();
      long[] vb = r.validity() == null ? Bits.ones(n) : r.validity();
      long[] eq =
          l.allNull() || r.allNull()
              ? new long[va.length]
              : ComparisonExpr.compare(l, r, ComparisonExpr.Op.EQ, n);
      long[] value = new long[va.length];
      for (int j = 0; j < value.length; j++) {
        long distinct = (va[j] ^ vb[j]) | (va[j] & vb[j] & ~eq[j]);
        value[j] = negated ? ~distinct : distinct;
      }
      return BoolWords.write(value, null, n, allocator);
    }
  }

  @Override
  public String toString() {
    return left + (negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ") + right;
  }
}
