package dev.quiver.binding.planner;

import static dev.quiver.binding.functions.Arguments.coerce;
import static dev.quiver.binding.functions.Arguments.strings;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownFunctionException;
import dev.quiver.binding.functions.Arguments;
import dev.quiver.binding.functions.ScalarFunction;
import dev.quiver.binding.functions.ScalarFunctions;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.expr.ArithmeticExpr;
import dev.quiver.binding.physical.expr.CardinalityExpr;
import dev.quiver.binding.physical.expr.CaseExpr;
import dev.quiver.binding.physical.expr.CastExpr;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.DateArithmeticExpr;
import dev.quiver.binding.physical.expr.ElementExpr;
import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.IsDistinctFromExpr;
import dev.quiver.binding.physical.expr.IsNullExpr;
import dev.quiver.binding.physical.expr.IsTruthExpr;
import dev.quiver.binding.physical.expr.LikeExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.NegativeExpr;
import dev.quiver.binding.physical.expr.NotExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.SingleRowExpr;
import dev.quiver.binding.physical.expr.StringFunctionExpr;
import dev.quiver.binding.physical.expr.StructFieldExpr;
import dev.quiver.binding.physical.expr.UdfExpr;
import dev.quiver.binding.udf.ScalarUdf;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUnknownAs;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.Sarg;
import org.apache.calcite.util.TimestampString;

/**
 * Translates Calcite row expressions to physical expressions: a call of a built-in function by its
 * definition's kernel ({@link ScalarFunctions}), operators by their kind, UDFs by name.
 */
public final class RexTranslator {
  /** Built-in function names, for "did you mean" hints. */
  private static final Set<String> BUILTINS = ScalarFunctions.names();

  private final Function<String, ScalarUdf> udfs;
  private final RexBuilder rexBuilder = new RexBuilder(new JavaTypeFactoryImpl());

  /**
   * Creates a translator that resolves UDF calls by (lower-case) name with {@code udfs}; null when
   * unknown.
   */
  public RexTranslator(Function<String, ScalarUdf> udfs) {
    this.udfs = udfs == null ? name -> null : udfs;
  }

  /** Translates {@code node}, whose input references index into {@code inputRowType}. */
  public PhysicalExpr translate(RexNode node, RelDataType inputRowType) {
    if (node instanceof RexInputRef ref) {
      List<RelDataTypeField> fields = inputRowType.getFieldList();
      if (ref.getIndex() >= fields.size()) {
        throw new QueryTypeException(
            "Input reference $" + ref.getIndex() + " is out of range for row type " + inputRowType);
      }
      RelDataTypeField f = fields.get(ref.getIndex());
      return ColumnExpr.of(ref.getIndex(), TypeMapping.toArrowField(f.getName(), f.getType()));
    }
    if (node instanceof RexLiteral lit) {
      return literal(lit);
    }
    if (node instanceof RexFieldAccess access
        && access.getReferenceExpr().getType().isStruct()
        && !(access.getReferenceExpr() instanceof org.apache.calcite.rex.RexCorrelVariable)) {
      return new StructFieldExpr(
          translate(access.getReferenceExpr(), inputRowType), access.getField().getIndex());
    }
    if (node instanceof RexCall call) {
      return call(call, inputRowType);
    }
    throw new QueryTypeException(
        "Expression "
            + node
            + " ("
            + node.getKind()
            + ") cannot be evaluated here; "
            + "it should have been rewritten by the planner");
  }

  /** A function call for its kernel: operands translated on demand, against the call's input. */
  private final class Call implements ScalarFunction.Call {
    private final RexCall rex;
    private final ArrowType type;
    private final RelDataType input;

    Call(RexCall rex, ArrowType type, RelDataType input) {
      this.rex = rex;
      this.type = type;
      this.input = input;
    }

    @Override
    public RexCall rex() {
      return rex;
    }

    @Override
    public ArrowType type() {
      return type;
    }

