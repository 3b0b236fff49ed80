package dev.quiver.binding.dataframe;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Period;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.TimestampString;

/**
 * Translates DataFrame {@link Expr} trees into Calcite {@link RexNode}s over the input(s) on top of
 * a RelBuilder's stack, producing the same operator forms the SQL front end produces.
 */
final class ExprTranslator {
  /** How values are grouped for type checks. */
  enum Category {
    NUMERIC,
    CHAR,
    BOOLEAN,
    DATETIME,
    INTERVAL,
    NULL,
    OTHER
  }

  private final RelBuilder b;
  private final FunctionResolver udfs;

  /** Row types addressable by name: one input, or the two inputs of a join. */
  private final List<RelDataType> inputs;

  /** Only the first {@code nameLimit} fields of a single input are addressable by name. */
  private final int nameLimit;

  /** Expressions already computed below, by field index (aggregate outputs and group keys). */
  private final Map<Expr, Integer> computed;

  private ExprTranslator(
      RelBuilder b,
      FunctionResolver udfs,
      List<RelDataType> inputs,
      int nameLimit,
      Map<Expr, Integer> computed) {
    this.b = b;
    this.udfs = udfs;
    this.inputs = inputs;
    this.nameLimit = nameLimit;
    this.computed = computed;
  }

  /** A translator over the single input on top of the stack. */
  static ExprTranslator single(RelBuilder b, FunctionResolver udfs) {
    RelDataType row = b.peek().getRowType();
    return new ExprTranslator(b, udfs, List.of(row), row.getFieldCount(), Map.of());
  }

  /**
   * A translator over the two inputs on top of the stack (left pushed first), for join conditions.
   */
  static ExprTranslator join(RelBuilder b, FunctionResolver udfs) {
    RelDataType left = b.peek(1).getRowType();
    RelDataType right = b.peek(0).getRowType();
    return new ExprTranslator(b, udfs, List.of(left, right), Integer.MAX_VALUE, Map.of());
  }

  /**
   * A translator over an aggregate on top of the stack: {@code computed} maps aggregate calls and
   * group-key expressions to their output fields; columns resolve to the first {@code keyCount}
   * (group key) fields only.
   */
  static ExprTranslator overAggregate(
      RelBuilder b, FunctionResolver udfs, int keyCount, Map<Expr, Integer> computed) {
    return new ExprTranslator(
        b, udfs, List.of(b.peek().getRowType()), keyCount, new HashMap<>(computed));
  }

  RelBuilder builder() {
    return b;
  }

  FunctionResolver udfs() {
    return udfs;
  }

  /** Translates {@code e}; Calcite failures become QueryTypeExceptions naming the expression. */
  RexNode translate(Expr e) {
    try {
      return visit(e);
    } catch (QuiverException ex) {
      throw ex;
    } catch (RuntimeException ex) {
      throw new QueryTypeException("Cannot plan expression '" + e + "': " + ex.getMessage(), ex);
    }
  }

  /** The output column name of {@code e}: its alias, the column's own name, or its text. */
  String nameOf(Expr e) {
    if (e instanceof Expr.Alias a) {
      return a.name();
    }
    if (e instanceof Expr.Column c) {
      int[] hit = resolve(c.name());
      return inputs.get(hit[0]).getFieldNames().get(hit[1]);
    }
    return e.toString();
  }

  /** Strips an outer alias. */
  static Expr unalias(Expr e) {
    return e instanceof Expr.Alias a ? a.expr() : e;
  }

  /** Whether {@code e} contains an aggregate call. */
  static boolean containsAggregate(Expr e) {
    List<Expr> found = new ArrayList<>();
    collectAggregates(e, found);
    return !found.isEmpty();
  }

