package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A scalar expression evaluated a whole batch at a time. Implementations are immutable and
 * expose their parameters through accessors so that a codec can serialize them.
 */
public interface PhysicalExpr {
  /** Type of the result. */
  ArrowType dataType();

  /** Whether the result may contain nulls. */
  boolean nullable();

  /**
   * Evaluates over {@code batch}. The result has {@code batch.getRowCount()} values, is allocated
   * from {@code allocator} (or shares buffers with the batch) and is owned by the caller.
   */
  FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator);

  /** Sub-expressions, in order. */
  List<PhysicalExpr> children();
}