    @Override
    public PhysicalExpr arg(int i) {
      return translate(rex.getOperands().get(i), input);
    }
  }

  private List<PhysicalExpr> operands(RexCall call, RelDataType input) {
    List<PhysicalExpr> out = new ArrayList<>();
    for (RexNode o : call.getOperands()) {
      out.add(translate(o, input));
    }
    return out;
  }

  // ---------------------------------------------------------------- literals

  private static LiteralExpr literal(RexLiteral lit) {
    RelDataType type = lit.getType();
    if (lit.isNull() || type.getSqlTypeName() == SqlTypeName.NULL) {
      return LiteralExpr.nullOf(TypeMapping.toArrow(type));
    }
    ArrowType arrow = TypeMapping.toArrow(type);
    // getValue() gives a TIMESTAMP as a Calendar, which holds milliseconds only.
    Comparable<?> value =
        type.getSqlTypeName() == SqlTypeName.TIMESTAMP
            ? lit.getValueAs(TimestampString.class)
            : lit.getValue();
    return new LiteralExpr(literalValue(value, type), arrow);
  }

  /**
   * Converts a Calcite literal value (as held by RexLiteral or a Sarg) to the literal convention.
   */
  static Object literalValue(Comparable<?> value, RelDataType type) {
    if (value == null) {
      return null;
    }
    if (value instanceof NlsString s) {
      return s.getValue();
    }
    if (value instanceof DateString d) {
      return LocalDate.ofEpochDay(d.getDaysSinceEpoch());
    }
    if (value instanceof TimestampString t) {
      return timestampMicros(t.toString());
    }
    if (value instanceof java.util.Calendar c) {
      LocalDateTime ldt = LocalDateTime.ofInstant(c.toInstant(), ZoneOffset.UTC);
      return type.getSqlTypeName() == SqlTypeName.DATE
          ? ldt.toLocalDate()
          : ldt.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + ldt.getNano() / 1_000;
    }
    if (value instanceof BigDecimal d) {
      switch (type.getSqlTypeName()) {
        case TINYINT:
        case SMALLINT:
        case INTEGER:
        case BIGINT:
          return d.longValueExact();
        case REAL:
        case FLOAT:
        case DOUBLE:
          return d.doubleValue();
        case DATE:
          return LocalDate.ofEpochDay(d.longValue());
        case TIMESTAMP:
          return d.longValue() * 1_000L;
        default:
          if (SqlTypeName.INTERVAL_TYPES.contains(type.getSqlTypeName())) {
            return d.longValue();
          }
          return d;
      }
    }
    return value;
  }

  private static long timestampMicros(String text) {
    // TimestampString is "yyyy-MM-dd HH:mm:ss[.fff...]".
    LocalDateTime t = LocalDateTime.parse(text.replace(' ', 'T'));
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000;
  }

  // ---------------------------------------------------------------- calls

