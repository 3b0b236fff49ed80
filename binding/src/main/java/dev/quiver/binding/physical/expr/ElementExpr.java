package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.kernel.Take;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * {@code l[i]} of a list (1-based; a negative index counts from the end; NULL outside the list, as
 * DuckDB answers) or {@code m[k]} of a map (the value of the first entry whose key equals {@code
 * k}; NULL when none does).
 */
public record ElementExpr(PhysicalExpr container, PhysicalExpr key) implements PhysicalExpr {

  public ElementExpr {
    ArrowType t = container.dataType();
    if (t instanceof ArrowType.Map) {
      Field keyField = entries(container.field("m")).getChildren().get(0);
      if (!sameKind(keyField.getType(), key.dataType())) {
        throw new QueryTypeException(
            "A MAP with "
                + Vectors.sqlName(keyField.getType())
                + " keys cannot be indexed by "
                + Vectors.sqlName(key.dataType()));
      }
    } else if (t instanceof ArrowType.List) {
      if (!(key.dataType() instanceof ArrowType.Int)
          && !(key.dataType() instanceof ArrowType.Null)) {
        throw new QueryTypeException(
            "A LIST is indexed by an integer, got " + Vectors.sqlName(key.dataType()));
      }
    } else {
      throw new QueryTypeException(
          "Only a LIST or a MAP can be indexed with [...], got " + Vectors.sqlName(t));
    }
  }

  private static boolean sameKind(ArrowType keyType, ArrowType given) {
    return given instanceof ArrowType.Null
        || keyType instanceof ArrowType.Int && given instanceof ArrowType.Int
        || keyType instanceof ArrowType.Utf8 && given instanceof ArrowType.Utf8
        || keyType.equals(given);
  }

  private static Field entries(Field map) {
    return map.getChildren().get(0);
  }

  private Field part() {
    Field f = container.field("c");
    return f.getType() instanceof ArrowType.Map
        ? entries(f).getChildren().get(1)
        : f.getChildren().get(0);
  }

  @Override
  public ArrowType dataType() {
    return part().getType();
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public Field field(String name) {
    Field p = part();
    return new Field(name, new FieldType(true, p.getType(), null), p.getChildren());
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(container, key);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (FieldVector c = container.evaluate(batch, allocator);
        FieldVector k = key.evaluate(batch, allocator)) {
      ListVector list = (ListVector) c;
      int[] rows = new int[n];
      Arrays.fill(rows, -1);
      if (c instanceof MapVector map) {
        StructVector entries = (StructVector) map.getDataVector();
        FieldVector keys = entries.getChildrenFromFields().get(0);
        for (int i = 0; i < n; i++) {
          if (list.isNull(i) || k.isNull(i)) {
            continue;
          }
          int start = list.getElementStartIndex(i);
          int end = list.getElementEndIndex(i);
          for (int j = start; j < end; j++) {
            if (!keys.isNull(j) && sameKey(keys, j, k, i)) {
              rows[i] = j;
              break;
            }
          }
        }
        return Take.take(entries.getChildrenFromFields().get(1), rows, n, allocator);
      }
      for (int i = 0; i < n; i++) {
        if (list.isNull(i) || k.isNull(i)) {
          continue;
        }
        int start = list.getElementStartIndex(i);
        int end = list.getElementEndIndex(i);
        long at = ((BaseIntVector) k).getValueAsLong(i);
        long j = at > 0 ? start + at - 1 : at < 0 ? end + at : -1;
        if (j >= start && j < end) {
          rows[i] = (int) j;
        }
      }
      return Take.take(list.getDataVector(), rows, n, allocator);
    }
  }

  private static boolean sameKey(FieldVector keys, int j, FieldVector k, int i) {
    if (keys instanceof BaseIntVector a && k instanceof BaseIntVector b) {
      return a.getValueAsLong(j) == b.getValueAsLong(i);
    }
    if (keys instanceof VarCharVector a && k instanceof VarCharVector b) {
      return Arrays.equals(a.get(j), b.get(i));
    }
    return keys.getObject(j).equals(k.getObject(i));
  }

  @Override
  public String toString() {
    return container + "[" + key + "]";
  }
}
