package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QuiverException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * The value of a decorrelated scalar subquery for the outer rows that use it: {@code value}, or a
 * {@link QuiverException} where {@code rows}, the number of rows the subquery had for that outer
 * row, is above one. SQL requires a scalar subquery to return at most one row; the check runs after
 * the join with the outer rows, so that a group no outer row uses cannot fail the query.
 */
public record SingleRowExpr(PhysicalExpr value, PhysicalExpr rows) implements PhysicalExpr {

  /** The error for a scalar subquery that returned several rows. */
  public static QuiverException moreThanOneRow(String column) {
    return new QuiverException(
        "More than one row returned by a subquery used as an expression"
            + (column == null ? "" : " (" + column + ")")
            + "; make it return at most one row, e.g. with an aggregate or LIMIT 1");
  }

  @Override
  public ArrowType dataType() {
    return value.dataType();
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(value, rows);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (FieldVector counts = rows.evaluate(batch, allocator)) {
      BigIntVector c = (BigIntVector) counts;
      for (int i = 0; i < n; i++) {
        if (!c.isNull(i) && c.get(i) > 1) {
          throw moreThanOneRow(null);
        }
      }
    }
    return value.evaluate(batch, allocator);
  }

  @Override
  public String toString() {
    return "SINGLE_ROW(" + value + ", " + rows + ")";
  }
}
