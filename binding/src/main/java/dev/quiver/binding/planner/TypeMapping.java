package dev.quiver.binding.planner;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;

/** STUB (signature fixed; owner replaces the body). Maps between Calcite and Arrow types. */
public final class TypeMapping {
  private TypeMapping() {}

  /** The Arrow type Quiver uses for a Calcite type. */
  public static ArrowType toArrow(RelDataType type) {
    throw new UnsupportedOperationException("pending");
  }

  /** The Calcite type for an Arrow type. */
  public static RelDataType toRel(ArrowType type, boolean nullable, RelDataTypeFactory factory) {
    throw new UnsupportedOperationException("pending");
  }

  /** Arrow schema of a Calcite row type (field names kept). */
  public static Schema toArrowSchema(RelDataType rowType) {
    throw new UnsupportedOperationException("pending");
  }

  /** Calcite row type of an Arrow schema. */
  public static RelDataType toRelRowType(Schema schema, RelDataTypeFactory factory) {
    throw new UnsupportedOperationException("pending");
  }
}
