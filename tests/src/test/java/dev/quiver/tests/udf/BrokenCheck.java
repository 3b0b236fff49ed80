package dev.quiver.tests.udf;

import dev.quiver.binding.udf.ScalarUdf;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code broken_check(BIGINT) -> BIGINT}: an extension with a bug, whose internal check fails on
 * every call; what reaches the user must be a typed internal error, never the bare class name.
 */
public final class BrokenCheck implements ScalarUdf {
  @Override
  public String name() {
    return "broken_check";
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
    throw new AssertionError("broken_check's invariant failed");
  }
}
