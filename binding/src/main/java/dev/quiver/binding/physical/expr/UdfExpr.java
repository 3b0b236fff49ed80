package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.udf.ScalarUdf;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Call of a user-defined scalar function on already-cast arguments. */
public record UdfExpr(ScalarUdf udf, List<PhysicalExpr> args) implements PhysicalExpr {

  /** Copies the arguments and checks their count. */
  public UdfExpr {
    args = List.copyOf(args);
    if (args.size() != udf.argumentTypes().size()) {
      throw new QueryTypeException(
          "Function '"
              + udf.name()
              + "' takes "
              + udf.argumentTypes().size()
              + " arguments, got "
              + args.size());
    }
  }

  @Override
  public ArrowType dataType() {
    return udf.returnType();
  }

  @Override
  public boolean nullable() {
    return true;
  }

  @Override
  public List<PhysicalExpr> children() {
    return args;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    List<FieldVector> vectors = new ArrayList<>(args.size());
    try {
      for (PhysicalExpr a : args) {
        vectors.add(a.evaluate(batch, allocator));
      }
      FieldVector out;
      try {
        out = udf.invoke(vectors, n, allocator);
      } catch (QuiverException e) {
        throw e;
      } catch (org.apache.arrow.memory.OutOfMemoryException e) {
        throw Vectors.rethrow(e);
      } catch (RuntimeException e) {
        throw new QuiverException("Function '" + udf.name() + "' failed: " + e.getMessage(), e);
      }
      if (out == null || out.getValueCount() != n) {
        if (out != null) {
          out.close();
        }
        throw new QuiverException(
            "Function '"
                + udf.name()
                + "' must return "
                + n
                + " values, returned "
                + (out == null ? "null" : out.getValueCount()));
      }
      return out;
    } finally {
      vectors.forEach(FieldVector::close);
    }
  }

  @Override
  public String toString() {
    return udf.name() + args.toString().replace('[', '(').replace(']', ')');
  }
}
