package dev.quiver.binding.functions;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.physical.expr.ArithmeticExpr;
import dev.quiver.binding.physical.expr.CastExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import dev.quiver.binding.physical.expr.ScalarFunctionExpr;
import dev.quiver.binding.physical.expr.Vectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Arguments brought to the types the kernels read. */
public final class Arguments {
  private Arguments() {}

  private static final ArrowType BIGINT = new ArrowType.Int(64, true);

  /** {@code e} as type {@code target}: unchanged, a folded literal, or a cast. */
  public static PhysicalExpr coerce(PhysicalExpr e, ArrowType target) {
    if (e.dataType().equals(target)) {
      return e;
    }
    if (e instanceof LiteralExpr l) {
      return new LiteralExpr(CastExpr.convert(l.value(), l.dataType(), target), target);
    }
    return new CastExpr(e, target);
  }

  /** Every argument as VARCHAR. */
  public static List<PhysicalExpr> strings(List<PhysicalExpr> args) {
    List<PhysicalExpr> out = new ArrayList<>();
    for (PhysicalExpr e : args) {
      out.add(coerce(e, ArrowType.Utf8.INSTANCE));
    }
    return out;
  }

  /** The arguments from {@code from} on as integers: any integer width kept, others BIGINT. */
  static List<PhysicalExpr> ints(List<PhysicalExpr> args, int from) {
    List<PhysicalExpr> out = new ArrayList<>(args);
    for (int i = from; i < out.size(); i++) {
      if (!(out.get(i).dataType() instanceof ArrowType.Int)) {
        out.set(i, coerce(out.get(i), BIGINT));
      }
    }
    return out;
  }

  /** Whether {@code t} is an integer, floating-point or decimal type. */
  public static boolean isNumeric(ArrowType t) {
    return t instanceof ArrowType.Int
        || t instanceof ArrowType.FloatingPoint
        || t instanceof ArrowType.Decimal;
  }

  /**
   * A row-by-row {@link ScalarFunctionExpr}: fixed-size binary arguments as VARCHAR, the numeric
   * ones from {@code intsFrom} on (when not negative) as BIGINT.
   */
  static PhysicalExpr rowWise(
      ScalarFunctionExpr.Fn fn, ScalarFunction.Call call, ArrowType type, int intsFrom) {
    List<PhysicalExpr> args = new ArrayList<>();
    for (PhysicalExpr e : call.args()) {
      args.add(
          e.dataType() instanceof ArrowType.FixedSizeBinary
              ? coerce(e, ArrowType.Utf8.INSTANCE)
              : e);
    }
    if (intsFrom >= 0) {
      for (int i = intsFrom; i < args.size(); i++) {
        if (isNumeric(args.get(i).dataType())) {
          args.set(i, coerce(args.get(i), BIGINT));
        }
      }
    }
    return new ScalarFunctionExpr(fn, args, type);
  }

  /** {@link #rowWise(ScalarFunctionExpr.Fn, ScalarFunction.Call, ArrowType, int)} of its type. */
  static PhysicalExpr rowWise(ScalarFunctionExpr.Fn fn, ScalarFunction.Call call, int intsFrom) {
    return rowWise(fn, call, call.type(), intsFrom);
  }

  /**
   * {@code l op r} of the result type {@code type}, its operands brought to what the arithmetic
   * kernels read.
   */
  public static PhysicalExpr arithmetic(
      ArithmeticExpr.Op op, PhysicalExpr l, PhysicalExpr r, ArrowType type) {
    if (!isNumeric(type)) {
      throw new QueryTypeException(
          "Cannot apply '"
              + op.symbol()
              + "' to "
              + Vectors.sqlName(l.dataType())
              + " and "
              + Vectors.sqlName(r.dataType()));
    }
    return new ArithmeticExpr(op, numericOperand(l, type), numericOperand(r, type), type);
  }

  /**
   * Kernels read any integer width, doubles and decimals; other operands are cast to the result
   * type.
   */
  private static PhysicalExpr numericOperand(PhysicalExpr e, ArrowType resultType) {
    ArrowType t = e.dataType();
    if (t instanceof ArrowType.Null) {
      return LiteralExpr.nullOf(resultType);
    }
    boolean ok =
        resultType instanceof ArrowType.Decimal
            ? t instanceof ArrowType.Int || t instanceof ArrowType.Decimal
            : resultType instanceof ArrowType.Int
                ? t instanceof ArrowType.Int || t instanceof ArrowType.Decimal
                : isNumeric(t);
    return ok ? e : coerce(e, resultType);
  }

  /**
   * The two operands of a comparison, a string side cast to the other side's type; nested values
   * are not compared.
   */
  public static PhysicalExpr[] comparable(PhysicalExpr l, PhysicalExpr r) {
    ArrowType lt = l.dataType();
    ArrowType rt = r.dataType();
    for (ArrowType t : new ArrowType[] {lt, rt}) {
      if (TypeMapping.isNested(t)) {
        throw new QueryTypeException(
            "Comparing "
                + Vectors.sqlName(t)
                + " values is not supported; compare their fields "
                + "or elements (s.field, l[1], m['key'])");
      }
    }
    boolean ls = lt instanceof ArrowType.Utf8;
    boolean rs = rt instanceof ArrowType.Utf8;
    if (ls && !rs && !(rt instanceof ArrowType.Null)) {
      l = coerce(l, rt);
    } else if (rs && !ls && !(lt instanceof ArrowType.Null)) {
      r = coerce(r, lt);
    }
    return new PhysicalExpr[] {l, r};
  }
}
