package dev.quiver.binding.logical;

import dev.quiver.binding.errors.QueryTypeException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;

/** Maps between Calcite and Arrow types. */
public final class TypeMapping {
  private TypeMapping() {}

  /** Largest decimal precision Arrow's 128-bit decimal holds. */
  public static final int MAX_DECIMAL_PRECISION = 38;

  /** Timestamp type used internally: microseconds, no zone. */
  public static final ArrowType TIMESTAMP = new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);

  /** Date type used internally: days since the epoch. */
  public static final ArrowType DATE = new ArrowType.Date(DateUnit.DAY);

  /** Time-of-day type used internally: microseconds since midnight. */
  public static final ArrowType TIME = new ArrowType.Time(TimeUnit.MICROSECOND, 64);

  /** Double type used internally. */
  public static final ArrowType DOUBLE = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  /** The Arrow type Quiver uses for a Calcite type. */
  public static ArrowType toArrow(RelDataType type) {
    SqlTypeName name = type.getSqlTypeName();
    switch (name) {
      case BOOLEAN:
        return ArrowType.Bool.INSTANCE;
      case TINYINT:
        return new ArrowType.Int(8, true);
      case SMALLINT:
        return new ArrowType.Int(16, true);
      case INTEGER:
        return new ArrowType.Int(32, true);
      case BIGINT:
        return new ArrowType.Int(64, true);
      case REAL:
      case FLOAT:
      case DOUBLE:
        return DOUBLE;
      case DECIMAL:
        int precision = type.getPrecision();
        int scale = type.getScale();
        if (precision > MAX_DECIMAL_PRECISION || precision < 1) {
          throw new QueryTypeException(
              "DECIMAL("
                  + precision
                  + ", "
                  + scale
                  + ") is not supported; precision must be 1 to "
                  + MAX_DECIMAL_PRECISION);
        }
        if (scale < 0 || scale > precision) {
          throw new QueryTypeException(
              "DECIMAL("
                  + precision
                  + ", "
                  + scale
                  + ") is not supported; scale must be 0 to the precision");
        }
        return new ArrowType.Decimal(precision, scale, 128);
      case CHAR:
      case VARCHAR:
        return ArrowType.Utf8.INSTANCE;
      case DATE:
        return DATE;
      case TIMESTAMP:
        return TIMESTAMP;
      case TIME:
        return TIME;
      case ROW:
        return ArrowType.Struct.INSTANCE;
      case ARRAY:
        return ArrowType.List.INSTANCE;
      case MAP:
        return new ArrowType.Map(false);
      case NULL:
        return ArrowType.Null.INSTANCE;
      case INTERVAL_YEAR:
      case INTERVAL_YEAR_MONTH:
      case INTERVAL_MONTH:
        return new ArrowType.Interval(IntervalUnit.YEAR_MONTH);
      case INTERVAL_DAY:
      case INTERVAL_DAY_HOUR:
      case INTERVAL_DAY_MINUTE:
      case INTERVAL_DAY_SECOND:
      case INTERVAL_HOUR:
      case INTERVAL_HOUR_MINUTE:
      case INTERVAL_HOUR_SECOND:
      case INTERVAL_MINUTE:
      case INTERVAL_MINUTE_SECOND:
      case INTERVAL_SECOND:
        return new ArrowType.Interval(IntervalUnit.DAY_TIME);
      default:
        throw new QueryTypeException(
            "SQL type "
                + type.getFullTypeString()
                + " is not supported; use one of BOOLEAN, "
                + "INTEGER, BIGINT, DOUBLE, DECIMAL(p, s), VARCHAR, DATE, TIME, TIMESTAMP, "
                + "ROW(...), ARRAY or MAP");
    }
  }

  /** The Calcite type for an Arrow type. */
  public static RelDataType toRel(ArrowType type, boolean nullable, RelDataTypeFactory factory) {
    RelDataType t;
    switch (type.getTypeID()) {
      case Bool:
        t = factory.createSqlType(SqlTypeName.BOOLEAN);
        break;
      case Int:
        ArrowType.Int i = (ArrowType.Int) type;
        if (!i.getIsSigned() && i.getBitWidth() == 64) {
          throw new QueryTypeException(
              "Arrow type " + type + " is not supported; use signed 64-bit integers");
        }
        if (!i.getIsSigned() && i.getBitWidth() == 32) {
          t = factory.createSqlType(SqlTypeName.BIGINT);
          break;
        }
        switch (i.getBitWidth()) {
          case 8:
            t = factory.createSqlType(i.getIsSigned() ? SqlTypeName.TINYINT : SqlTypeName.SMALLINT);
            break;
          case 16:
            t = factory.createSqlType(i.getIsSigned() ? SqlTypeName.SMALLINT : SqlTypeName.INTEGER);
            break;
          case 32:
            t = factory.createSqlType(SqlTypeName.INTEGER);
            break;
          default:
            t = factory.createSqlType(SqlTypeName.BIGINT);
        }
        break;
      case FloatingPoint:
        FloatingPointPrecision p = ((ArrowType.FloatingPoint) type).getPrecision();
        t =
            factory.createSqlType(
                p == FloatingPointPrecision.DOUBLE ? SqlTypeName.DOUBLE : SqlTypeName.REAL);
        break;
      case Decimal:
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        if (d.getBitWidth() != 128) {
          throw new QueryTypeException(
              "Arrow type " + type + " is not supported; use 128-bit decimals");
        }
        t = factory.createSqlType(SqlTypeName.DECIMAL, d.getPrecision(), d.getScale());
        break;
      case Utf8:
      case LargeUtf8:
        t = factory.createSqlType(SqlTypeName.VARCHAR);
        break;
      case Date:
        t = factory.createSqlType(SqlTypeName.DATE);
        break;
      case Timestamp:
        if (((ArrowType.Timestamp) type).getTimezone() != null) {
          throw new QueryTypeException(
              "Arrow type " + type + " is not supported; use timestamps without a time zone");
        }
        t = factory.createSqlType(SqlTypeName.TIMESTAMP);
        break;
      case Null:
        return factory.createSqlType(SqlTypeName.NULL);
      case Time:
        t = factory.createSqlType(SqlTypeName.TIME);
        break;
      case Interval:
        IntervalUnit unit = ((ArrowType.Interval) type).getUnit();
        if (unit == IntervalUnit.YEAR_MONTH) {
          t =
              factory.createSqlIntervalType(
                  new SqlIntervalQualifier(
                      org.apache.calcite.avatica.util.TimeUnit.YEAR,
                      org.apache.calcite.avatica.util.TimeUnit.MONTH,
                      SqlParserPos.ZERO));
        } else if (unit == IntervalUnit.DAY_TIME) {
          t =
              factory.createSqlIntervalType(
                  new SqlIntervalQualifier(
                      org.apache.calcite.avatica.util.TimeUnit.DAY,
                      org.apache.calcite.avatica.util.TimeUnit.SECOND,
                      SqlParserPos.ZERO));
        } else {
          throw new QueryTypeException("Arrow type " + type + " is not supported");
        }
        break;
      default:
        throw new QueryTypeException(
            "Arrow type "
                + type
                + " is not supported; use bool, int, double, decimal128, utf8, "
                + "date32, time64[us], timestamp[us], struct, list or map");
    }
    return factory.createTypeWithNullability(t, nullable);
  }

  /**
   * The Calcite type of an Arrow field, nested types included: a struct is a ROW of its children, a
   * list an ARRAY of its element, a map a MAP of its key and value.
   */
  public static RelDataType toRel(Field field, RelDataTypeFactory factory) {
    ArrowType type = field.getType();
    RelDataType t;
    switch (type.getTypeID()) {
      case Struct -> {
        List<RelDataType> types = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Field c : field.getChildren()) {
          types.add(toRel(c, factory));
          names.add(c.getName());
        }
        t = factory.createStructType(types, names);
      }
      case List, LargeList, FixedSizeList -> {
        if (field.getChildren().size() != 1) {
          throw new QueryTypeException("List column " + field.getName() + " has no element type");
        }
        t = factory.createArrayType(toRel(field.getChildren().get(0), factory), -1);
      }
      case Map -> {
        Field entries = field.getChildren().isEmpty() ? null : field.getChildren().get(0);
        if (entries == null || entries.getChildren().size() != 2) {
          throw new QueryTypeException(
              "Map column " + field.getName() + " needs a key and a value");
        }
        t =
            factory.createMapType(
                toRel(entries.getChildren().get(0), factory),
                toRel(entries.getChildren().get(1), factory));
      }
      default -> {
        return toRel(type, field.isNullable(), factory);
      }
    }
    return factory.createTypeWithNullability(t, field.isNullable());
  }

  /** Whether a Calcite type is a ROW, ARRAY, MAP or MULTISET (values with parts). */
  public static boolean isNested(RelDataType type) {
    return type.isStruct()
        || type.getSqlTypeName() == SqlTypeName.ARRAY
        || type.getSqlTypeName() == SqlTypeName.MAP
        || type.getSqlTypeName() == SqlTypeName.MULTISET;
  }

  /** Whether an Arrow type is a struct, list or map (has child fields). */
  public static boolean isNested(ArrowType type) {
    return switch (type.getTypeID()) {
      case Struct, List, LargeList, FixedSizeList, Map, Union -> true;
      default -> false;
    };
  }

  /**
   * The SQL name of a nested type for error messages ({@code STRUCT}, {@code LIST}, {@code MAP}),
   * or null for other types.
   */
  public static String nestedName(RelDataType type) {
    if (type.isStruct()) {
      return "STRUCT";
    }
    return switch (type.getSqlTypeName()) {
      case ARRAY, MULTISET -> "LIST";
      case MAP -> "MAP";
      default -> null;
    };
  }

  /**
   * Throws a typed error when {@code type} is a STRUCT, LIST or MAP, which Quiver reads, carries
   * and takes apart but does not group, join on, sort or compare ({@code use} says which, e.g.
   * "GROUP BY").
   */
  public static void requireFlat(RelDataType type, String column, String use) {
    String nested = nestedName(type);
    if (nested != null) {
      throw new QueryTypeException(
          use
              + " "
              + column
              + ": "
              + nested
              + " values are not supported there; use their "
              + "fields or elements instead (s.field, l[1], m['key'])");
    }
  }

  /** The Arrow field for a Calcite type, with the child fields of nested types. */
  public static Field toArrowField(String name, RelDataType type) {
    FieldType fieldType = new FieldType(type.isNullable(), toArrow(type), null);
    if (type.isStruct()) {
      List<Field> children = new ArrayList<>();
      for (RelDataTypeField f : type.getFieldList()) {
        children.add(toArrowField(f.getName(), f.getType()));
      }
      return new Field(name, fieldType, children);
    }
    if (type.getSqlTypeName() == SqlTypeName.ARRAY) {
      return new Field(name, fieldType, List.of(toArrowField("element", type.getComponentType())));
    }
    if (type.getSqlTypeName() == SqlTypeName.MAP) {
      Field key = toArrowField("key", type.getKeyType());
      key = new Field("key", new FieldType(false, key.getType(), null), key.getChildren());
      Field entries =
          new Field(
              "entries",
              new FieldType(false, ArrowType.Struct.INSTANCE, null),
              List.of(key, toArrowField("value", type.getValueType())));
      return new Field(name, fieldType, List.of(entries));
    }
    return new Field(name, fieldType, null);
  }

  /** Arrow schema of a Calcite row type (field names kept). */
  public static Schema toArrowSchema(RelDataType rowType) {
    List<Field> fields = new ArrayList<>();
    for (RelDataTypeField f : rowType.getFieldList()) {
      fields.add(toArrowField(f.getName(), f.getType()));
    }
    return new Schema(fields);
  }

  /** Calcite row type of an Arrow schema. */
  public static RelDataType toRelRowType(Schema schema, RelDataTypeFactory factory) {
    List<RelDataType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Field f : schema.getFields()) {
      types.add(toRel(f, factory));
      names.add(f.getName());
    }
    return factory.createStructType(types, names);
  }

  /**
   * The SQL name of an Arrow type as Quiver spells it (e.g. {@code DECIMAL(15, 2)}, {@code
   * VARCHAR}), or null for a type SQL cannot write.
   */
  public static String sqlName(ArrowType type) {
    if (type instanceof ArrowType.Int i) {
      return switch (i.getBitWidth()) {
        case 8 -> "TINYINT";
        case 16 -> "SMALLINT";
        case 32 -> "INTEGER";
        default -> "BIGINT";
      };
    }
    if (type instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() == FloatingPointPrecision.SINGLE ? "REAL" : "DOUBLE";
    }
    if (type instanceof ArrowType.Decimal d) {
      return "DECIMAL(" + d.getPrecision() + ", " + d.getScale() + ")";
    }
    if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8) {
      return "VARCHAR";
    }
    if (type instanceof ArrowType.Bool) {
      return "BOOLEAN";
    }
    if (type instanceof ArrowType.Date) {
      return "DATE";
    }
    if (type instanceof ArrowType.Timestamp) {
      return "TIMESTAMP";
    }
    if (type instanceof ArrowType.Time) {
      return "TIME";
    }
    if (type instanceof ArrowType.Binary || type instanceof ArrowType.FixedSizeBinary) {
      return "VARBINARY";
    }
    return null;
  }
}
