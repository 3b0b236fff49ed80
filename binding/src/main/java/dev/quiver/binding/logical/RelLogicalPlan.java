package dev.quiver.binding.logical;

import dev.quiver.binding.udf.ScalarUdf;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;

/** The binding's {@link LogicalPlan}: an optimized Calcite tree plus the session's UDF lookup. */
public final class RelLogicalPlan implements LogicalPlan {
  private final RelNode rel;
  private final Function<String, ScalarUdf> udfs;

  /** Wraps an optimized tree; {@code udfs} resolves lower-case UDF names (null when unknown). */
  public RelLogicalPlan(RelNode rel, Function<String, ScalarUdf> udfs) {
    this.rel = rel;
    this.udfs = udfs;
  }

  /** The optimized relational tree. */
  public RelNode rel() {
    return rel;
  }

  /** UDF lookup by lower-case name. */
  public Function<String, ScalarUdf> udfs() {
    return udfs;
  }

  @Override
  public Schema schema() {
    return TypeMapping.toArrowSchema(rel.getRowType());
  }

  @Override
  public String explain() {
    return RelOptUtil.toString(rel);
  }

  @Override
  public String toString() {
    return explain();
  }
}