  /** Adds the aggregate calls in {@code e} (outermost ones, in order) to {@code out}. */
  static void collectAggregates(Expr e, List<Expr> out) {
    if (e instanceof Expr.Aggregate) {
      out.add(e);
    } else if (e instanceof Expr.Alias a) {
      collectAggregates(a.expr(), out);
    } else if (e instanceof Expr.SortKey k) {
      collectAggregates(k.expr(), out);
    } else if (e instanceof Expr.Cast c) {
      collectAggregates(c.expr(), out);
    } else if (e instanceof Expr.Operator o) {
      o.operands().forEach(x -> collectAggregates(x, out));
    } else if (e instanceof Expr.Function f) {
      f.args().forEach(x -> collectAggregates(x, out));
    } else if (e instanceof Expr.Case c) {
      c.conditions().forEach(x -> collectAggregates(x, out));
      c.values().forEach(x -> collectAggregates(x, out));
      if (c.otherwise() != null) {
        collectAggregates(c.otherwise(), out);
      }
    }
  }

  static Category category(RelDataType t) {
    SqlTypeName n = t.getSqlTypeName();
    if (n == SqlTypeName.NULL) {
      return Category.NULL;
    }
    if (SqlTypeUtil.isNumeric(t)) {
      return Category.NUMERIC;
    }
    if (SqlTypeUtil.isCharacter(t)) {
      return Category.CHAR;
    }
    if (SqlTypeUtil.isBoolean(t)) {
      return Category.BOOLEAN;
    }
    if (n == SqlTypeName.DATE || n == SqlTypeName.TIMESTAMP) {
      return Category.DATETIME;
    }
    if (SqlTypeUtil.isInterval(t)) {
      return Category.INTERVAL;
    }
    return Category.OTHER;
  }

  // ------------------------------------------------------------------ nodes

  private RexNode visit(Expr e) {
    Integer precomputed = computed.get(e);
    if (precomputed != null) {
      return b.field(precomputed);
    }
    if (e instanceof Expr.Column c) {
      return column(c.name());
    }
    if (e instanceof Expr.Literal l) {
      return literal(l.value());
    }
    if (e instanceof Expr.Operator o) {
      return operator(o);
    }
    if (e instanceof Expr.Function f) {
      return Functions.call(this, f);
    }
    if (e instanceof Expr.Cast c) {
      return cast(c);
    }
    if (e instanceof Expr.Case c) {
      return caseWhen(c);
    }
    if (e instanceof Expr.Alias a) {
      return visit(a.expr());
    }
    if (e instanceof Expr.Aggregate) {
      throw new QuiverException(
          "Aggregate '"
              + e
              + "' is not allowed here: aggregates go in the aggregate list of aggregate(groupBy,"
              + " aggregates), and may not be nested");
    }
    if (e instanceof Expr.SortKey) {
      throw new QuiverException(
          "Sort key '" + e + "' is only allowed in sort(...); remove asc()/desc()/nulls*() here");
    }
    throw new IllegalStateException("unknown expression node " + e.getClass());
  }

  private RexNode column(String name) {
    int[] hit = resolve(name);
    return inputs.size() == 1 ? b.field(hit[1]) : b.field(2, hit[0], hit[1]);
  }

  /** Finds {@code name} as {input, field}: exact match first, then case-insensitive. */
  int[] resolve(String name) {
    if (name.equals("*")) {
      throw new QuiverException("'*' is only allowed as a select(...) item");
    }
    List<int[]> hits = matches(name, true);
    if (hits.isEmpty()) {
      hits = matches(name, false);
    }
    if (hits.size() == 1) {
      return hits.get(0);
    }
    if (hits.isEmpty()) {
      List<String> all = new ArrayList<>();
      for (RelDataType row : inputs) {
        List<String> names = row.getFieldNames();
        all.addAll(names.subList(0, Math.min(nameLimit, names.size())));
      }
      throw new UnknownColumnException(name, Suggestions.closest(name, all));
    }
    if (inputs.size() == 2 && hits.get(0)[0] != hits.get(1)[0]) {
      throw new QuiverException(
          "Column '"
              + name
              + "' is ambiguous: both join inputs have it; rename it on one side first, e.g."
              + " right.select(col(\""
              + name
              + "\").alias(\"right_"
              + name
              + "\"), ...)");
    }
    List<String> spellings = new ArrayList<>();
    for (int[] h : hits) {
      spellings.add(inputs.get(h[0]).getFieldNames().get(h[1]));
    }
    throw new QuiverException(
        "Column '"
            + name
            + "' is ambiguous: the input has "
            + spellings
            + "; use the exact spelling");
  }

