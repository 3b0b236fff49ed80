package dev.quiver.binding.physical.expr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code CASE WHEN c1 THEN r1 ... ELSE e END}. Each result is evaluated only for the rows that pick
 * it (see {@link Selection}); a null {@code elseExpr} means ELSE NULL. Results must already have
 * type {@code dataType}.
 */
public record CaseExpr(
    List<PhysicalExpr> whens, List<PhysicalExpr> thens, PhysicalExpr elseExpr, ArrowType dataType)
    implements PhysicalExpr {

  /** Copies the branch lists and checks their shape. */
  public CaseExpr {
    whens = List.copyOf(whens);
    thens = List.copyOf(thens);
    if (whens.size() != thens.size() || whens.isEmpty()) {
      throw new IllegalArgumentException("CASE needs one THEN per WHEN and at least one WHEN");
    }
    for (PhysicalExpr w : whens) {
      BoolWords.checkBool(w, "CASE WHEN");
    }
  }

  @Override
  public boolean nullable() {
    return elseExpr == null
        || elseExpr.nullable()
        || thens.stream().anyMatch(PhysicalExpr::nullable);
  }

  @Override
  public List<PhysicalExpr> children() {
    List<PhysicalExpr> c = new ArrayList<>();
    for (int i = 0; i < whens.size(); i++) {
      c.add(whens.get(i));
      c.add(thens.get(i));
    }
    if (elseExpr != null) {
      c.add(elseExpr);
    }
    return c;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    int branches = whens.size();
    int[] which = new int[n];
    Arrays.fill(which, -1);
    long[] undecided = Bits.ones(n);
    FieldVector[] sources = new FieldVector[branches + 1];
    try {
      for (int b = 0; b < branches && !Selection.none(undecided); b++) {
        long[] hit = new long[undecided.length];
        try (FieldVector cond = Selection.evaluate(whens.get(b), batch, undecided, allocator)) {
          BoolWords w = BoolWords.of(cond, n);
          for (int j = 0; j < hit.length; j++) {
            hit[j] = w.trueWord(j) & undecided[j];
            undecided[j] &= ~hit[j];
          }
        }
        if (!Selection.none(hit)) {
          mark(which, hit, b, n);
          sources[b] = Selection.evaluate(thens.get(b), batch, hit, allocator);
        }
      }
      if (elseExpr != null && !Selection.none(undecided)) {
        mark(which, undecided, branches, n);
        sources[branches] = Selection.evaluate(elseExpr, batch, undecided, allocator);
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

  private static void mark(int[] which, long[] mask, int branch, int n) {
    for (int j = 0; j < mask.length; j++) {
      long w = mask[j];
      while (w != 0) {
        int i = (j << 6) + Long.numberOfTrailingZeros(w);
        if (i < n) {
          which[i] = branch;
        }
        w &= w - 1;
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("CASE");
    for (int i = 0; i < whens.size(); i++) {
      sb.append(" WHEN ").append(whens.get(i)).append(" THEN ").append(thens.get(i));
    }
    if (elseExpr != null) {
      sb.append(" ELSE ").append(elseExpr);
    }
    return sb.append(" END").toString();
  }
}
