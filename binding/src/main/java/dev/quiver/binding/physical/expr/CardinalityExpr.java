package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** {@code CARDINALITY(c)}: the number of elements of a list or entries of a map; NULL for NULL. */
public record CardinalityExpr(PhysicalExpr container, ArrowType dataType) implements PhysicalExpr {

  public CardinalityExpr {
    ArrowType t = container.dataType();
    if (!(t instanceof ArrowType.List) && !(t instanceof ArrowType.Map)) {
      throw new QueryTypeException("CARDINALITY needs a LIST or a MAP, got " + Vectors.sqlName(t));
    }
    if (!(dataType instanceof ArrowType.Int i) || i.getBitWidth() < 32) {
      throw new QueryTypeException("CARDINALITY returns INTEGER or BIGINT, not " + dataType);
    }
  }

  @Override
  public boolean nullable() {
    return container.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(container);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (FieldVector c = container.evaluate(batch, allocator)) {
      ListVector list = (ListVector) c;
      boolean wide = ((ArrowType.Int) dataType).getBitWidth() == 64;
      FieldVector out =
          wide
              ? new BigIntVector("cardinality", allocator)
              : new IntVector("cardinality", allocator);
      try {
        out.setInitialCapacity(Math.max(n, 1));
        out.allocateNew();
        for (int i = 0; i < n; i++) {
          if (list.isNull(i)) {
            continue;
          }
          int size = list.getElementEndIndex(i) - list.getElementStartIndex(i);
          if (wide) {
            ((BigIntVector) out).set(i, size);
          } else {
            ((IntVector) out).set(i, size);
          }
        }
        out.setValueCount(n);
        return out;
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
    }
  }

  @Override
  public String toString() {
    return "cardinality(" + container + ")";
  }
}
