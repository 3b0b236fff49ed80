package dev.quiver.binding.optimizer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.calcite.rel.RelNode;

/** Bottom-up rewriting of a logical plan tree, shared by the optimizer's hand-written passes. */
public final class BottomUp {
  private BottomUp() {}

  /**
   * Rewrites the inputs of {@code rel} first, copies {@code rel} over them only if one changed,
   * then applies {@code step} to the result.
   */
  public static RelNode rewrite(RelNode rel, UnaryOperator<RelNode> step) {
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode in : rel.getInputs()) {
      RelNode n = rewrite(in, step);
      changed |= n != in;
      inputs.add(n);
    }
    return step.apply(changed ? rel.copy(rel.getTraitSet(), inputs) : rel);
  }
}