  private PhysicalExpr call(RexCall call, RelDataType input) {
    SqlOperator op = call.getOperator();
    SqlKind kind = call.getKind();
    if (TypeMapping.isNested(call.getType()) && kind != SqlKind.ITEM) {
      boolean sameTypeCast =
          (kind == SqlKind.CAST || kind == SqlKind.REINTERPRET)
              && org.apache.calcite.sql.type.SqlTypeUtil.equalSansNullability(
                  rexBuilder.getTypeFactory(), call.getOperands().get(0).getType(), call.getType());
      if (!sameTypeCast) {
        throw new QueryTypeException(
            TypeMapping.nestedName(call.getType())
                + " values can be read from tables, passed "
                + "on and taken apart (s.field, l[1], m['key'], cardinality), but not made by "
                + op.getName()
                + ": "
                + call);
      }
      return translate(call.getOperands().get(0), input);
    }
    ArrowType type = TypeMapping.toArrow(call.getType());
    ScalarFunction function = ScalarFunctions.lookup(op.getName());
    if (function != null && op instanceof SqlFunction) {
      return function.kernel().translate(new Call(call, type, input));
    }
    switch (kind) {
      case PLUS:
      case MINUS:
        return plusMinus(call, input, type);
      case TIMES:
        return arithmetic(ArithmeticExpr.Op.MULTIPLY, call, input, type);
      case DIVIDE:
        return arithmetic(ArithmeticExpr.Op.DIVIDE, call, input, type);
      case MOD:
        return arithmetic(ArithmeticExpr.Op.MODULO, call, input, type);
      case MINUS_PREFIX:
        return new NegativeExpr(coerce(translate(call.getOperands().get(0), input), type));
      case PLUS_PREFIX:
        return translate(call.getOperands().get(0), input);
      case EQUALS:
        return comparison(ComparisonExpr.Op.EQ, call, input);
      case NOT_EQUALS:
        return comparison(ComparisonExpr.Op.NE, call, input);
      case LESS_THAN:
        return comparison(ComparisonExpr.Op.LT, call, input);
      case LESS_THAN_OR_EQUAL:
        return comparison(ComparisonExpr.Op.LE, call, input);
      case GREATER_THAN:
        return comparison(ComparisonExpr.Op.GT, call, input);
      case GREATER_THAN_OR_EQUAL:
        return comparison(ComparisonExpr.Op.GE, call, input);
      case AND:
        return new LogicalExpr(LogicalExpr.Op.AND, operands(call, input));
      case OR:
        {
          PhysicalExpr in = equalitiesAsInList(call, input);
          return in != null ? in : new LogicalExpr(LogicalExpr.Op.OR, operands(call, input));
        }
      case NOT:
        return new NotExpr(translate(call.getOperands().get(0), input));
      case IS_NULL:
        return new IsNullExpr(translate(call.getOperands().get(0), input), false);
      case IS_NOT_NULL:
        return new IsNullExpr(translate(call.getOperands().get(0), input), true);
      case IS_TRUE:
        return new IsTruthExpr(
            translate(call.getOperands().get(0), input), IsTruthExpr.Test.IS_TRUE);
      case IS_NOT_TRUE:
        return new IsTruthExpr(
            translate(call.getOperands().get(0), input), IsTruthExpr.Test.IS_NOT_TRUE);
      case IS_FALSE:
        return new IsTruthExpr(
            translate(call.getOperands().get(0), input), IsTruthExpr.Test.IS_FALSE);
      case IS_NOT_FALSE:
        return new IsTruthExpr(
            translate(call.getOperands().get(0), input), IsTruthExpr.Test.IS_NOT_FALSE);
      case IS_DISTINCT_FROM:
      case IS_NOT_DISTINCT_FROM:
        {
          PhysicalExpr[] p = comparable(call, input);
          return new IsDistinctFromExpr(p[0], p[1], kind == SqlKind.IS_NOT_DISTINCT_FROM);
        }
      case CASE:
        return caseExpr(call, input, type);
      case ITEM:
        return item(call, input);
      case CAST:
      case REINTERPRET:
        return coerce(translate(call.getOperands().get(0), input), type);
      case SAFE_CAST:
        {
          // TRY_CAST: NULL where a value does not convert.
          PhysicalExpr value = translate(call.getOperands().get(0), input);
          return value.dataType().equals(type) ? value : new CastExpr(value, type, true);
        }
      case IN:
      case NOT_IN:
        {
          List<PhysicalExpr> args = operands(call, input);
          return new InListExpr(args.get(0), args.subList(1, args.size()), kind == SqlKind.NOT_IN);
        }
      case SEARCH:
        return search(call, input);
      case LIKE:
        {
          List<PhysicalExpr> args = operands(call, input);
          SqlLikeOperator like = (SqlLikeOperator) op;
          String escape = null;
          if (args.size() > 2) {
            escape = (String) ((LiteralExpr) args.get(2)).value();
          }
          return new LikeExpr(
              args.get(0), args.get(1), escape, !like.isCaseSensitive(), like.isNegated());
        }
      case SIMILAR:
        {
          List<PhysicalExpr> args = operands(call, input);
          SqlLikeOperator similar = (SqlLikeOperator) op;
          String escape = null;
          if (args.size() > 2) {
            if (!(args.get(2) instanceof LiteralExpr l)) {
              throw new QueryTypeException("SIMILAR TO ... ESCAPE takes a constant: " + call);
            }
            escape = (String) l.value();
          }
          return new LikeExpr(
              strings(args.subList(0, 1)).get(0),
              strings(args.subList(1, 2)).get(0),
              escape,
              false,
              similar.isNegated(),
              true);
        }
      case OTHER_FUNCTION:
      case OTHER:
      default:
        return named(call, input, type);
    }
  }

