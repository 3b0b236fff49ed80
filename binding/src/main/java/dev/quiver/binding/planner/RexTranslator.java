package dev.quiver.binding.planner;

import dev.quiver.binding.ScalarUdf;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.util.function.Function;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;

/** STUB (signature fixed; owner replaces the body). Translates Calcite row expressions to physical expressions. */
public final class RexTranslator {
  /** Creates a translator that resolves UDF calls by (lower-case) name with {@code udfs}; null when unknown. */
  public RexTranslator(Function<String, ScalarUdf> udfs) {
    throw new UnsupportedOperationException("pending");
  }

  /** Translates {@code node}, whose input references index into {@code inputRowType}. */
  public PhysicalExpr translate(RexNode node, RelDataType inputRowType) {
    throw new UnsupportedOperationException("pending");
  }
}
