package dev.quiver.binding.physical.expr;

import dev.quiver.binding.udf.ScalarUdf;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** A UDF that forwards to another, so package-private test UDFs can be used elsewhere. */
public class ForwardingUdf implements ScalarUdf {
  private final ScalarUdf delegate;

  public ForwardingUdf(ScalarUdf delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<ArrowType> argumentTypes() {
    return delegate.argumentTypes();
  }

  @Override
  public ArrowType returnType() {
    return delegate.returnType();
  }

  @Override
  public FieldVector invoke(List<FieldVector> arguments, int rowCount, BufferAllocator allocator) {
    return delegate.invoke(arguments, rowCount, allocator);
  }
}
