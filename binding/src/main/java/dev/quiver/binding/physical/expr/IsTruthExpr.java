package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** {@code child IS [NOT] TRUE / FALSE}; never null. */
public record IsTruthExpr(PhysicalExpr child, Test test) implements PhysicalExpr {

  /** Which truth test. */
  public enum Test {
    IS_TRUE,
    IS_NOT_TRUE,
    IS_FALSE,
    IS_NOT_FALSE
  }

  /** Checks the operand is boolean. */
  public IsTruthExpr {
    BoolWords.checkBool(child, test.name().replace('_', ' '));
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
    return List.of(child);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (FieldVector v = child.evaluate(batch, allocator)) {
      BoolWords b = BoolWords.of(v, n);
      long[] value = new long[b.value.length];
      for (int j = 0; j < value.length; j++) {
        switch (test) {
          case IS_TRUE:
            value[j] = b.trueWord(j);
            break;
          case IS_NOT_TRUE:
            value[j] = ~b.trueWord(j);
            break;
          case IS_FALSE:
            value[j] = b.falseWord(j);
            break;
          default:
            value[j] = ~b.falseWord(j);
        }
      }
      return BoolWords.write(value, null, n, allocator);
    }
  }

  @Override
  public String toString() {
    return child + " " + test.name().replace('_', ' ');
  }
}
