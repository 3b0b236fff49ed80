package dev.quiver.binding.planner;

import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexExecutor;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Folds constant expressions at planning time with Quiver's own kernels, so that a folded constant
 * always equals what the same expression computes at run time. Calcite's default executor evaluates
 * with Calcite's Java semantics, which differ from Quiver's (and PostgreSQL's and DuckDB's) in
 * places: {@code EXTRACT(DOW FROM DATE '2024-03-15')} folded to 6 (Sunday = 1) while the same
 * expression over a column gave 5 (Sunday = 0).
 *
 * <p>An expression Quiver cannot evaluate here (a UDF, an unsupported type, a value that fails such
 * as a division by zero) is left as it is, to be evaluated, or to fail, at run time.
 */
public final class ConstantFolder implements RexExecutor {
  private final BufferAllocator allocator;
  // UDFs are not folded: they may not be deterministic, and run time is where they are resolved.
  private final RexTranslator translator = new RexTranslator(name -> null);

  /** Folds with memory from {@code allocator} (a few bytes per constant, freed at once). */
  public ConstantFolder(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  @Override
  public void reduce(RexBuilder rexBuilder, List<RexNode> constExps, List<RexNode> reducedValues) {
    RelDataType noInput = rexBuilder.getTypeFactory().createStructType(List.of(), List.of());
    try (BufferAllocator child = allocator.newChildAllocator("constant-folding", 0, 1L << 20);
        VectorSchemaRoot oneRow = VectorSchemaRoot.create(new Schema(List.of()), child)) {
      oneRow.setRowCount(1);
      for (RexNode e : constExps) {
        reducedValues.add(fold(e, rexBuilder, noInput, oneRow, child));
      }
    }
  }

  private RexNode fold(
      RexNode e,
      RexBuilder rexBuilder,
      RelDataType noInput,
      VectorSchemaRoot oneRow,
      BufferAllocator child) {
    PhysicalExpr physical;
    try {
      physical = translator.translate(e, noInput);
    } catch (RuntimeException unsupported) {
      return e;
    }
    try (FieldVector v = physical.evaluate(oneRow, child)) {
      RexNode literal = literal(v, e.getType(), rexBuilder);
      return literal == null ? e : literal;
    } catch (RuntimeException failsAtRunTime) {
      return e;
    }
  }

  /** The value at row 0 as a literal of {@code type}, or null when it cannot be one. */
  private static RexNode literal(FieldVector v, RelDataType type, RexBuilder rexBuilder) {
    if (v.isNull(0)) {
      return rexBuilder.makeNullLiteral(type);
    }
    SqlTypeName t = type.getSqlTypeName();
    Object value;
    if (v instanceof BitVector b) {
      value = b.get(0) != 0;
    } else if (v instanceof TinyIntVector i) {
      value = BigDecimal.valueOf(i.get(0));
    } else if (v instanceof SmallIntVector i) {
      value = BigDecimal.valueOf(i.get(0));
    } else if (v instanceof IntVector i) {
      value = BigDecimal.valueOf(i.get(0));
    } else if (v instanceof BigIntVector i) {
      value = BigDecimal.valueOf(i.get(0));
    } else if (v instanceof DecimalVector d) {
      value = d.getObject(0);
    } else if (v instanceof Float8Vector f) {
      value = finite(f.get(0));
    } else if (v instanceof Float4Vector f) {
      value = finite(f.get(0));
    } else if (v instanceof VarCharVector s) {
      value = new String(s.get(0), java.nio.charset.StandardCharsets.UTF_8);
    } else if (v instanceof DateDayVector d && t == SqlTypeName.DATE) {
      return rexBuilder.makeLiteral(DateString.fromDaysSinceEpoch(d.get(0)), type, false);
    } else if (v instanceof TimeStampVector ts
        && t == SqlTypeName.TIMESTAMP
        && ts.getObject(0) instanceof LocalDateTime time) {
      TimestampString s =
          new TimestampString(
                  time.getYear(),
                  time.getMonthValue(),
                  time.getDayOfMonth(),
                  time.getHour(),
                  time.getMinute(),
                  time.getSecond())
              .withNanos(time.getNano());
      return rexBuilder.makeLiteral(s, type, false);
    } else {
      return null;
    }
    if (value == null || !matches(value, t)) {
      return null;
    }
    if (t == SqlTypeName.DECIMAL) {
      BigDecimal d = (BigDecimal) value;
      if (d.scale() > type.getScale()) {
        return null;
      }
      value = d.setScale(type.getScale());
    }
    return rexBuilder.makeLiteral(value, type, false);
  }

  private static BigDecimal finite(double d) {
    // NaN, infinities and -0.0 have no exact literal (a BigDecimal zero has no sign): they are
    // left to run time, or CAST('-0.0' AS DOUBLE) printed 0.0 where DuckDB prints -0.0.
    boolean negativeZero = d == 0 && Double.doubleToRawLongBits(d) != 0;
    return Double.isFinite(d) && !negativeZero ? BigDecimal.valueOf(d) : null;
  }

  private static boolean matches(Object value, SqlTypeName t) {
    return switch (t) {
      case BOOLEAN -> value instanceof Boolean;
      case TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL, FLOAT, REAL, DOUBLE ->
          value instanceof BigDecimal;
      case CHAR, VARCHAR -> value instanceof String;
      default -> false;
    };
  }
}
