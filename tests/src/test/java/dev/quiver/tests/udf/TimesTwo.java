package dev.quiver.tests.udf;

import dev.quiver.binding.udf.ScalarUdf;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** {@code times_two(BIGINT) -> BIGINT}: a UDF that executors only know from their --classpath. */
public final class TimesTwo implements ScalarUdf {
  @Override
  public String name() {
    return "times_two";
  }

  @Override
  public List<ArrowType> argumentTypes() {
    return List.of(new ArrowType.Int(64, true));
  }

  @Override
  public ArrowType returnType() {
    return new ArrowType.Int(64, true);
  }

  @Override
  public FieldVector invoke(List<FieldVector> arguments, int rowCount, BufferAllocator allocator) {
    BigIntVector in = (BigIntVector) arguments.get(0);
    BigIntVector out = new BigIntVector("times_two", allocator);
    out.allocateNew(rowCount);
    for (int i = 0; i < rowCount; i++) {
      if (in.isNull(i)) {
        out.setNull(i);
      } else {
        out.set(i, in.get(i) * 2);
      }
    }
    out.setValueCount(rowCount);
    return out;
  }
}
