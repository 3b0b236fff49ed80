package dev.quiver.binding.physical.expr;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * N-ary AND / OR with SQL three-valued logic. Operands after the first are evaluated only when some
 * row is still undecided, and an operand that fails is retried on the undecided rows alone.
 */
public record LogicalExpr(Op op, List<PhysicalExpr> operands) implements PhysicalExpr {

  /** Connective. */
  public enum Op {
    AND,
    OR
  }

  /** Copies the operands and checks they are boolean. */
  public LogicalExpr {
    operands = List.copyOf(operands);
    if (operands.isEmpty()) {
      throw new IllegalArgumentException(op + " needs at least one operand");
    }
    for (PhysicalExpr e : operands) {
      BoolWords.checkBool(e, op.name());
    }
  }

  /** Adds the top-level conjuncts of {@code e} (nested ANDs flattened) to {@code out}, in order. */
  public static void conjuncts(PhysicalExpr e, List<PhysicalExpr> out) {
    if (e instanceof LogicalExpr l && l.op() == Op.AND) {
      for (PhysicalExpr operand : l.operands()) {
        conjuncts(operand, out);
      }
    } else {
      out.add(e);
    }
  }

  @Override
  public ArrowType dataType() {
    return ArrowType.Bool.INSTANCE;
  }

  @Override
  public boolean nullable() {
    return operands.stream().anyMatch(PhysicalExpr::nullable);
  }

  @Override
  public List<PhysicalExpr> children() {
    return operands;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    int words = Bits.words(n);
    boolean and = op == Op.AND;
    // For AND: decided = any false; all = every operand true. OR is the dual.
    long[] decided = new long[words];
    long[] all = Bits.ones(n);
    for (PhysicalExpr e : operands) {
      long[] undecided = new long[words];
      for (int j = 0; j < words; j++) {
        undecided[j] = ~decided[j];
      }
      Bits.maskTail(undecided, n);
      if (Selection.none(undecided)) {
        break;
      }
      BoolWords b;
      if (e instanceof LiteralExpr l) {
        b = BoolWords.scalar((Boolean) l.value(), n);
      } else {
        try (FieldVector v = Selection.evaluate(e, batch, undecided, allocator)) {
          b = BoolWords.of(v, n);
        }
      }
      for (int j = 0; j < words; j++) {
        long t = b.trueWord(j);
        long f = b.falseWord(j);
        if (and) {
          decided[j] |= f;
          all[j] &= t;
        } else {
          decided[j] |= t;
          all[j] &= f;
        }
      }
    }
    long[] valid = new long[words];
    long[] value = new long[words];
    for (int j = 0; j < words; j++) {
      valid[j] = decided[j] | all[j];
      value[j] = and ? all[j] & ~decided[j] : decided[j];
    }
    Bits.maskTail(valid, n);
    return BoolWords.write(value, valid, n, allocator);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < operands.size(); i++) {
      if (i > 0) {
        sb.append(' ').append(op).append(' ');
      }
      sb.append(operands.get(i));
    }
    return sb.append(')').toString();
  }
}
