package dev.quiver.binding.physical.join;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Test-only predicate {@code column a < column b} over two integer columns; null if either is. */
record LessThanExpr(int a, int b) implements PhysicalExpr {
  @Override
  public ArrowType dataType() {
    return ArrowType.Bool.INSTANCE;
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    FieldVector x = batch.getVector(a);
    FieldVector y = batch.getVector(b);
    BitVector out = new BitVector("lt", allocator);
    out.allocateNew(Math.max(n, 1));
    for (int i = 0; i < n; i++) {
      if (x.isNull(i) || y.isNull(i)) {
        out.setNull(i);
      } else {
        long xv = ((BaseIntVector) x).getValueAsLong(i);
        long yv = ((BaseIntVector) y).getValueAsLong(i);
        out.set(i, xv < yv ? 1 : 0);
      }
    }
    out.setValueCount(n);
    return out;
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of();
  }

  @Override
  public String toString() {
    return "#" + a + " < #" + b;
  }
}
