package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.kernel.Take;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.TransferPair;

/**
 * {@code s.name}: field {@code index} of a struct; NULL where the struct is NULL. Shares the
 * field's buffers when no struct is NULL, else gathers its values.
 */
public record StructFieldExpr(PhysicalExpr input, int index) implements PhysicalExpr {

  public StructFieldExpr {
    Field struct = input.field("struct");
    if (!(struct.getType() instanceof ArrowType.Struct)) {
      throw new QueryTypeException(
          "Field access needs a STRUCT value, got " + Vectors.sqlName(struct.getType()));
    }
    if (index < 0 || index >= struct.getChildren().size()) {
      throw new QueryTypeException(
          "A STRUCT of " + struct.getChildren().size() + " fields has no field " + (index + 1));
    }
  }

  private Field part() {
    return input.field("struct").getChildren().get(index);
  }

  /** The name of the field read. */
  public String fieldName() {
    return part().getName();
  }

  @Override
  public ArrowType dataType() {
    return part().getType();
  }

  @Override
  public boolean nullable() {
    return input.nullable() || part().isNullable();
  }

  @Override
  public Field field(String name) {
    Field p = part();
    return new Field(name, new FieldType(nullable(), p.getType(), null), p.getChildren());
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(input);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (FieldVector v = input.evaluate(batch, allocator)) {
      StructVector struct = (StructVector) v;
      FieldVector child = struct.getChildrenFromFields().get(index);
      if (struct.getNullCount() == 0) {
        TransferPair pair = child.getTransferPair(child.getField(), allocator);
        pair.splitAndTransfer(0, n);
        return (FieldVector) pair.getTo();
      }
      int[] rows = new int[n];
      for (int i = 0; i < n; i++) {
        rows[i] = struct.isNull(i) ? -1 : i;
      }
      return Take.take(child, rows, n, allocator);
    }
  }

  @Override
  public String toString() {
    return input + "." + fieldName();
  }
}
