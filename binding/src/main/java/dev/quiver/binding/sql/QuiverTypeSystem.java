package dev.quiver.binding.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Quiver's type rules: decimals up to 38 digits, decimal SUM widened to precision 38, AVG and
 * decimal division as DOUBLE (as DuckDB does, so results compare within a relative epsilon).
 */
public final class QuiverTypeSystem extends RelDataTypeSystemImpl {
  /** The shared instance; the type system has no state. */
  public static final QuiverTypeSystem INSTANCE = new QuiverTypeSystem();

  /** Fractional second digits of timestamps: microseconds. */
  static final int TIMESTAMP_PRECISION = 6;

  private static final int MAX_DECIMAL = 38;

  private QuiverTypeSystem() {}

  @Override
  public int getMaxPrecision(SqlTypeName typeName) {
    return switch (typeName) {
      case DECIMAL -> MAX_DECIMAL;
      case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE, TIME -> TIMESTAMP_PRECISION;
      default -> super.getMaxPrecision(typeName);
    };
  }

  /**
   * Timestamps keep microseconds, as Arrow's vectors, PostgreSQL and DuckDB do: with Calcite's
   * default precision 0, {@code CAST('2024-02-29 12:34:56.789' AS TIMESTAMP)} lost its
   * milliseconds.
   */
  @Override
  public int getDefaultPrecision(SqlTypeName typeName) {
    return switch (typeName) {
      case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE, TIME -> TIMESTAMP_PRECISION;
      default -> super.getDefaultPrecision(typeName);
    };
  }

  @Override
  public int getMaxScale(SqlTypeName typeName) {
    return typeName == SqlTypeName.DECIMAL ? MAX_DECIMAL : super.getMaxScale(typeName);
  }

  @Override
  public RelDataType deriveSumType(RelDataTypeFactory factory, RelDataType argumentType) {
    RelDataType type;
    switch (argumentType.getSqlTypeName()) {
      case DECIMAL:
        type = factory.createSqlType(SqlTypeName.DECIMAL, MAX_DECIMAL, argumentType.getScale());
        break;
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
        type = factory.createSqlType(SqlTypeName.BIGINT);
        break;
      case FLOAT:
      case REAL:
      case DOUBLE:
        type = factory.createSqlType(SqlTypeName.DOUBLE);
        break;
      default:
        return super.deriveSumType(factory, argumentType);
    }
    return factory.createTypeWithNullability(type, argumentType.isNullable());
  }

  /**
   * COVAR_POP and COVAR_SAMP are DOUBLE, as in PostgreSQL and DuckDB (Calcite: the argument's
   * type).
   */
  @Override
  public RelDataType deriveCovarType(
      RelDataTypeFactory factory, RelDataType arg0Type, RelDataType arg1Type) {
    return factory.createTypeWithNullability(
        factory.createSqlType(org.apache.calcite.sql.type.SqlTypeName.DOUBLE), true);
  }

  @Override
  public RelDataType deriveAvgAggType(RelDataTypeFactory factory, RelDataType argumentType) {
    if (SqlTypeUtil.isNumeric(argumentType)) {
      return factory.createTypeWithNullability(
          factory.createSqlType(SqlTypeName.DOUBLE), argumentType.isNullable());
    }
    return super.deriveAvgAggType(factory, argumentType);
  }

  @Override
  public RelDataType deriveDecimalDivideType(
      RelDataTypeFactory factory, RelDataType dividend, RelDataType divisor) {
    if (SqlTypeUtil.isExactNumeric(dividend)
        && SqlTypeUtil.isExactNumeric(divisor)
        && (SqlTypeUtil.isDecimal(dividend) || SqlTypeUtil.isDecimal(divisor))) {
      return factory.createTypeWithNullability(
          factory.createSqlType(SqlTypeName.DOUBLE), dividend.isNullable() || divisor.isNullable());
    }
    return super.deriveDecimalDivideType(factory, dividend, divisor);
  }

  @Override
  public boolean shouldConvertRaggedUnionTypesToVarying() {
    return true;
  }
}
