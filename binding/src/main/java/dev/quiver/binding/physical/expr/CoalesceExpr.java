package dev.quiver.binding.physical.expr;

import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** First non-null argument; later arguments are evaluated only while some row is still null. */
public record CoalesceExpr(List<PhysicalExpr> args, ArrowType dataType) implements PhysicalExpr {

  /** Copies the arguments. */
  public CoalesceExpr {
    args = List.copyOf(args);
    if (args.isEmpty()) {
      throw new IllegalArgumentException("COALESCE needs at least one argument");
    }
  }

  @Override
  public boolean nullable() {
    return args.stream().allMatch(PhysicalExpr::nullable);
  }

  @Override
  public List<PhysicalExpr> children() {
    return args;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    int[] which = new int[n];
    Arrays.fill(which, -1);
    long[] undecided = Bits.ones(n);
    FieldVector[] sources = new FieldVector[args.size()];
    try {
      for (int k = 0; k < args.size() && !Selection.none(undecided); k++) {
        sources[k] = Selection.evaluate(args.get(k), batch, undecided, allocator);
        long[] valid = Bits.validityOrOnes(sources[k], n);
        for (int i = 0; i < n; i++) {
          if (Bits.get(undecided, i) && Bits.get(valid, i)) {
            which[i] = k;
            Bits.clear(undecided, i);
          }
        }
      }
      return Vectors.gather(dataType, sources, which, n, allocator);
    } finally {
      for (FieldVector v : sources) {
        if (v != null) {
          v.close();
        }
      }
    }
  }

  @Override
  public String toString() {
    return "COALESCE" + args.toString().replace('[', '(').replace(']', ')');
  }
}
