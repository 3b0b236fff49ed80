package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** A boolean column as value and validity words; true = valid & value. */
final class BoolWords {
  final long[] value;
  final long[] valid;

  BoolWords(long[] value, long[] valid) {
    this.value = value;
    this.valid = valid;
  }

  static BoolWords of(FieldVector v, int n) {
    if (v instanceof NullVector) {
      return new BoolWords(new long[Bits.words(n)], new long[Bits.words(n)]);
    }
    if (!(v instanceof BitVector)) {
      throw new QueryTypeException(
          "Expected a BOOLEAN expression, got " + Vectors.sqlName(v.getField().getType()));
    }
    long[] value = Bits.load(v.getDataBuffer(), n);
    long[] valid = Bits.validityOrOnes(v, n);
    return new BoolWords(value, valid);
  }

  static BoolWords scalar(Boolean b, int n) {
    if (b == null) {
      return new BoolWords(new long[Bits.words(n)], new long[Bits.words(n)]);
    }
    return new BoolWords(b ? Bits.ones(n) : new long[Bits.words(n)], Bits.ones(n));
  }

  long trueWord(int j) {
    return value[j] & valid[j];
  }

  long falseWord(int j) {
    return ~value[j] & valid[j];
  }

  static void checkBool(PhysicalExpr e, String what) {
    ArrowType t = e.dataType();
    if (!(t instanceof ArrowType.Bool) && !(t instanceof ArrowType.Null)) {
      throw new QueryTypeException(
          what + " expects a BOOLEAN operand, got " + Vectors.sqlName(t) + " in " + e);
    }
  }

  /** A BitVector with the given value and validity words (validity null: all valid). */
  static FieldVector write(long[] value, long[] valid, int n, BufferAllocator allocator) {
    return Bits.toBitVector(value, valid, n, allocator);
  }
}
