package dev.quiver.binding.optimizer;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.metadata.RelMdSelectivity;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Selectivity of {@code LIKE} with a literal pattern. Calcite guesses 0.25 for any predicate it
 * does not know, which made {@code p_name LIKE '%green%'} (5% of TPC-H's parts) keep a quarter of
 * part, and Q9's lineitem side look as large as orders, so orders (1.5M rows) was built to probe
 * 319k. A pattern that must contain a word somewhere ({@code '%x%'}) is guessed at 5%, one anchored
 * at an end ({@code 'x%'}, {@code '%x'}) at 10%; every other conjunct keeps Calcite's guess.
 */
public final class PatternSelectivity extends RelMdSelectivity {
  static final double CONTAINS = 0.05;
  static final double ANCHORED = 0.10;

  PatternSelectivity() {}

  @Override
  public @Nullable Double getSelectivity(
      RelNode rel, RelMetadataQuery mq, @Nullable RexNode predicate) {
    if (predicate == null) {
      return super.getSelectivity(rel, mq, null);
    }
    double likes = 1.0;
    List<RexNode> rest = new ArrayList<>();
    for (RexNode c : RelOptUtil.conjunctions(predicate)) {
      Double s = like(c);
      if (s != null) {
        likes *= s;
      } else {
        rest.add(c);
      }
    }
    if (likes == 1.0) {
      return super.getSelectivity(rel, mq, predicate);
    }
    if (rest.isEmpty()) {
      return likes;
    }
    Double others =
        super.getSelectivity(
            rel, mq, RexUtil.composeConjunction(rel.getCluster().getRexBuilder(), rest));
    return likes * (others == null ? 1.0 : others);
  }

  /** The guess for {@code e} when it is a LIKE with a literal pattern, else null. */
  static @Nullable Double like(RexNode e) {
    if (e.getKind() != SqlKind.LIKE || !(e instanceof RexCall call) || call.operands.size() < 2) {
      return null;
    }
    if (!(call.operands.get(1) instanceof RexLiteral literal)) {
      return null;
    }
    String pattern = literal.getValueAs(String.class);
    if (pattern == null) {
      return null;
    }
    boolean open = pattern.startsWith("%");
    boolean close = pattern.endsWith("%");
    return open && close && pattern.length() > 1 ? CONTAINS : ANCHORED;
  }
}
