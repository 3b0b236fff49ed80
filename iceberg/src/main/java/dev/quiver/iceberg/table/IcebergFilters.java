package dev.quiver.iceberg.table;

import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.IsNullExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The scan's filters as an Iceberg expression, for Iceberg's planning to prune by partition values
 * (through each partition transform's projection) and by the column bounds of data files. Only
 * shapes whose meaning is the same in both are translated: a column compared with a constant of the
 * column's own kind, IN lists, IS [NOT] NULL, AND, and OR of translatable parts; anything else is
 * left out (a conjunct left out prunes nothing). Pruning only skips files: the planner's filter
 * above the scan still decides every row.
 */
final class IcebergFilters {
  private IcebergFilters() {}

  /** The conjunction of the translatable filters over {@code schema}'s top-level columns. */
  static Expression toExpression(List<PhysicalExpr> filters, Schema schema) {
    Expression all = Expressions.alwaysTrue();
    if (filters == null) {
      return all;
    }
    for (PhysicalExpr f : filters) {
      for (PhysicalExpr conjunct : conjuncts(f)) {
        Expression e = translate(conjunct, schema);
        if (e != null && binds(e, schema)) {
          all = Expressions.and(all, e);
        }
      }
    }
    return all;
  }

  private static List<PhysicalExpr> conjuncts(PhysicalExpr e) {
    List<PhysicalExpr> out = new ArrayList<>();
    if (e instanceof LogicalExpr l && l.op() == LogicalExpr.Op.AND) {
      for (PhysicalExpr o : l.operands()) {
        out.addAll(conjuncts(o));
      }
    } else {
      out.add(e);
    }
    return out;
  }

  private static boolean binds(Expression e, Schema schema) {
    try {
      Binder.bind(schema.asStruct(), e, true);
      return true;
    } catch (RuntimeException notUsable) {
      return false;
    }
  }

  /** The Iceberg form of {@code e}, or null when it has none. */
  private static Expression translate(PhysicalExpr e, Schema schema) {
    if (e instanceof LogicalExpr l) {
      Expression out = null;
      for (PhysicalExpr o : l.operands()) {
        Expression t = translate(o, schema);
        if (t == null) {
          if (l.op() == LogicalExpr.Op.OR) {
            return null; // an unknown alternative may match anything
          }
          continue;
        }
        out =
            out == null
                ? t
                : l.op() == LogicalExpr.Op.AND ? Expressions.and(out, t) : Expressions.or(out, t);
      }
      return out;
    }
    if (e instanceof IsNullExpr n) {
      Types.NestedField f = column(n.child(), schema);
      if (f == null) {
        return null;
      }
      return n.negated() ? Expressions.notNull(f.name()) : Expressions.isNull(f.name());
    }
    if (e instanceof InListExpr in && !in.negated()) {
      Types.NestedField f = column(in.child(), schema);
      if (f == null) {
        return null;
      }
      List<Object> values = new ArrayList<>();
      for (PhysicalExpr item : in.list()) {
        if (!(item instanceof LiteralExpr lit)) {
          return null;
        }
        if (lit.value() != null) {
          Object v = value(lit.value(), f.type());
          if (v == null) {
            return null;
          }
          values.add(v);
        }
      }
      return values.isEmpty() ? Expressions.alwaysFalse() : Expressions.in(f.name(), values);
    }
    if (e instanceof ComparisonExpr c && c.op() != ComparisonExpr.Op.NE) {
      ComparisonExpr.Op op = c.op();
      Types.NestedField f = column(c.left(), schema);
      PhysicalExpr other = c.right();
      if (f == null) {
        f = column(c.right(), schema);
        other = c.left();
        op = op.flip();
      }
      if (f == null || !(other instanceof LiteralExpr lit) || lit.value() == null) {
        return null;
      }
      Object v = value(lit.value(), f.type());
      if (v == null) {
        return null;
      }
      String name = f.name();
      return switch (op) {
        case EQ -> Expressions.equal(name, v);
        case LT -> Expressions.lessThan(name, v);
        case LE -> Expressions.lessThanOrEqual(name, v);
        case GT -> Expressions.greaterThan(name, v);
        case GE -> Expressions.greaterThanOrEqual(name, v);
        default -> null;
      };
    }
    return null;
  }

  /** The top-level column {@code e} reads as is, or null. */
  private static Types.NestedField column(PhysicalExpr e, Schema schema) {
    if (!(e instanceof ColumnExpr c)) {
      return null;
    }
    List<Types.NestedField> columns = schema.columns();
    if (c.index() < 0 || c.index() >= columns.size()) {
      return null;
    }
    Types.NestedField f = columns.get(c.index());
    return f.name().equals(c.name()) && f.type().isPrimitiveType() ? f : null;
  }

  /**
   * The literal as the Iceberg value of a column of {@code type}, or null when the two are not of
   * one kind (comparing across kinds follows SQL's casts, which pruning does not try to mirror).
   */
  private static Object value(Object literal, Type type) {
    return switch (type.typeId()) {
      case INTEGER ->
          literal instanceof Long l && l == (int) (long) l ? (Object) (int) (long) l : null;
      case LONG -> literal instanceof Long l ? l : null;
      case STRING -> literal instanceof String s ? s : null;
      case BOOLEAN -> literal instanceof Boolean b ? b : null;
      case DATE -> literal instanceof LocalDate d ? (Object) (int) d.toEpochDay() : null;
      case DECIMAL ->
          literal instanceof BigDecimal d && d.scale() == ((Types.DecimalType) type).scale()
              ? d
              : null;
      case TIMESTAMP -> literal instanceof Long micros ? micros : null;
      case DOUBLE -> literal instanceof Double d && !d.isNaN() ? d : null;
      default -> null;
    };
  }
}
