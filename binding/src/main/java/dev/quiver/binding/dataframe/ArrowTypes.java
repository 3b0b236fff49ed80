package dev.quiver.binding.dataframe;

import dev.quiver.binding.errors.QueryTypeException;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;

/** The Calcite type a DataFrame {@code cast} to an Arrow type produces. */
final class ArrowTypes {
  private ArrowTypes() {}

  /** The (non-null) Calcite type for {@code type}; unsupported types raise QueryTypeException. */
  static RelDataType toRel(ArrowType type, RelDataTypeFactory f) {
    if (type instanceof ArrowType.Int i) {
      if (!i.getIsSigned()) {
        throw unsupported(type);
      }
      switch (i.getBitWidth()) {
        case 8:
          return f.createSqlType(SqlTypeName.TINYINT);
        case 16:
          return f.createSqlType(SqlTypeName.SMALLINT);
        case 32:
          return f.createSqlType(SqlTypeName.INTEGER);
        case 64:
          return f.createSqlType(SqlTypeName.BIGINT);
        default:
          throw unsupported(type);
      }
    }
    if (type instanceof ArrowType.FloatingPoint fp) {
      return f.createSqlType(
          fp.getPrecision() == FloatingPointPrecision.DOUBLE
              ? SqlTypeName.DOUBLE
              : SqlTypeName.REAL);
    }
    if (type instanceof ArrowType.Decimal d) {
      if (d.getPrecision() > 38 || d.getScale() < 0 || d.getScale() > d.getPrecision()) {
        throw new QueryTypeException(
            "Cannot cast to " + type + ": decimals need 0 <= scale <= precision <= 38");
      }
      return f.createSqlType(SqlTypeName.DECIMAL, d.getPrecision(), d.getScale());
    }
    if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) {
      return f.createSqlType(SqlTypeName.VARCHAR);
    }
    if (type instanceof ArrowType.Bool) {
      return f.createSqlType(SqlTypeName.BOOLEAN);
    }
    if (type instanceof ArrowType.Date dt && dt.getUnit() == DateUnit.DAY) {
      return f.createSqlType(SqlTypeName.DATE);
    }
    if (type instanceof ArrowType.Timestamp ts && ts.getTimezone() == null) {
      return f.createSqlType(SqlTypeName.TIMESTAMP, 6);
    }
    if (type instanceof ArrowType.Null) {
      return f.createSqlType(SqlTypeName.NULL);
    }
    throw unsupported(type);
  }

  private static QueryTypeException unsupported(ArrowType type) {
    return new QueryTypeException(
        "Cannot cast to Arrow type "
            + type
            + "; use a signed Int, FloatingPoint, Decimal, Utf8, Bool, Date(DAY) or Timestamp without"
            + " zone");
  }
}
