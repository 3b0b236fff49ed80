package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Reference to input column {@code index}; evaluation shares the column's buffers, no copy. A
 * struct, list or map column carries its child fields in {@code childFields}.
 */
public record ColumnExpr(
    int index, String name, ArrowType dataType, boolean nullable, List<Field> childFields)
    implements PhysicalExpr {

  public ColumnExpr {
    childFields = childFields == null ? List.of() : List.copyOf(childFields);
  }

  /** A reference to a column of a type without child fields. */
  public ColumnExpr(int index, String name, ArrowType dataType, boolean nullable) {
    this(index, name, dataType, nullable, List.of());
  }

  /** A reference to input column {@code index} described by {@code field}. */
  public static ColumnExpr of(int index, Field field) {
    return new ColumnExpr(
        index, field.getName(), field.getType(), field.isNullable(), field.getChildren());
  }

  /** The input columns {@code expr} reads, ascending, each once. */
  public static int[] referencedBy(PhysicalExpr expr) {
    java.util.BitSet seen = new java.util.BitSet();
    java.util.ArrayDeque<PhysicalExpr> todo = new java.util.ArrayDeque<>(List.of(expr));
    while (!todo.isEmpty()) {
      PhysicalExpr e = todo.pop();
      if (e instanceof ColumnExpr c) {
        seen.set(c.index());
      }
      todo.addAll(e.children());
    }
    return seen.stream().toArray();
  }

  @Override
  public Field field(String fieldName) {
    return new Field(fieldName, new FieldType(nullable, dataType, null), childFields);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    FieldVector source = batch.getVector(index);
    TransferPair pair = source.getTransferPair(source.getField(), allocator);
    // A split from offset 0 slices the buffers and bumps their reference counts: zero-copy.
    pair.splitAndTransfer(0, batch.getRowCount());
    return (FieldVector) pair.getTo();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of();
  }

  @Override
  public String toString() {
    return name + "@" + index;
  }
}
