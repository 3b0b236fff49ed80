package dev.quiver.binding.functions;

import static dev.quiver.binding.functions.Arguments.coerce;
import static dev.quiver.binding.functions.Arguments.rowWise;
import static dev.quiver.binding.functions.ScalarFunction.of;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.expr.DateArithmeticExpr;
import dev.quiver.binding.physical.expr.DateTruncExpr;
import dev.quiver.binding.physical.expr.ExtractExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.MathExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.ScalarFunctionExpr;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;

/** The date and time functions, and floor and ceil, which also truncate timestamps. */
final class DateTimeFunctions {
  private DateTimeFunctions() {}

  private static SqlFunction timeDate(
      String name,
      org.apache.calcite.sql.type.SqlReturnTypeInference type,
      org.apache.calcite.sql.type.SqlOperandTypeChecker operands) {
    return new SqlFunction(
        name, SqlKind.OTHER_FUNCTION, type, null, operands, SqlFunctionCategory.TIMEDATE);
  }

  /** A datetime formatted as text, by a format string of some dialect. */
  private static SqlFunction format(String name) {
    return timeDate(
        name,
        ReturnTypes.VARCHAR_NULLABLE,
        OperandTypes.family(SqlTypeFamily.DATETIME, SqlTypeFamily.CHARACTER));
  }

  /** date_diff('unit', start, end) and datediff: DuckDB's, unit boundaries crossed. */
  private static SqlFunction dateDiff(String name) {
    return timeDate(
        name,
        ReturnTypes.BIGINT_NULLABLE,
        OperandTypes.family(
            SqlTypeFamily.CHARACTER, SqlTypeFamily.DATETIME, SqlTypeFamily.DATETIME));
  }

  /** now(): the current timestamp, as current_timestamp; evaluated per query, not folded. */
  private static final SqlFunction NOW =
      new SqlFunction(
          "NOW",
          SqlKind.OTHER_FUNCTION,
          ReturnTypes.explicit(SqlTypeName.TIMESTAMP),
          null,
          OperandTypes.NILADIC,
          SqlFunctionCategory.TIMEDATE) {
        @Override
        public boolean isDynamicFunction() {
          return true;
        }

        @Override
        public boolean isDeterministic() {
          return false;
        }
      };