  private List<int[]> matches(String name, boolean exact) {
    List<int[]> hits = new ArrayList<>();
    for (int side = 0; side < inputs.size(); side++) {
      List<String> names = inputs.get(side).getFieldNames();
      int limit = Math.min(nameLimit, names.size());
      for (int i = 0; i < limit; i++) {
        if (exact ? names.get(i).equals(name) : names.get(i).equalsIgnoreCase(name)) {
          hits.add(new int[] {side, i});
        }
      }
    }
    return hits;
  }

  RexNode literal(Object v) {
    RexBuilder rex = b.getRexBuilder();
    RelDataTypeFactory f = b.getTypeFactory();
    if (v == null) {
      return rex.makeNullLiteral(f.createSqlType(SqlTypeName.NULL));
    }
    if (v instanceof Long l) {
      return rex.makeExactLiteral(BigDecimal.valueOf(l), f.createSqlType(SqlTypeName.BIGINT));
    }
    if (v instanceof Integer i) {
      return rex.makeExactLiteral(BigDecimal.valueOf(i), f.createSqlType(SqlTypeName.INTEGER));
    }
    if (v instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        throw new QueryTypeException(
            "Literal " + d + " is not a finite number; use a finite double");
      }
      return rex.makeApproxLiteral(BigDecimal.valueOf(d), f.createSqlType(SqlTypeName.DOUBLE));
    }
    if (v instanceof BigDecimal d) {
      BigDecimal normal = d.scale() < 0 ? d.setScale(0) : d;
      return rex.makeExactLiteral(normal);
    }
    if (v instanceof String s) {
      // VARCHAR rather than SQL's CHAR(n), so that CASE branches are not blank-padded.
      RelDataType varchar =
          f.createTypeWithNullability(f.createSqlType(SqlTypeName.VARCHAR, s.length()), false);
      return rex.makeLiteral(new NlsString(s, null, null), varchar, false);
    }
    if (v instanceof Boolean bool) {
      return rex.makeLiteral(bool);
    }
    if (v instanceof LocalDate d) {
      return rex.makeDateLiteral(DateString.fromDaysSinceEpoch(Math.toIntExact(d.toEpochDay())));
    }
    if (v instanceof LocalDateTime t) {
      TimestampString ts =
          new TimestampString(
                  t.getYear(),
                  t.getMonthValue(),
                  t.getDayOfMonth(),
                  t.getHour(),
                  t.getMinute(),
                  t.getSecond())
              .withNanos(t.getNano() / 1000 * 1000);
      return rex.makeTimestampLiteral(ts, t.getNano() == 0 ? 0 : 6);
    }
    if (v instanceof Period p) {
      if (p.toTotalMonths() != 0) {
        return rex.makeIntervalLiteral(
            BigDecimal.valueOf(p.toTotalMonths()),
            new SqlIntervalQualifier(TimeUnit.MONTH, null, SqlParserPos.ZERO));
      }
      return rex.makeIntervalLiteral(
          BigDecimal.valueOf(p.getDays() * 86_400_000L),
          new SqlIntervalQualifier(TimeUnit.DAY, null, SqlParserPos.ZERO));
    }
    throw new QueryTypeException("Unsupported literal " + v + " of type " + v.getClass().getName());
  }

  private RexNode operator(Expr.Operator o) {
    List<Expr> args = o.operands();
    switch (o.op()) {
      case ADD:
      case SUB:
      case MUL:
      case DIV:
      case MOD:
        return arithmetic(o, visit(args.get(0)), visit(args.get(1)));
      case NEG:
        {
          RexNode x = visit(args.get(0));
          Category c = category(x.getType());
          if (c != Category.NUMERIC && c != Category.INTERVAL && c != Category.NULL) {
            throw typeError(o, x.getType());
          }
          return b.call(SqlStdOperatorTable.UNARY_MINUS, x);
        }
      case EQ:
        return compare(o, SqlStdOperatorTable.EQUALS, visit(args.get(0)), visit(args.get(1)));
      case NOT_EQ:
        return compare(o, SqlStdOperatorTable.NOT_EQUALS, visit(args.get(0)), visit(args.get(1)));
      case LT:
        return compare(o, SqlStdOperatorTable.LESS_THAN, visit(args.get(0)), visit(args.get(1)));
      case LT_EQ:
        return compare(
            o, SqlStdOperatorTable.LESS_THAN_OR_EQUAL, visit(args.get(0)), visit(args.get(1)));
      case GT:
        return compare(o, SqlStdOperatorTable.GREATER_THAN, visit(args.get(0)), visit(args.get(1)));
      case GT_EQ:
        return compare(
            o, SqlStdOperatorTable.GREATER_THAN_OR_EQUAL, visit(args.get(0)), visit(args.get(1)));
      case AND:
        return b.and(condition(o, visit(args.get(0))), condition(o, visit(args.get(1))));
      case OR:
        return b.or(condition(o, visit(args.get(0))), condition(o, visit(args.get(1))));
      case NOT:
        return b.not(condition(o, visit(args.get(0))));
      case IS_NULL:
        return b.isNull(visit(args.get(0)));
      case IS_NOT_NULL:
        return b.isNotNull(visit(args.get(0)));
      case BETWEEN:
        {
          RexNode x = visit(args.get(0));
          RexNode[] lo = prepare(o, x, visit(args.get(1)));
          RexNode[] hi = prepare(o, x, visit(args.get(2)));
          if (lo[1] instanceof RexLiteral
              && hi[1] instanceof RexLiteral
              && lo[0] == x
              && hi[0] == x) {
            return b.between(x, lo[1], hi[1]);
          }
          return b.and(
              b.call(SqlStdOperatorTable.GREATER_THAN_OR_EQUAL, lo[0], lo[1]),
              b.call(SqlStdOperatorTable.LESS_THAN_OR_EQUAL, hi[0], hi[1]));
        }
      case IN:
        {
          RexNode x = visit(args.get(0));
          List<RexNode> values = new ArrayList<>();
          boolean literals = true;
          for (Expr v : args.subList(1, args.size())) {
            RexNode[] pair = prepare(o, x, visit(v));
            literals &= pair[0] == x && pair[1] instanceof RexLiteral;
            values.add(pair[1]);
          }
          if (literals) {
            return b.in(x, values);
          }
          List<RexNode> terms = new ArrayList<>();
          for (RexNode v : values) {
            terms.add(compare(o, SqlStdOperatorTable.EQUALS, x, v));
          }
          return terms.size() == 1 ? terms.get(0) : b.or(terms);
        }
      case LIKE:
        {
          RexNode x = visit(args.get(0));
          RexNode p = visit(args.get(1));
          if (!charOrNull(x) || !charOrNull(p)) {
            throw typeError(o, x.getType(), p.getType());
          }
          return b.call(SqlStdOperatorTable.LIKE, x, p);
        }
      default:
        throw new IllegalStateException("unknown operator " + o.op());
    }
  }

  private RexNode arithmetic(Expr.Operator o, RexNode l, RexNode r) {
    Category lc = category(l.getType());
    Category rc = category(r.getType());
    boolean numeric =
        (lc == Category.NUMERIC || lc == Category.NULL)
            && (rc == Category.NUMERIC || rc == Category.NULL);
    switch (o.op()) {
      case ADD:
        if (lc == Category.DATETIME && rc == Category.INTERVAL) {
          return datetimeCall(SqlStdOperatorTable.DATETIME_PLUS, l, r);
        }
        if (lc == Category.INTERVAL && rc == Category.DATETIME) {
          return datetimeCall(SqlStdOperatorTable.DATETIME_PLUS, r, l);
        }
        if (numeric || (lc == Category.INTERVAL && rc == Category.INTERVAL)) {
          return b.call(SqlStdOperatorTable.PLUS, l, r);
        }
        break;
      case SUB:
        if (lc == Category.DATETIME && rc == Category.INTERVAL) {
          return datetimeCall(SqlStdOperatorTable.MINUS_DATE, l, r);
        }
        if (numeric || (lc == Category.INTERVAL && rc == Category.INTERVAL)) {
          return b.call(SqlStdOperatorTable.MINUS, l, r);
        }
        break;
      case MUL:
        if (numeric) {
          return b.call(SqlStdOperatorTable.MULTIPLY, l, r);
        }
        break;
      case DIV:
        if (numeric) {
          return b.call(SqlStdOperatorTable.DIVIDE, l, r);
        }
        break;
      case MOD:
        if (numeric) {
          return b.call(SqlStdOperatorTable.MOD, l, r);
        }
        break;
      default:
        break;
    }
    throw typeError(o, l.getType(), r.getType());
  }

  /** datetime +/- interval, typed like the datetime (as the SQL front end types it). */
  private RexNode datetimeCall(SqlOperator op, RexNode datetime, RexNode interval) {
    RelDataType type =
        b.getTypeFactory()
            .createTypeWithNullability(
                datetime.getType(),
                datetime.getType().isNullable() || interval.getType().isNullable());
    return b.getRexBuilder().makeCall(type, op, List.of(datetime, interval));
  }

  /** A comparison; see {@link #prepare} for how operands of different types are reconciled. */
  RexNode compare(Expr o, SqlOperator op, RexNode l, RexNode r) {
    RexNode[] pair = prepare(o, l, r);
    return b.call(op, pair[0], pair[1]);
  }

  /**
   * Checks that {@code l} and {@code r} can be compared and reconciles their types as the SQL
   * validator does: a string literal compared with a date or timestamp is read as one, a DATE
   * compared with a TIMESTAMP is cast up, two non-literal numbers of different types are cast to
   * their common type, and an exact literal compared with a floating-point value becomes one.
   */
  RexNode[] prepare(Expr o, RexNode l, RexNode r) {
    l = coerceLiteral(o, l, r.getType());
    r = coerceLiteral(o, r, l.getType());
    Category lc = category(l.getType());
    Category rc = category(r.getType());
    if (lc == Category.NULL || rc == Category.NULL) {
      return new RexNode[] {l, r};
    }
    if (lc != rc || lc == Category.OTHER) {
      throw typeError(o, l.getType(), r.getType());
    }
    SqlTypeName ln = l.getType().getSqlTypeName();
    SqlTypeName rn = r.getType().getSqlTypeName();
    if (lc == Category.DATETIME && ln != rn) {
      if (ln == SqlTypeName.DATE) {
        l = toTimestamp(l);
      } else {
        r = toTimestamp(r);
      }
    } else if (lc == Category.NUMERIC && ln != rn) {
      boolean lLit = l instanceof RexLiteral;
      boolean rLit = r instanceof RexLiteral;
      if (lLit && !rLit) {
        l = approxLiteral(l, r.getType());
      } else if (rLit && !lLit) {
        r = approxLiteral(r, l.getType());
      } else if (!lLit) {
        RelDataType common = commonType(o, List.of(l, r));
        l = coerce(common, l);
        r = coerce(common, r);
      }
    }
    return new RexNode[] {l, r};
  }

  /** An exact numeric literal as a DOUBLE literal when compared with a floating-point value. */
  private RexNode approxLiteral(RexNode literal, RelDataType other) {
    if (!SqlTypeUtil.isApproximateNumeric(other)
        || SqlTypeUtil.isApproximateNumeric(literal.getType())) {
      return literal;
    }
    BigDecimal v = ((RexLiteral) literal).getValueAs(BigDecimal.class);
    return v == null
        ? literal
        : b.getRexBuilder()
            .makeApproxLiteral(v, b.getTypeFactory().createSqlType(SqlTypeName.DOUBLE));
  }

  private RexNode toTimestamp(RexNode date) {
    RelDataTypeFactory f = b.getTypeFactory();
    RelDataType ts =
        f.createTypeWithNullability(
            f.createSqlType(SqlTypeName.TIMESTAMP, 0), date.getType().isNullable());
    return b.getRexBuilder().makeCast(ts, date);
  }

  private RexNode coerceLiteral(Expr o, RexNode node, RelDataType other) {
    if (!(node instanceof RexLiteral lit)
        || category(node.getType()) != Category.CHAR
        || category(other) != Category.DATETIME) {
      return node;
    }
    String text = lit.getValueAs(String.class);
    try {
      if (other.getSqlTypeName() == SqlTypeName.DATE) {
        return literal(LocalDate.parse(text));
      }
      return literal(LocalDateTime.parse(text.replace(' ', 'T')));
    } catch (DateTimeParseException e) {
      throw new QueryTypeException(
          "In '"
              + o
              + "', '"
              + text
              + "' is compared with a "
              + other.getSqlTypeName()
              + " but is not one; write it as 1994-01-01 (or use Expr.date)",
          e);
    }
  }

  private RexNode condition(Expr o, RexNode x) {
    Category c = category(x.getType());
    if (c != Category.BOOLEAN && c != Category.NULL) {
      throw new QueryTypeException(
          "In '"
              + o
              + "', an operand is "
              + x.getType()
              + " but must be BOOLEAN; compare it first");
    }
    return x;
  }

  /** {@code x}, checked to be a condition of {@code e}. */
  RexNode requireBoolean(Expr e, RexNode x) {
    return condition(e, x);
  }

  static boolean charOrNull(RexNode x) {
    Category c = category(x.getType());
    return c == Category.CHAR || c == Category.NULL;
  }

  private RexNode cast(Expr.Cast c) {
    RexNode x = visit(c.expr());
    RelDataTypeFactory f = b.getTypeFactory();
    RelDataType target =
        f.createTypeWithNullability(
            ArrowTypes.toRel(c.type(), f),
            x.getType().isNullable() || category(x.getType()) == Category.NULL);
    if (category(x.getType()) != Category.NULL
        && !SqlTypeUtil.canCastFrom(target, x.getType(), true)) {
      throw new QueryTypeException(
          "Cannot cast " + x.getType() + " to " + target + " in '" + c + "'");
    }
    return b.getRexBuilder().makeCast(target, x);
  }

  private RexNode caseWhen(Expr.Case c) {
    List<RexNode> conditions = new ArrayList<>();
    for (Expr cond : c.conditions()) {
      conditions.add(condition(c, visit(cond)));
    }
    List<RexNode> values = new ArrayList<>();
    for (Expr v : c.values()) {
      values.add(visit(v));
    }
    if (c.otherwise() != null) {
      values.add(visit(c.otherwise()));
    }
    RelDataType type = commonType(c, values);
    List<RexNode> operands = new ArrayList<>();
    for (int i = 0; i < conditions.size(); i++) {
      operands.add(conditions.get(i));
      operands.add(coerce(type, values.get(i)));
    }
    operands.add(
        c.otherwise() != null
            ? coerce(type, values.get(values.size() - 1))
            : b.getRexBuilder().makeNullLiteral(type));
    return b.getRexBuilder().makeCall(SqlStdOperatorTable.CASE, operands);
  }

  /** The type all {@code values} convert to, or a QueryTypeException naming {@code e}. */
  RelDataType commonType(Expr e, List<RexNode> values) {
    List<RelDataType> types = new ArrayList<>();
    for (RexNode v : values) {
      types.add(v.getType());
    }
    RelDataType type = b.getTypeFactory().leastRestrictive(types);
    if (type == null) {
      throw new QueryTypeException(
          "The values of '" + e + "' have incompatible types " + types + "; cast them to one type");
    }
    return type;
  }

  /** {@code x} as {@code type} (ignoring nullability), casting when needed. */
  RexNode coerce(RelDataType type, RexNode x) {
    if (x instanceof RexLiteral lit && lit.isNull()) {
      return b.getRexBuilder().makeNullLiteral(type);
    }
    return b.getRexBuilder().ensureType(type, x, false);
  }

  static QueryTypeException typeError(Expr e, RelDataType... types) {
    List<String> names = new ArrayList<>();
    for (RelDataType t : types) {
      names.add(t.getFullTypeString().replace(" NOT NULL", ""));
    }
    return new QueryTypeException(
        "Cannot apply '"
            + e
            + "' to operands of type "
            + String.join(", ", names)
            + "; cast an operand (Expr.cast) to a compatible type");
  }
}
