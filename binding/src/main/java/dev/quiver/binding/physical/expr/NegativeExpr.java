package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Unary minus on integers (overflow is an error), doubles and decimals. */
public record NegativeExpr(PhysicalExpr child) implements PhysicalExpr {

  /** Checks the operand is numeric. */
  public NegativeExpr {
    Vectors.Kind k = Vectors.kind(child.dataType());
    if (k != Vectors.Kind.INT
        && k != Vectors.Kind.DOUBLE
        && k != Vectors.Kind.DECIMAL
        && k != Vectors.Kind.NULL
        && k != Vectors.Kind.INTERVAL_DAY_TIME
        && k != Vectors.Kind.INTERVAL_MONTHS) {
      throw new QueryTypeException("Cannot negate " + Vectors.sqlName(child.dataType()));
    }
  }

  @Override
  public ArrowType dataType() {
    return child.dataType();
  }

  @Override
  public boolean nullable() {
    return child.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(child);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    ArrowType type = dataType();
    try (Operand o = Operand.of(child, batch, allocator)) {
      if (o.allNull()) {
        return Vectors.nulls(type, n, allocator);
      }
      long[] valid = o.validity();
      switch (Vectors.kind(type)) {
        case DOUBLE:
          {
            double[] d = o.doubles();
            for (int i = 0; i < n; i++) {
              d[i] = -d[i];
            }
            return Kernels.writeDoubles(d, valid, type, n, allocator);
          }
        case DECIMAL:
          {
            Operand.DecimalData d = o.decimals(0);
            if (d.small != null) {
              long[] r = new long[n];
              for (int i = 0; i < n; i++) {
                r[i] = -d.small[i];
              }
              return Kernels.writeDecimals(r, null, valid, type, n, allocator);
            }
            BigInteger[] r = new BigInteger[n];
            for (int i = 0; i < n; i++) {
              r[i] = d.bigAt(i).negate();
            }
            return Kernels.writeDecimals(null, r, valid, type, n, allocator);
          }
        case INT:
          {
            long[] v = o.longs();
            for (int i = 0; i < n; i++) {
              if (v[i] == Long.MIN_VALUE && Bits.valid(valid, i)) {
                throw new QuiverException("Integer overflow: cannot negate " + v[i]);
              }
              v[i] = -v[i];
            }
            return Kernels.writeInts(v, valid, type, n, allocator, this);
          }
        default:
          {
            FieldVector out = Vectors.allocate(type, n, allocator);
            for (int i = 0; i < n; i++) {
              Object v = Vectors.getValue(o.vector, i);
              if (v != null) {
                Vectors.setValue(out, i, -(Long) v);
              }
            }
            out.setValueCount(n);
            return out;
          }
      }
    }
  }

  @Override
  public String toString() {
    return "-" + child;
  }
}