  /** PostgreSQL/DuckDB {@code date_trunc('unit', value)}; Calcite only has BigQuery's form. */
  private static final SqlFunction DATE_TRUNC =
      timeDate(
          "DATE_TRUNC",
          ReturnTypes.ARG1_NULLABLE,
          OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.DATETIME));

  static final List<ScalarFunction> ALL =
      List.of(
          of(
              "current_date",
              Group.DATETIME,
              "current_date",
              "today",
              "SELECT current_date",
              c -> new LiteralExpr(LocalDate.now(), c.type())),
          of(
                  "current_timestamp, now, localtimestamp",
                  Group.DATETIME,
                  "current_timestamp, now(), localtimestamp",
                  "the current timestamp",
                  "SELECT current_timestamp, now(), localtimestamp",
                  c -> new LiteralExpr(LocalDateTime.now(), c.type()))
              .declaring(NOW),
          of(
              "extract, date_part",
              Group.DATETIME,
              "extract(part FROM d), date_part('part', d)",
              "a part of a date or timestamp: year, quarter, month, week, day, dow, doy, hour, minute, second, epoch, ...",
              "SELECT extract(year FROM DATE '2024-03-05'), date_part('month', DATE '2024-03-05')",
              DateTimeFunctions::extract),
          of(
                  "date_trunc",
                  Group.DATETIME,
                  "date_trunc('part', d)",
                  "d truncated to the part",
                  "SELECT date_trunc('month', DATE '2024-03-05')",
                  DateTimeFunctions::dateTrunc)
              .declaring(DATE_TRUNC),
          of(
                  "date_diff, datediff",
                  Group.DATETIME,
                  "date_diff('part', start, end)",
                  "number of part boundaries from start to end (DuckDB's)",
                  "SELECT date_diff('month', DATE '2024-01-31', DATE '2024-03-01'), datediff('day', DATE '2024-01-31', DATE '2024-03-01')",
                  c -> rowWise(ScalarFunctionExpr.Fn.DATE_DIFF, c, -1))
              .declaring(dateDiff("DATE_DIFF"), dateDiff("DATEDIFF")),
          of(
                  "date_add",
                  Group.DATETIME,
                  "date_add(d, interval), d + INTERVAL '...'",
                  "d moved by the interval, of d's type",
                  "SELECT date_add(DATE '2024-01-31', INTERVAL '3 days')",
                  DateTimeFunctions::dateAdd)
              .declaring(
                  timeDate(
                      "DATE_ADD",
                      ReturnTypes.ARG0_NULLABLE,
                      OperandTypes.family(
                          SqlTypeFamily.DATETIME, SqlTypeFamily.DATETIME_INTERVAL))),
          of(
                  "make_date",
                  Group.DATETIME,
                  "make_date(year, month, day)",
                  "a DATE",
                  "SELECT make_date(2024, 2, 29)",
                  c -> rowWise(ScalarFunctionExpr.Fn.MAKE_DATE, c, 0))
              .declaring(
                  timeDate(
                      "MAKE_DATE",
                      ReturnTypes.explicit(SqlTypeName.DATE).andThen(SqlTypeTransforms.TO_NULLABLE),
                      OperandTypes.family(
                          SqlTypeFamily.INTEGER, SqlTypeFamily.INTEGER, SqlTypeFamily.INTEGER))),
          of(
                  "epoch",
                  Group.DATETIME,
                  "epoch(d)",
                  "seconds since 1970-01-01 00:00:00 (DOUBLE)",
                  "SELECT epoch(TIMESTAMP '2024-01-01 00:00:01')",
                  c -> rowWise(ScalarFunctionExpr.Fn.EPOCH, c, -1))
              .declaring(
                  timeDate(
                      "EPOCH",
                      ReturnTypes.DOUBLE_NULLABLE,
                      OperandTypes.family(SqlTypeFamily.DATETIME))),
          of(
                  "strftime",
                  Group.DATETIME,
                  "strftime(d, format)",
                  "d as text with C's % specifiers (%Y %m %d %H %M %S %f %b %B %a %A %j ...)",
                  "SELECT strftime(DATE '2024-03-05', '%d/%m/%Y')",
                  c -> rowWise(ScalarFunctionExpr.Fn.STRFTIME, c, -1))
              .declaring(format("STRFTIME")),
          of(
                  "to_char",
                  Group.DATETIME,
                  "to_char(d, template)",
                  "d as text with PostgreSQL's patterns (YYYY MM DD HH24 MI SS Mon Month Day FM ...)",
                  "SELECT to_char(TIMESTAMP '2024-03-05 14:07:00', 'YYYY-MM-DD HH24:MI')",
                  c -> rowWise(ScalarFunctionExpr.Fn.TO_CHAR, c, -1))
              // PostgreSQL's takes only timestamps; this one takes dates too.
              .declaring(format("TO_CHAR")),
          of(
                  "date_format",
                  Group.DATETIME,
                  "date_format(d, format)",
                  "d as text with MySQL's % specifiers (%Y %m %d %H %i %s %M %W ...)",
                  "SELECT date_format(DATE '2024-03-05', '%Y-%m-%d')",
                  c -> rowWise(ScalarFunctionExpr.Fn.DATE_FORMAT, c, -1))
              .declaring(format("DATE_FORMAT")));

  /** floor and ceil, in the numeric section. */
  static final List<ScalarFunction> ROUNDING =
      List.of(
          of(
              "floor",
              Group.NUMERIC,
              "floor(x), floor(t TO unit)",
              "x rounded down; a timestamp truncated to the unit",
              "SELECT floor(2.5), floor(TIMESTAMP '2024-03-05 10:30:00' TO HOUR)",
              c -> floorCeil(c, false)),
          of(
              "ceil, ceiling",
              Group.NUMERIC,
              "ceil(x), ceil(t TO unit)",
              "x rounded up; a timestamp rounded up to the unit",
              "SELECT ceil(2.1), ceiling(2.1), ceil(TIMESTAMP '2024-03-05 10:30:00' TO HOUR)",
              c -> floorCeil(c, true)));

  private static PhysicalExpr extract(ScalarFunction.Call c) {
    TimeUnitRange unit = extractUnit((RexLiteral) c.rex().getOperands().get(0), c.rex());
    return new ExtractExpr(extractField(unit, c.rex()), c.arg(1), c.type());
  }

  private static PhysicalExpr dateTrunc(ScalarFunction.Call c) {
    List<RexNode> ops = c.rex().getOperands();
    // Accepts DATE_TRUNC('unit', x) (PostgreSQL, DuckDB) and DATE_TRUNC(x, unit) (BigQuery).
    int unitAt = ops.get(0) instanceof RexLiteral ? 0 : 1;
    RexLiteral unit = (RexLiteral) ops.get(unitAt);
    String text =
        unit.getValue() instanceof TimeUnitRange r
            ? r.startUnit.name()
            : unit.getValueAs(String.class);
    PhysicalExpr x = c.arg(1 - unitAt);
    if (x.dataType() instanceof ArrowType.Utf8) {
      x = coerce(x, TypeMapping.TIMESTAMP);
    }
    ArrowType type = c.type();
    ArrowType out =
        type instanceof ArrowType.Date || type instanceof ArrowType.Timestamp
            ? type
            : TypeMapping.TIMESTAMP;
    return new DateTruncExpr(truncUnit(text, c.rex()), x, false, out);
  }

  private static PhysicalExpr dateAdd(ScalarFunction.Call c) {
    PhysicalExpr l = c.arg(0);
    if (l.dataType() instanceof ArrowType.Utf8) {
      l = coerce(l, TypeMapping.TIMESTAMP);
    }
    return new DateArithmeticExpr(DateArithmeticExpr.Op.PLUS, l, c.arg(1), c.type());
  }

  /** FLOOR/CEIL of a number, or of a timestamp to a unit ({@code FLOOR(t TO DAY)}). */
  private static PhysicalExpr floorCeil(ScalarFunction.Call c, boolean ceil) {
    PhysicalExpr x = c.arg(0);
    if (c.arity() == 2) {
      RexLiteral unit = (RexLiteral) c.rex().getOperands().get(1);
      TimeUnitRange range = unit.getValueAs(TimeUnitRange.class);
      return new DateTruncExpr(truncUnit(range.startUnit.name(), c.rex()), x, ceil, c.type());
    }
    if (x.dataType() instanceof ArrowType.Int) {
      return coerce(x, c.type());
    }
    return new MathExpr(ceil ? MathExpr.Fn.CEIL : MathExpr.Fn.FLOOR, List.of(x), c.type());
  }

  /**
   * The unit of EXTRACT ({@code EXTRACT(YEAR FROM d)}: a symbol) or of DATE_PART, which the
   * validator also accepts with a string unit as PostgreSQL and DuckDB write it ({@code
   * date_part('year', d)}).
   */
  private static TimeUnitRange extractUnit(RexLiteral unit, RexCall call) {
    if (unit.getValue() instanceof TimeUnitRange range) {
      return range;
    }
    String text = unit.getValueAs(String.class);
    TimeUnitRange range =
        text == null ? null : DATE_PART_UNITS.get(text.strip().toLowerCase(Locale.ROOT));
    if (range == null) {
      throw new QueryTypeException(
          "Unknown date part '"
              + text
              + "' in "
              + call
              + "; use one of "
              + String.join(", ", new TreeSet<>(DATE_PART_UNITS.keySet())));
    }
    return range;
  }

  /** Date part names DATE_PART accepts, with the plural and alternative spellings DuckDB takes. */
  private static final Map<String, TimeUnitRange> DATE_PART_UNITS = dateTimeUnits();

  private static Map<String, TimeUnitRange> dateTimeUnits() {
    Map<String, TimeUnitRange> m = new java.util.HashMap<>();
    for (TimeUnitRange r :
        List.of(
            TimeUnitRange.YEAR,
            TimeUnitRange.QUARTER,
            TimeUnitRange.MONTH,
            TimeUnitRange.WEEK,
            TimeUnitRange.DAY,
            TimeUnitRange.HOUR,
            TimeUnitRange.MINUTE,
            TimeUnitRange.SECOND,
            TimeUnitRange.MILLISECOND,
            TimeUnitRange.MICROSECOND,
            TimeUnitRange.DECADE,
            TimeUnitRange.CENTURY,
            TimeUnitRange.MILLENNIUM)) {
      String name = r.name().toLowerCase(Locale.ROOT);
      m.put(name, r);
      m.put(name + "s", r);
    }
    m.put("millennia", TimeUnitRange.MILLENNIUM);
    m.put("centuries", TimeUnitRange.CENTURY);
    m.put("dow", TimeUnitRange.DOW);
    m.put("dayofweek", TimeUnitRange.DOW);
    m.put("weekday", TimeUnitRange.DOW);
    m.put("isodow", TimeUnitRange.ISODOW);
    m.put("doy", TimeUnitRange.DOY);
    m.put("dayofyear", TimeUnitRange.DOY);
    m.put("isoyear", TimeUnitRange.ISOYEAR);
    m.put("epoch", TimeUnitRange.EPOCH);
    return Map.copyOf(m);
  }

  private static ExtractExpr.Field extractField(TimeUnitRange unit, RexCall call) {
    switch (unit) {
      case YEAR:
        return ExtractExpr.Field.YEAR;
      case QUARTER:
        return ExtractExpr.Field.QUARTER;
      case MONTH:
        return ExtractExpr.Field.MONTH;
      case WEEK:
        return ExtractExpr.Field.WEEK;
      case DAY:
        return ExtractExpr.Field.DAY;
      case DOW:
        return ExtractExpr.Field.DOW;
      case ISODOW:
        return ExtractExpr.Field.ISODOW;
      case DOY:
        return ExtractExpr.Field.DOY;
      case HOUR:
        return ExtractExpr.Field.HOUR;
      case MINUTE:
        return ExtractExpr.Field.MINUTE;
      case SECOND:
        return ExtractExpr.Field.SECOND;
      case MILLISECOND:
        return ExtractExpr.Field.MILLISECOND;
      case MICROSECOND:
        return ExtractExpr.Field.MICROSECOND;
      case EPOCH:
        return ExtractExpr.Field.EPOCH;
      case DECADE:
        return ExtractExpr.Field.DECADE;
      case CENTURY:
        return ExtractExpr.Field.CENTURY;
      case MILLENNIUM:
        return ExtractExpr.Field.MILLENNIUM;
      case ISOYEAR:
        return ExtractExpr.Field.ISOYEAR;
      default:
        throw new QueryTypeException("EXTRACT(" + unit + ") is not supported in " + call);
    }
  }

  static DateTruncExpr.Unit truncUnit(String unit, Object where) {
    String u = unit.toUpperCase(Locale.ROOT);
    if (u.endsWith("S") && !u.equals("S")) {
      u = u.substring(0, u.length() - 1);
    }
    try {
      return DateTruncExpr.Unit.valueOf(u);
    } catch (IllegalArgumentException e) {
      throw new QueryTypeException(
          "Unknown date part '"
              + unit
              + "' in "
              + where
              + "; use year, quarter, month, week, day, "
              + "hour, minute or second");
    }
  }
}
