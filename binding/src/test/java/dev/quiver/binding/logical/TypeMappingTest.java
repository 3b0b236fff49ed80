package dev.quiver.binding.logical;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quiver.binding.errors.QueryTypeException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TypeMappingTest {
  private final RelDataTypeFactory factory = new JavaTypeFactoryImpl();

  @Test
  void calciteTypesMapToArrow() {
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.INTEGER)))
        .isEqualTo(new ArrowType.Int(32, true));
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.BIGINT)))
        .isEqualTo(new ArrowType.Int(64, true));
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.SMALLINT)))
        .isEqualTo(new ArrowType.Int(16, true));
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.REAL)))
        .isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.DECIMAL, 15, 2)))
        .isEqualTo(new ArrowType.Decimal(15, 2, 128));
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.CHAR, 10)))
        .isEqualTo(ArrowType.Utf8.INSTANCE);
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.DATE)))
        .isEqualTo(new ArrowType.Date(DateUnit.DAY));
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.TIMESTAMP)))
        .isEqualTo(TypeMapping.TIMESTAMP);
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.BOOLEAN)))
        .isEqualTo(ArrowType.Bool.INSTANCE);
    assertThat(TypeMapping.toArrow(factory.createSqlType(SqlTypeName.NULL)))
        .isEqualTo(ArrowType.Null.INSTANCE);
  }

  @Test
  void arrowTypesRoundTripThroughCalcite() {
    List<ArrowType> types =
        List.of(
            new ArrowType.Int(8, true),
            new ArrowType.Int(16, true),
            new ArrowType.Int(32, true),
            new ArrowType.Int(64, true),
            new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
            new ArrowType.Decimal(12, 3, 128),
            ArrowType.Utf8.INSTANCE,
            ArrowType.Bool.INSTANCE,
            TypeMapping.DATE,
            TypeMapping.TIMESTAMP,
            new ArrowType.Interval(IntervalUnit.DAY_TIME),
            new ArrowType.Interval(IntervalUnit.YEAR_MONTH));
    for (ArrowType t : types) {
      RelDataType rel = TypeMapping.toRel(t, true, factory);
      assertThat(rel.isNullable()).isTrue();
      assertThat(TypeMapping.toArrow(rel)).as(t.toString()).isEqualTo(t);
      assertThat(TypeMapping.toRel(t, false, factory).isNullable()).isFalse();
    }
  }

  @Test
  void schemasKeepNamesAndNullability() {
    Schema schema =
        new Schema(
            List.of(
                new Field("id", new FieldType(false, new ArrowType.Int(64, true), null), null),
                new Field("name", new FieldType(true, ArrowType.Utf8.INSTANCE, null), null)));
    RelDataType row = TypeMapping.toRelRowType(schema, factory);
    assertThat(row.getFieldNames()).containsExactly("id", "name");
    assertThat(row.getFieldList().get(0).getType().isNullable()).isFalse();
    assertThat(TypeMapping.toArrowSchema(row)).isEqualTo(schema);
  }

  @Test
  void unsupportedTypesNameTheType() {
    assertThatThrownBy(() -> TypeMapping.toArrow(factory.createSqlType(SqlTypeName.VARBINARY)))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("VARBINARY");
    assertThatThrownBy(
            () ->
                TypeMapping.toRel(
                    new ArrowType.Timestamp(
                        org.apache.arrow.vector.types.TimeUnit.MICROSECOND, "UTC"),
                    true,
                    factory))
        .isInstanceOf(QueryTypeException.class)
        .hasMessageContaining("UTC");
  }
}