  private PhysicalExpr plusMinus(RexCall call, RelDataType input, ArrowType type) {
    PhysicalExpr l = translate(call.getOperands().get(0), input);
    PhysicalExpr r = translate(call.getOperands().get(1), input);
    boolean plus = call.getKind() == SqlKind.PLUS;
    if (isInterval(l.dataType()) && isTemporal(r.dataType()) && plus) {
      PhysicalExpr t = l;
      l = r;
      r = t;
    }
    if (isTemporal(l.dataType()) && isInterval(r.dataType())) {
      return new DateArithmeticExpr(
          plus ? DateArithmeticExpr.Op.PLUS : DateArithmeticExpr.Op.MINUS, l, r, type);
    }
    if (!plus && isTemporal(l.dataType()) && isTemporal(r.dataType())) {
      return new DateArithmeticExpr(DateArithmeticExpr.Op.DIFF, l, r, type);
    }
    return Arguments.arithmetic(
        plus ? ArithmeticExpr.Op.ADD : ArithmeticExpr.Op.SUBTRACT, l, r, type);
  }

  private PhysicalExpr arithmetic(
      ArithmeticExpr.Op op, RexCall call, RelDataType input, ArrowType type) {
    return Arguments.arithmetic(
        op,
        translate(call.getOperands().get(0), input),
        translate(call.getOperands().get(1), input),
        type);
  }

  private PhysicalExpr comparison(ComparisonExpr.Op op, RexCall call, RelDataType input) {
    PhysicalExpr[] p = comparable(call, input);
    return new ComparisonExpr(op, p[0], p[1]);
  }

  /**
   * The two operands of a comparison, with a string side cast to the other side's type when needed.
   */
  private PhysicalExpr[] comparable(RexCall call, RelDataType input) {
    PhysicalExpr l = translate(call.getOperands().get(0), input);
    PhysicalExpr r = translate(call.getOperands().get(1), input);
    return Arguments.comparable(l, r);
  }

  private PhysicalExpr caseExpr(RexCall call, RelDataType input, ArrowType type) {
    List<RexNode> ops = call.getOperands();
    List<PhysicalExpr> whens = new ArrayList<>();
    List<PhysicalExpr> thens = new ArrayList<>();
    int i = 0;
    for (; i + 1 < ops.size(); i += 2) {
      whens.add(translate(ops.get(i), input));
      thens.add(coerce(translate(ops.get(i + 1), input), type));
    }
    PhysicalExpr elseExpr = i < ops.size() ? coerce(translate(ops.get(i), input), type) : null;
    return new CaseExpr(whens, thens, elseExpr, type);
  }

