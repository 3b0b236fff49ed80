package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A scalar expression evaluated a whole batch at a time. Implementations are immutable and expose
 * their parameters through accessors so that a codec can serialize them.
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

  /**
   * The result as a field named {@code name}: its type and nullability, with the child fields of a
   * struct, list or map result.
   */
  default Field field(String name) {
    return new Field(name, new FieldType(nullable(), dataType(), null), null);
  }

  /** Sub-expressions, in order. */
  List<PhysicalExpr> children();
}
