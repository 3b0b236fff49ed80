package dev.quiver.binding.udf;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A user-defined scalar function, evaluated a batch at a time over Arrow vectors. Named
 * case-insensitively in SQL.
 */
public interface ScalarUdf {
  /** Name used in SQL and DataFrame expressions. */
  String name();

  /** Types of the arguments; arguments are cast to these. */
  List<ArrowType> argumentTypes();

  /** Type of the result. */
  ArrowType returnType();

  /**
   * Computes {@code rowCount} results from argument vectors of that length. The result is allocated
   * from {@code allocator} and owned by the caller; the arguments stay the caller's.
   */
  FieldVector invoke(List<FieldVector> arguments, int rowCount, BufferAllocator allocator);
}