  /**
   * {@code e = 'a' OR e = 'b' OR ...} as {@code e IN ('a', 'b', ...)}, so that {@code e} is
   * evaluated once (Calcite leaves short IN lists over expressions, e.g. TPC-H Q22's
   * SUBSTRING(c_phone, 1, 2), as ORs); null when the disjuncts have another shape. Same result:
   * with non-null literals both are null exactly when e is null and no literal matches.
   */
  private PhysicalExpr equalitiesAsInList(RexCall or, RelDataType input) {
    RexNode common = null;
    PhysicalExpr x = null;
    List<PhysicalExpr> points = new ArrayList<>();
    for (RexNode op : or.getOperands()) {
      if (op.getKind() != SqlKind.EQUALS) {
        return null;
      }
      RexCall eq = (RexCall) op;
      boolean literalRight = eq.getOperands().get(1) instanceof RexLiteral;
      RexNode e = eq.getOperands().get(literalRight ? 0 : 1);
      RexNode literal = eq.getOperands().get(literalRight ? 1 : 0);
      if (!(literal instanceof RexLiteral l) || l.isNull() || e instanceof RexLiteral) {
        return null;
      }
      if (common == null) {
        common = e;
      } else if (!common.equals(e)) {
        return null;
      }
      PhysicalExpr[] p = comparable(eq, input);
      PhysicalExpr px = p[literalRight ? 0 : 1];
      PhysicalExpr point = p[literalRight ? 1 : 0];
      if (x == null) {
        x = px;
      }
      if (!x.dataType().equals(px.dataType()) || !point.dataType().equals(px.dataType())) {
        return null;
      }
      points.add(point);
    }
    return points.size() < 2 ? null : new InListExpr(x, points, false);
  }

  private PhysicalExpr search(RexCall call, RelDataType input) {
    RexNode ref = call.getOperands().get(0);
    RexLiteral lit = (RexLiteral) call.getOperands().get(1);
    Sarg<?> sarg = lit.getValueAs(Sarg.class);
    if (sarg == null
        || sarg.isAll()
        || sarg.isNone()
        || !(sarg.isPoints() || sarg.isComplementedPoints())) {
      return translate(RexUtil.expandSearch(rexBuilder, null, call), input);
    }
    PhysicalExpr x = translate(ref, input);
    boolean negated = !sarg.isPoints();
    ArrowType pointType = TypeMapping.toArrow(lit.getType());
    List<PhysicalExpr> points = new ArrayList<>();
    for (Comparable<?> point : points(sarg, negated)) {
      points.add(new LiteralExpr(literalValue(point, lit.getType()), pointType));
    }
    PhysicalExpr in;
    if (x.dataType() instanceof ArrowType.Utf8 && !(pointType instanceof ArrowType.Utf8)) {
      in = new InListExpr(coerce(x, pointType), points, negated);
    } else if (!(x.dataType() instanceof ArrowType.Utf8) && pointType instanceof ArrowType.Utf8) {
      List<PhysicalExpr> cast = new ArrayList<>();
      for (PhysicalExpr p : points) {
        cast.add(coerce(p, x.dataType()));
      }
      in = new InListExpr(x, cast, negated);
    } else {
      in = new InListExpr(x, points, negated);
    }
    if (sarg.nullAs == RexUnknownAs.TRUE) {
      return new LogicalExpr(LogicalExpr.Op.OR, List.of(new IsNullExpr(x, false), in));
    }
    if (sarg.nullAs == RexUnknownAs.FALSE && x.nullable()) {
      return new LogicalExpr(LogicalExpr.Op.AND, List.of(new IsNullExpr(x, true), in));
    }
    return in;
  }

  /** The points of a points Sarg, or the excluded points of a complemented one. */
  private static <C extends Comparable<C>> List<Comparable<?>> points(
      Sarg<C> sarg, boolean complemented) {
    com.google.common.collect.RangeSet<C> set =
        complemented ? sarg.rangeSet.complement() : sarg.rangeSet;
    List<Comparable<?>> out = new ArrayList<>();
    for (com.google.common.collect.Range<C> range : set.asRanges()) {
      out.add(range.lowerEndpoint());
    }
    return out;
  }

