package dev.quiver.distributed.codec;

import dev.quiver.binding.udf.ScalarUdf;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** A test UDF: adds its two BIGINT arguments. */
final class Add2Udf implements ScalarUdf {
  static final ArrowType BIGINT = new ArrowType.Int(64, true);

  @Override
  public String name() {
    return "add2";
  }

  @Override
  public List<ArrowType> argumentTypes() {
    return List.of(BIGINT, BIGINT);
  }

  @Override
  public ArrowType returnType() {
    return BIGINT;
  }

  @Override
  public FieldVector invoke(List<FieldVector> arguments, int rowCount, BufferAllocator allocator) {
    BigIntVector a = (BigIntVector) arguments.get(0);
    BigIntVector b = (BigIntVector) arguments.get(1);
    BigIntVector out = new BigIntVector("add2", allocator);
    out.allocateNew(rowCount);
    for (int i = 0; i < rowCount; i++) {
      if (a.isNull(i) || b.isNull(i)) {
        out.setNull(i);
      } else {
        out.set(i, a.get(i) + b.get(i));
      }
    }
    out.setValueCount(rowCount);
    return out;
  }
}
