package dev.quiver.binding.dataframe;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Period;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A DataFrame expression (column, literal, operator, function or aggregate call): an immutable tree
 * built with static factories ({@link #col}, {@link #lit}, {@link #sum}, ...) and fluent methods
 * ({@link #add}, {@link #gt}, {@link #alias}, ...), modelled on datafusion-python.
 *
 * <p>Fluent methods that take an {@code Object} accept either an {@code Expr} or a literal value
 * (see {@link #lit}). The node classes nested here are read by the planner; {@link #toString()}
 * renders SQL-like text, which also names unaliased output columns.
 */
public abstract class Expr {
  /** Time units accepted by {@link #extract}. */
  private static final Set<String> EXTRACT_UNITS =
      Set.of(
          "YEAR",
          "QUARTER",
          "MONTH",
          "WEEK",
          "DAY",
          "DOW",
          "DOY",
          "HOUR",
          "MINUTE",
          "SECOND",
          "MILLISECOND",
          "MICROSECOND",
          "EPOCH",
          "DECADE",
          "CENTURY",
          "MILLENNIUM",
          "ISOYEAR",
          "ISODOW");

  // Only the nested node classes extend Expr.
  private Expr() {}

  // ---------------------------------------------------------------- factories

  /**
   * A reference to input column {@code name} (matched case-insensitively); {@code "*"} means all
   * columns.
   */
  public static Expr col(String name) {
    return new Column(name);
  }

  /**
   * A literal: Long, Integer, Short, Byte, Double, Float, BigDecimal, String, Boolean, LocalDate,
   * LocalDateTime, Period (days only or months/years only) or null. An {@code Expr} is returned as
   * is.
   */
  public static Expr lit(Object value) {
    if (value instanceof Expr e) {
      return e;
    }
    return new Literal(value);
  }

  /** A DATE literal from ISO-8601 text, e.g. {@code date("1994-01-01")}. */
  public static Expr date(String isoDate) {
    Objects.requireNonNull(isoDate, "isoDate");
    try {
      return new Literal(LocalDate.parse(isoDate));
    } catch (DateTimeParseException e) {
      throw new QueryTypeException(
          "Invalid date literal '" + isoDate + "': write it as yyyy-MM-dd, e.g. 1994-01-01", e);
    }
  }

  /** A TIMESTAMP literal from ISO-8601 text, e.g. {@code timestamp("1994-01-01T10:00:00")}. */
  public static Expr timestamp(String isoTimestamp) {
    Objects.requireNonNull(isoTimestamp, "isoTimestamp");
    try {
      return new Literal(LocalDateTime.parse(isoTimestamp));
    } catch (DateTimeParseException e) {
      throw new QueryTypeException(
          "Invalid timestamp literal '"
              + isoTimestamp
              + "': write it as yyyy-MM-ddTHH:mm:ss, e.g. 1994-01-01T10:00:00",
          e);
    }
  }

  /** An interval of {@code days} days (add it to or subtract it from a date). */
  public static Expr intervalDays(long days) {
    return new Literal(Period.ofDays(Math.toIntExact(days)));
  }

  /** An interval of {@code months} months (add it to or subtract it from a date). */
  public static Expr intervalMonths(long months) {
    return new Literal(Period.ofMonths(Math.toIntExact(months)));
  }

  /** An interval of {@code years} years. */
  public static Expr intervalYears(long years) {
    return new Literal(Period.ofYears(Math.toIntExact(years)));
  }

  /** Starts a CASE expression: {@code when(c1, v1).when(c2, v2).otherwise(v3)}. */
  public static CaseBuilder when(Expr condition, Object value) {
    return new CaseBuilder(
        List.of(Objects.requireNonNull(condition, "condition")), List.of(lit(value)));
  }

  /** The first non-null argument. */
  public static Expr coalesce(Object... args) {
    if (args.length == 0) {
      throw new QuiverException("coalesce needs at least one argument");
    }
    return new Function("coalesce", toExprs(args));
  }

  /** NULL when {@code a} equals {@code b}, else {@code a}. */
  public static Expr nullIf(Object a, Object b) {
    return new Function("nullif", List.of(lit(a), lit(b)));
  }

  /** A call of a built-in scalar function or a registered UDF, by (case-insensitive) name. */
  public static Expr fn(String name, Object... args) {
    Objects.requireNonNull(name, "name");
    return new Function(name.toLowerCase(Locale.ROOT), toExprs(args));
  }

  /** A field of a date or timestamp: {@code extract("year", col("d"))}. */
  public static Expr extract(String unit, Expr source) {
    String u = Objects.requireNonNull(unit, "unit").toUpperCase(Locale.ROOT);
    if (!EXTRACT_UNITS.contains(u)) {
      throw new QueryTypeException(
          "Unknown time unit '"
              + unit
              + "' in extract; use one of "
              + String.join(", ", EXTRACT_UNITS));
    }
    return new Function("extract", List.of(new Literal(u), source));
  }

  /** {@code len} characters of {@code source} from 1-based position {@code from}. */
  public static Expr substring(Expr source, int from, int len) {
    return new Function("substring", List.of(source, lit(from), lit(len)));
  }

  /** The characters of {@code source} from 1-based position {@code from} to the end. */
  public static Expr substring(Expr source, int from) {
    return new Function("substring", List.of(source, lit(from)));
  }

  /** SUM aggregate. */
  public static Expr sum(Expr e) {
    return new Aggregate(AggFunc.SUM, e, false);
  }

  /** AVG aggregate. */
  public static Expr avg(Expr e) {
    return new Aggregate(AggFunc.AVG, e, false);
  }

  /** MIN aggregate. */
  public static Expr min(Expr e) {
    return new Aggregate(AggFunc.MIN, e, false);
  }

  /** MAX aggregate. */
  public static Expr max(Expr e) {
    return new Aggregate(AggFunc.MAX, e, false);
  }

  /** COUNT of non-null values aggregate. */
  public static Expr count(Expr e) {
    return new Aggregate(AggFunc.COUNT, e, false);
  }

  /** COUNT(*) aggregate. */
  public static Expr countStar() {
    return new Aggregate(AggFunc.COUNT, null, false);
  }

  /** COUNT(DISTINCT e) aggregate. */
  public static Expr countDistinct(Expr e) {
    return new Aggregate(AggFunc.COUNT, e, true);
  }

  // ---------------------------------------------------------------- fluent operators

  /** {@code this + other}. */
  public Expr add(Object other) {
    return binary(Op.ADD, other);
  }

  /** {@code this - other}. */
  public Expr sub(Object other) {
    return binary(Op.SUB, other);
  }

  /** {@code this * other}. */
  public Expr mul(Object other) {
    return binary(Op.MUL, other);
  }

  /** {@code this / other}. */
  public Expr div(Object other) {
    return binary(Op.DIV, other);
  }

  /** {@code this % other}. */
  public Expr mod(Object other) {
    return binary(Op.MOD, other);
  }

  /** {@code -this}. */
  public Expr neg() {
    return new Operator(Op.NEG, List.of(this));
  }

  /** {@code this = other}. */
  public Expr eq(Object other) {
    return binary(Op.EQ, other);
  }

  /** {@code this <> other}. */
  public Expr notEq(Object other) {
    return binary(Op.NOT_EQ, other);
  }

  /** {@code this < other}. */
  public Expr lt(Object other) {
    return binary(Op.LT, other);
  }

  /** {@code this <= other}. */
  public Expr ltEq(Object other) {
    return binary(Op.LT_EQ, other);
  }

  /** {@code this > other}. */
  public Expr gt(Object other) {
    return binary(Op.GT, other);
  }

  /** {@code this >= other}. */
  public Expr gtEq(Object other) {
    return binary(Op.GT_EQ, other);
  }

  /** {@code this AND other}. */
  public Expr and(Expr other) {
    return binary(Op.AND, other);
  }

  /** {@code this OR other}. */
  public Expr or(Expr other) {
    return binary(Op.OR, other);
  }

  /** {@code NOT this}. */
  public Expr not() {
    return new Operator(Op.NOT, List.of(this));
  }

  /** {@code this IS NULL}. */
  public Expr isNull() {
    return new Operator(Op.IS_NULL, List.of(this));
  }

  /** {@code this IS NOT NULL}. */
  public Expr isNotNull() {
    return new Operator(Op.IS_NOT_NULL, List.of(this));
  }

  /** {@code this BETWEEN low AND high} (both bounds included). */
  public Expr between(Object low, Object high) {
    return new Operator(Op.BETWEEN, List.of(this, lit(low), lit(high)));
  }

  /** {@code this IN (values...)}. */
  public Expr in(Object... values) {
    if (values.length == 0) {
      throw new QuiverException("in(...) needs at least one value");
    }
    List<Expr> operands = new ArrayList<>();
    operands.add(this);
    operands.addAll(toExprs(values));
    return new Operator(Op.IN, operands);
  }

  /** {@code this LIKE pattern} ({@code %} and {@code _} wildcards). */
  public Expr like(Object pattern) {
    return binary(Op.LIKE, pattern);
  }

  /** {@code CAST(this AS type)}. */
  public Expr cast(ArrowType type) {
    return new Cast(this, Objects.requireNonNull(type, "type"));
  }

  /** Names the output column. */
  public Expr alias(String name) {
    Objects.requireNonNull(name, "name");
    Expr inner = this instanceof Alias a ? a.expr() : this;
    return new Alias(inner, name);
  }

  /** Ascending sort key (nulls last unless {@link #nullsFirst} is called, as in SQL here). */
  public Expr asc() {
    return this instanceof SortKey s
        ? new SortKey(s.expr(), true, s.nullsFirst)
        : new SortKey(this, true, null);
  }

  /** Descending sort key (nulls last unless {@link #nullsFirst} is called, as in SQL here). */
  public Expr desc() {
    return this instanceof SortKey s
        ? new SortKey(s.expr(), false, s.nullsFirst)
        : new SortKey(this, false, null);
  }

  /** Sort key with nulls before all values (ascending unless {@link #desc} was called). */
  public Expr nullsFirst() {
    return this instanceof SortKey s
        ? new SortKey(s.expr(), s.ascending(), true)
        : new SortKey(this, true, true);
  }

  /** Sort key with nulls after all values (ascending unless {@link #desc} was called). */
  public Expr nullsLast() {
    return this instanceof SortKey s
        ? new SortKey(s.expr(), s.ascending(), false)
        : new SortKey(this, true, false);
  }

  private Expr binary(Op op, Object other) {
    return new Operator(op, List.of(this, lit(other)));
  }

  private static List<Expr> toExprs(Object[] values) {
    List<Expr> out = new ArrayList<>(values.length);
    for (Object v : values) {
      out.add(lit(v));
    }
    return List.copyOf(out);
  }

  /** Renders a child, parenthesised when it is itself an infix operation. */
  private static String operand(Expr e) {
    if (e instanceof Operator o && o.op().infix()) {
      return "(" + o + ")";
    }
    return e.toString();
  }

  // ---------------------------------------------------------------- node kinds

  /** Operators of {@link Operator} nodes. */
  public enum Op {
    /** Addition (also date + interval). */
    ADD("+", true),
    /** Subtraction (also date - interval). */
    SUB("-", true),
    /** Multiplication. */
    MUL("*", true),
    /** Division. */
    DIV("/", true),
    /** Remainder. */
    MOD("%", true),
    /** Negation. */
    NEG("-", false),
    /** Equality. */
    EQ("=", true),
    /** Inequality. */
    NOT_EQ("<>", true),
    /** Less than. */
    LT("<", true),
    /** Less than or equal. */
    LT_EQ("<=", true),
    /** Greater than. */
    GT(">", true),
    /** Greater than or equal. */
    GT_EQ(">=", true),
    /** Logical and. */
    AND("AND", true),
    /** Logical or. */
    OR("OR", true),
    /** Logical not. */
    NOT("NOT", false),
    /** Null test. */
    IS_NULL("IS NULL", false),
    /** Non-null test. */
    IS_NOT_NULL("IS NOT NULL", false),
    /** Range test, bounds included. */
    BETWEEN("BETWEEN", false),
    /** List membership. */
    IN("IN", false),
    /** Pattern match. */
    LIKE("LIKE", true);

    private final String symbol;
    private final boolean infix;

    Op(String symbol, boolean infix) {
      this.symbol = symbol;
      this.infix = infix;
    }

    /** The SQL spelling. */
    public String symbol() {
      return symbol;
    }

    /** Whether it is written between two operands. */
    public boolean infix() {
      return infix;
    }
  }

  /** Aggregate functions of {@link Aggregate} nodes. */
  public enum AggFunc {
    /** Sum. */
    SUM,
    /** Average. */
    AVG,
    /** Minimum. */
    MIN,
    /** Maximum. */
    MAX,
    /** Count. */
    COUNT
  }

  /** A column reference. */
  public static final class Column extends Expr {
    private final String name;

    Column(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /** The column name as written. */
    public String name() {
      return name;
    }

    @Override
    public String toString() {
      return name;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Column c && c.name.equals(name);
    }

    @Override
    public int hashCode() {
      return name.hashCode();
    }
  }

  /** A literal value. */
  public static final class Literal extends Expr {
    private final Object value;

    Literal(Object value) {
      this.value = normalize(value);
    }

    private static Object normalize(Object v) {
      if (v == null
          || v instanceof Long
          || v instanceof Integer
          || v instanceof Double
          || v instanceof String
          || v instanceof Boolean
          || v instanceof LocalDate
          || v instanceof LocalDateTime) {
        return v;
      }
      if (v instanceof Short || v instanceof Byte) {
        return ((Number) v).intValue();
      }
      if (v instanceof Float f) {
        return f.doubleValue();
      }
      if (v instanceof BigDecimal d) {
        if (d.precision() > 38) {
          throw new QueryTypeException(
              "Decimal literal "
                  + d.toPlainString()
                  + " has more than 38 digits; round it or use a double");
        }
        return d;
      }
      if (v instanceof Period p) {
        if (p.getDays() != 0 && p.toTotalMonths() != 0) {
          throw new QueryTypeException(
              "Interval literal " + p + " mixes days with months; add two intervals instead");
        }
        return p;
      }
      throw new QueryTypeException(
          "Unsupported literal of type "
              + v.getClass().getName()
              + "; use Long, Integer, Double, BigDecimal, String, Boolean, LocalDate, LocalDateTime,"
              + " Period or null");
    }

    /**
     * The value: null, Long, Integer, Double, BigDecimal, String, Boolean, LocalDate, LocalDateTime
     * or Period.
     */
    public Object value() {
      return value;
    }

    @Override
    public String toString() {
      if (value == null) {
        return "NULL";
      }
      if (value instanceof String s) {
        return "'" + s.replace("'", "''") + "'";
      }
      if (value instanceof Boolean b) {
        return b ? "TRUE" : "FALSE";
      }
      if (value instanceof LocalDate d) {
        return "DATE '" + d + "'";
      }
      if (value instanceof LocalDateTime t) {
        return "TIMESTAMP '" + t + "'";
      }
      if (value instanceof BigDecimal d) {
        return d.toPlainString();
      }
      if (value instanceof Period p) {
        if (p.toTotalMonths() != 0) {
          return "INTERVAL '" + p.toTotalMonths() + "' MONTH";
        }
        return "INTERVAL '" + p.getDays() + "' DAY";
      }
      return value.toString();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Literal l && Objects.equals(l.value, value);
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(value);
    }
  }

  /**
   * An operator applied to operands (for {@code BETWEEN}: value, low, high; for {@code IN}: value,
   * list...).
   */
  public static final class Operator extends Expr {
    private final Op op;
    private final List<Expr> operands;

    Operator(Op op, List<Expr> operands) {
      this.op = op;
      this.operands = List.copyOf(operands);
    }

    /** The operator. */
    public Op op() {
      return op;
    }

    /** The operands, in order. */
    public List<Expr> operands() {
      return operands;
    }

    @Override
    public String toString() {
      switch (op) {
        case NEG:
          return "-" + operand(operands.get(0));
        case NOT:
          return "NOT " + operand(operands.get(0));
        case IS_NULL:
        case IS_NOT_NULL:
          return operand(operands.get(0)) + " " + op.symbol();
        case BETWEEN:
          return operand(operands.get(0))
              + " BETWEEN "
              + operand(operands.get(1))
              + " AND "
              + operand(operands.get(2));
        case IN:
          StringBuilder sb = new StringBuilder(operand(operands.get(0))).append(" IN (");
          for (int i = 1; i < operands.size(); i++) {
            sb.append(i > 1 ? ", " : "").append(operands.get(i));
          }
          return sb.append(')').toString();
        default:
          return operand(operands.get(0)) + " " + op.symbol() + " " + operand(operands.get(1));
      }
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Operator x && x.op == op && x.operands.equals(operands);
    }

    @Override
    public int hashCode() {
      return Objects.hash(op, operands);
    }
  }

  /**
   * A scalar function call by lower-case name. {@code extract} has the unit (an upper-case string
   * literal) as first argument; {@code coalesce}, {@code nullif} and {@code substring} are
   * built-ins like any other name.
   */
  public static final class Function extends Expr {
    private final String name;
    private final List<Expr> args;

    Function(String name, List<Expr> args) {
      this.name = name;
      this.args = List.copyOf(args);
    }

    /** The function name, lower case. */
    public String name() {
      return name;
    }

    /** The arguments, in order. */
    public List<Expr> args() {
      return args;
    }

    @Override
    public String toString() {
      if (name.equals("extract") && args.size() == 2 && args.get(0) instanceof Literal unit) {
        return "EXTRACT(" + unit.value() + " FROM " + args.get(1) + ")";
      }
      StringBuilder sb = new StringBuilder(name).append('(');
      for (int i = 0; i < args.size(); i++) {
        sb.append(i > 0 ? ", " : "").append(args.get(i));
      }
      return sb.append(')').toString();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Function f && f.name.equals(name) && f.args.equals(args);
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, args);
    }
  }

  /** A cast to an Arrow type. */
  public static final class Cast extends Expr {
    private final Expr expr;
    private final ArrowType type;

    Cast(Expr expr, ArrowType type) {
      this.expr = expr;
      this.type = type;
    }

    /** The value cast. */
    public Expr expr() {
      return expr;
    }

    /** The target type. */
    public ArrowType type() {
      return type;
    }

    @Override
    public String toString() {
      return "CAST(" + expr + " AS " + sqlTypeName(type) + ")";
    }

    private static String sqlTypeName(ArrowType t) {
      if (t instanceof ArrowType.Int i) {
        switch (i.getBitWidth()) {
          case 8:
            return "TINYINT";
          case 16:
            return "SMALLINT";
          case 32:
            return "INTEGER";
          default:
            return "BIGINT";
        }
      }
      if (t instanceof ArrowType.FloatingPoint f) {
        return f.getPrecision() == org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE
            ? "DOUBLE"
            : "FLOAT";
      }
      if (t instanceof ArrowType.Decimal d) {
        return "DECIMAL(" + d.getPrecision() + ", " + d.getScale() + ")";
      }
      if (t instanceof ArrowType.Utf8) {
        return "VARCHAR";
      }
      if (t instanceof ArrowType.Bool) {
        return "BOOLEAN";
      }
      if (t instanceof ArrowType.Date) {
        return "DATE";
      }
      if (t instanceof ArrowType.Timestamp) {
        return "TIMESTAMP";
      }
      return t.toString();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Cast c && c.expr.equals(expr) && c.type.equals(type);
    }

    @Override
    public int hashCode() {
      return Objects.hash(expr, type);
    }
  }

  /** {@code CASE WHEN c1 THEN v1 ... ELSE e END}; the else value is null when absent. */
  public static final class Case extends Expr {
    private final List<Expr> conditions;
    private final List<Expr> values;
    private final Expr otherwise;

    Case(List<Expr> conditions, List<Expr> values, Expr otherwise) {
      this.conditions = List.copyOf(conditions);
      this.values = List.copyOf(values);
      this.otherwise = otherwise;
    }

    /** The WHEN conditions, in order. */
    public List<Expr> conditions() {
      return conditions;
    }

    /** The THEN values, parallel to {@link #conditions()}. */
    public List<Expr> values() {
      return values;
    }

    /** The ELSE value, or null when there is none (the result is then NULL). */
    public Expr otherwise() {
      return otherwise;
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("CASE");
      for (int i = 0; i < conditions.size(); i++) {
        sb.append(" WHEN ").append(conditions.get(i)).append(" THEN ").append(values.get(i));
      }
      if (otherwise != null) {
        sb.append(" ELSE ").append(otherwise);
      }
      return sb.append(" END").toString();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Case c
          && c.conditions.equals(conditions)
          && c.values.equals(values)
          && Objects.equals(c.otherwise, otherwise);
    }

    @Override
    public int hashCode() {
      return Objects.hash(conditions, values, otherwise);
    }
  }

  /** An aggregate call; the argument is null for {@code COUNT(*)}. */
  public static final class Aggregate extends Expr {
    private final AggFunc func;
    private final Expr arg;
    private final boolean distinct;

    Aggregate(AggFunc func, Expr arg, boolean distinct) {
      this.func = func;
      this.arg = func == AggFunc.COUNT ? arg : Objects.requireNonNull(arg, "argument");
      this.distinct = distinct;
    }

    /** The aggregate function. */
    public AggFunc func() {
      return func;
    }

    /** The argument, or null for {@code COUNT(*)}. */
    public Expr arg() {
      return arg;
    }

    /** Whether only distinct argument values count. */
    public boolean distinct() {
      return distinct;
    }

    @Override
    public String toString() {
      String f = func.name().toLowerCase(Locale.ROOT);
      if (arg == null) {
        return f + "(*)";
      }
      return f + "(" + (distinct ? "DISTINCT " : "") + arg + ")";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Aggregate a
          && a.func == func
          && Objects.equals(a.arg, arg)
          && a.distinct == distinct;
    }

    @Override
    public int hashCode() {
      return Objects.hash(func, arg, distinct);
    }
  }

  /** An expression with an output column name. */
  public static final class Alias extends Expr {
    private final Expr expr;
    private final String name;

    Alias(Expr expr, String name) {
      this.expr = expr;
      this.name = name;
    }

    /** The named expression. */
    public Expr expr() {
      return expr;
    }

    /** The output column name. */
    public String name() {
      return name;
    }

    @Override
    public String toString() {
      return expr + " AS " + name;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Alias a && a.expr.equals(expr) && a.name.equals(name);
    }

    @Override
    public int hashCode() {
      return Objects.hash(expr, name);
    }
  }

  /** A sort key: direction and, when set, where nulls go. */
  public static final class SortKey extends Expr {
    private final Expr expr;
    private final boolean ascending;
    private final Boolean nullsFirst;

    SortKey(Expr expr, boolean ascending, Boolean nullsFirst) {
      this.expr = expr;
      this.ascending = ascending;
      this.nullsFirst = nullsFirst;
    }

    /** The expression sorted on. */
    public Expr expr() {
      return expr;
    }

    /** Whether smaller values come first. */
    public boolean ascending() {
      return ascending;
    }

    /** Whether nulls come first; by default they come last in both directions, as in SQL. */
    public boolean isNullsFirst() {
      return nullsFirst != null && nullsFirst;
    }

    /** Whether {@link #nullsFirst} was set explicitly. */
    public boolean nullsExplicit() {
      return nullsFirst != null;
    }

    @Override
    public String toString() {
      String s = expr + (ascending ? " ASC" : " DESC");
      return nullsFirst == null ? s : s + (nullsFirst ? " NULLS FIRST" : " NULLS LAST");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof SortKey k
          && k.expr.equals(expr)
          && k.ascending == ascending
          && Objects.equals(k.nullsFirst, nullsFirst);
    }

    @Override
    public int hashCode() {
      return Objects.hash(expr, ascending, nullsFirst);
    }
  }

  /** Builds a CASE expression one WHEN at a time. */
  public static final class CaseBuilder {
    private final List<Expr> conditions;
    private final List<Expr> values;

    private CaseBuilder(List<Expr> conditions, List<Expr> values) {
      this.conditions = conditions;
      this.values = values;
    }

    /** Adds a WHEN branch. */
    public CaseBuilder when(Expr condition, Object value) {
      List<Expr> c = new ArrayList<>(conditions);
      c.add(Objects.requireNonNull(condition, "condition"));
      List<Expr> v = new ArrayList<>(values);
      v.add(lit(value));
      return new CaseBuilder(List.copyOf(c), List.copyOf(v));
    }

    /** Finishes with an ELSE value. */
    public Expr otherwise(Object value) {
      return new Case(conditions, values, lit(value));
    }

    /** Finishes without ELSE (unmatched rows give NULL). */
    public Expr end() {
      return new Case(conditions, values, null);
    }

    @Override
    public String toString() {
      return end().toString();
    }
  }
}