  /**
   * {@code s['name']} or {@code s[i]} of a struct, {@code l[i]} of a list, {@code m[k]} of a map.
   */
  private PhysicalExpr item(RexCall call, RelDataType input) {
    RexNode container = call.getOperands().get(0);
    RexNode key = call.getOperands().get(1);
    PhysicalExpr c = translate(container, input);
    if (container.getType().isStruct()) {
      List<RelDataTypeField> fields = container.getType().getFieldList();
      if (!(key instanceof RexLiteral lit) || lit.isNull()) {
        throw new QueryTypeException("A STRUCT field is named by a constant: " + call);
      }
      Object k = literalValue(lit.getValue(), lit.getType());
      int index = -1;
      if (k instanceof String name) {
        for (RelDataTypeField f : fields) {
          if (f.getName().equalsIgnoreCase(name)) {
            index = f.getIndex();
            break;
          }
        }
      } else if (k instanceof Number n) {
        index = n.intValue() - 1;
      }
      if (index < 0 || index >= fields.size()) {
        throw new QueryTypeException(
            "STRUCT " + container.getType().getFullTypeString() + " has no field " + k);
      }
      return new StructFieldExpr(c, index);
    }
    PhysicalExpr k = translate(key, input);
    if (container.getType().getSqlTypeName() == SqlTypeName.MAP
        && k.dataType() instanceof ArrowType.Utf8 == false
        && !(k.dataType() instanceof ArrowType.Null)) {
      Field keyField = c.field("m").getChildren().get(0).getChildren().get(0);
      if (!(keyField.getType() instanceof ArrowType.Int && k.dataType() instanceof ArrowType.Int)) {
        k = coerce(k, keyField.getType());
      }
    }
    return new ElementExpr(c, k);
  }

  /**
   * Operators identified by name that are not built-in functions (Quiver's internal ones, {@code
   * ||}, integer division, datetime plus, cardinality of a nested value), then UDFs.
   */
  private PhysicalExpr named(RexCall call, RelDataType input, ArrowType type) {
    SqlOperator op = call.getOperator();
    if (op == TextCastFunction.INSTANCE) {
      return coerce(translate(call.getOperands().get(0), input), type);
    }
    if (op == SingleRowFunction.INSTANCE) {
      List<PhysicalExpr> p = operands(call, input);
      return new SingleRowExpr(p.get(0), p.get(1));
    }
    String name = op.getName().toUpperCase(Locale.ROOT);
    switch (name) {
      case "CARDINALITY":
        return new CardinalityExpr(translate(call.getOperands().get(0), input), type);
      case "||":
        return new StringFunctionExpr(
            StringFunctionExpr.Fn.CONCAT, strings(operands(call, input)), type);
      case "/INT":
        return arithmetic(ArithmeticExpr.Op.DIVIDE, call, input, type);
      case "DATETIME_PLUS":
        return plusMinus(call, input, type);
      default:
        break;
    }
    ScalarUdf udf = udfs.apply(op.getName().toLowerCase(Locale.ROOT));
    if (udf != null) {
      List<PhysicalExpr> args = operands(call, input);
      if (args.size() != udf.argumentTypes().size()) {
        throw new QueryTypeException(
            "Function '"
                + udf.name()
                + "' takes "
                + udf.argumentTypes().size()
                + " arguments, got "
                + args.size());
      }
      List<PhysicalExpr> cast = new ArrayList<>();
      for (int i = 0; i < args.size(); i++) {
        cast.add(coerce(args.get(i), udf.argumentTypes().get(i)));
      }
      return new UdfExpr(udf, cast);
    }
    if (call.getKind() == SqlKind.OTHER_FUNCTION) {
      throw new UnknownFunctionException(op.getName(), Suggestions.closest(op.getName(), BUILTINS));
    }
    List<String> types = new ArrayList<>();
    for (RexNode o : call.getOperands()) {
      types.add(o.getType().getFullTypeString());
    }
    throw new QueryTypeException(
        "Operator '"
            + op.getName()
            + "' ("
            + call.getKind()
            + ") is not supported for argument types "
            + types);
  }

  // ---------------------------------------------------------------- types

  private static boolean isTemporal(ArrowType t) {
    return t instanceof ArrowType.Date || t instanceof ArrowType.Timestamp;
  }

  private static boolean isInterval(ArrowType t) {
    return t instanceof ArrowType.Interval;
  }
}
