package dev.quiver.binding.datasource;

import dev.quiver.binding.physical.expr.CastExpr;
import dev.quiver.binding.physical.expr.ColumnExpr;
import dev.quiver.binding.physical.expr.ComparisonExpr;
import dev.quiver.binding.physical.expr.InListExpr;
import dev.quiver.binding.physical.expr.LiteralExpr;
import dev.quiver.binding.physical.expr.LogicalExpr;
import dev.quiver.binding.physical.expr.PhysicalExpr;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Decides from footer statistics whether a Parquet file can hold rows matching scan filters. Only
 * conjuncts {@code column op literal} (op in =, <, <=, >, >=) and {@code column IN (literals)} are
 * used; anything else, and any doubt about types or statistics, keeps the file.
 */
final class ParquetPruning {
  /** A recognised predicate shape; a row group is excluded when its statistics refute it. */
  private sealed interface Node permits Conjunct, AnyOf, AllOf {}

  /** {@code column op value} for some value of {@code values} (one value unless an IN list). */
  private record Conjunct(String column, ArrowType type, ComparisonExpr.Op op, List<Object> values)
      implements Node {}

  /** A conjunction inside a disjunction: refuted when any part is. */
  private record AllOf(List<Node> parts) implements Node {}

  /** A disjunction: refuted only when every alternative is. */
  private record AnyOf(List<Node> alternatives) implements Node {}

  private final List<Node> conjuncts;

  private ParquetPruning(List<Node> conjuncts) {
    this.conjuncts = conjuncts;
  }

  /**
   * Builds the pruning for {@code filters} over {@code schema}; columns outside {@code prunable}
   * (e.g. unsigned in the file) are never used.
   */
  static ParquetPruning of(List<PhysicalExpr> filters, Schema schema, Set<String> prunable) {
    List<Node> out = new ArrayList<>();
    if (filters != null) {
      for (PhysicalExpr f : filters) {
        collect(f, schema, prunable, out);
      }
    }
    return new ParquetPruning(List.copyOf(out));
  }

  /** Whether any conjunct was recognised. */
  boolean isEmpty() {
    return conjuncts.isEmpty();
  }

  /** True when the statistics prove no row of the file can match the filters. */
  boolean canSkip(ParquetFooter footer) {
    if (conjuncts.isEmpty()) {
      return false;
    }
    // Each row group must be refuted by some conjunct (not necessarily the same one).
    for (ParquetFooter.RowGroup g : footer.rowGroups()) {
      if (g.numRows() > 0 && conjuncts.stream().noneMatch(c -> refutes(c, g))) {
        return false;
      }
    }
    return true;
  }

  /** True when the statistics prove no row of row group {@code g} can match the filters. */
  boolean canSkip(ParquetFooter.RowGroup g) {
    return g.numRows() == 0 || conjuncts.stream().anyMatch(c -> refutes(c, g));
  }

  private static boolean refutes(Node n, ParquetFooter.RowGroup g) {
    if (n instanceof Conjunct c) {
      return excludes(c, g);
    }
    if (n instanceof AllOf all) {
      return all.parts().stream().anyMatch(p -> refutes(p, g));
    }
    return ((AnyOf) n).alternatives().stream().allMatch(a -> refutes(a, g));
  }

  private static void collect(PhysicalExpr e, Schema schema, Set<String> prunable, List<Node> out) {
    if (e instanceof LogicalExpr l && l.op() == LogicalExpr.Op.AND) {
      for (PhysicalExpr o : l.operands()) {
        collect(o, schema, prunable, out);
      }
    } else if (e instanceof LogicalExpr l && l.op() == LogicalExpr.Op.OR) {
      // Usable only when every alternative is: an unknown alternative might match anything.
      List<Node> alternatives = new ArrayList<>();
      for (PhysicalExpr o : l.operands()) {
        List<Node> inner = new ArrayList<>();
        collect(o, schema, prunable, inner);
        if (inner.isEmpty()) {
          return;
        }
        // An AND alternative is refuted when any of its recognised conjuncts is.
        alternatives.add(inner.size() == 1 ? inner.get(0) : new AllOf(inner));
      }
      out.add(new AnyOf(List.copyOf(alternatives)));
    } else if (e instanceof ComparisonExpr c && c.op() != ComparisonExpr.Op.NE) {
      ColumnExpr col = column(c.left(), schema, prunable);
      if (col != null && c.right() instanceof LiteralExpr lit && lit.value() != null) {
        out.add(new Conjunct(col.name(), col.dataType(), c.op(), List.of(lit.value())));
        return;
      }
      col = column(c.right(), schema, prunable);
      if (col != null && c.left() instanceof LiteralExpr lit && lit.value() != null) {
        out.add(new Conjunct(col.name(), col.dataType(), c.op().flip(), List.of(lit.value())));
      }
    } else if (e instanceof InListExpr in && !in.negated()) {
      ColumnExpr col = column(in.child(), schema, prunable);
      if (col == null) {
        return;
      }
      List<Object> values = new ArrayList<>();
      for (PhysicalExpr item : in.list()) {
        if (!(item instanceof LiteralExpr lit)) {
          return;
        }
        // A NULL in the list never equals anything, so it cannot make a row match.
        if (lit.value() != null) {
          values.add(lit.value());
        }
      }
      out.add(new Conjunct(col.name(), col.dataType(), ComparisonExpr.Op.EQ, values));
    }
  }

  /** The column {@code e} reads, directly or through an order- and value-preserving cast. */
  private static ColumnExpr column(PhysicalExpr e, Schema schema, Set<String> prunable) {
    PhysicalExpr inner = e;
    if (e instanceof CastExpr cast) {
      if (!(cast.child() instanceof ColumnExpr c)
          || !exactWidening(c.dataType(), cast.dataType())) {
        return null;
      }
      inner = c;
    }
    if (!(inner instanceof ColumnExpr c)) {
      return null;
    }
    if (c.index() < 0 || c.index() >= schema.getFields().size()) {
      return null;
    }
    Field f = schema.getFields().get(c.index());
    if (!f.getName().equals(c.name())
        || !f.getType().equals(c.dataType())
        || !prunable.contains(f.getName())) {
      return null;
    }
    return c;
  }

  private static boolean exactWidening(ArrowType from, ArrowType to) {
    if (from instanceof ArrowType.Int a && to instanceof ArrowType.Int b) {
      return a.getIsSigned() && b.getIsSigned() && b.getBitWidth() >= a.getBitWidth();
    }
    if (from instanceof ArrowType.Int a && to instanceof ArrowType.Decimal d) {
      return a.getIsSigned() && d.getPrecision() - d.getScale() >= 19;
    }
    return false;
  }

  /** True when the row group's statistics prove no row matches {@code c}. */
  private static boolean excludes(Conjunct c, ParquetFooter.RowGroup g) {
    ParquetFooter.ColumnChunk chunk = g.column(c.column());
    if (chunk == null) {
      return false;
    }
    if (chunk.nullCount() >= 0 && chunk.nullCount() == g.numRows()) {
      // Every value is NULL, and a comparison with NULL never holds.
      return true;
    }
    if (chunk.min() == null || chunk.max() == null) {
      return false;
    }
    for (Object v : c.values()) {
      int lo = compare(v, chunk.min(), chunk.physicalType(), c.type());
      int hi = compare(v, chunk.max(), chunk.physicalType(), c.type());
      if (lo == UNKNOWN || hi == UNKNOWN) {
        return false;
      }
      // lo = sign(literal - min), hi = sign(literal - max); a row value x has min <= x <= max.
      boolean possible =
          switch (c.op()) {
            case EQ -> lo >= 0 && hi <= 0;
            case LT -> lo > 0; // x < v needs min < v
            case LE -> lo >= 0;
            case GT -> hi < 0; // x > v needs max > v
            case GE -> hi <= 0;
            default -> true;
          };
      if (possible) {
        return false;
      }
    }
    return true;
  }

  private static final int UNKNOWN = Integer.MIN_VALUE;

  /** Sign of {@code literal - stat}, or {@link #UNKNOWN} when they cannot be compared exactly. */
  static int compare(Object literal, byte[] stat, int physical, ArrowType columnType) {
    switch (columnType.getTypeID()) {
      case Int, Decimal -> {
        BigDecimal s = decodeExact(stat, physical, columnType);
        BigDecimal l = numeric(literal);
        return s == null || l == null ? UNKNOWN : Integer.signum(l.compareTo(s));
      }
      case FloatingPoint -> {
        double s;
        if (physical == ParquetFooter.DOUBLE && stat.length == 8) {
          s = Double.longBitsToDouble(readLong(stat, 8));
        } else if (physical == ParquetFooter.FLOAT && stat.length == 4) {
          s = Float.intBitsToFloat((int) readLong(stat, 4));
        } else {
          return UNKNOWN;
        }
        BigDecimal l = numeric(literal);
        if (Double.isNaN(s) || Double.isInfinite(s) || l == null) {
          return UNKNOWN;
        }
        return Integer.signum(l.compareTo(new BigDecimal(s)));
      }
      case Date -> {
        if (physical != ParquetFooter.INT32
            || stat.length != 4
            || ((ArrowType.Date) columnType).getUnit() != org.apache.arrow.vector.types.DateUnit.DAY
            || !(literal instanceof LocalDate d)) {
          return UNKNOWN;
        }
        return Long.signum(d.toEpochDay() - (int) readLong(stat, 4));
      }
      case Utf8 -> {
        if (physical != ParquetFooter.BYTE_ARRAY || !(literal instanceof String s)) {
          return UNKNOWN;
        }
        // Byte-wise unsigned order, as the statistics and the engine's comparisons use.
        return Integer.signum(Arrays.compareUnsigned(s.getBytes(StandardCharsets.UTF_8), stat));
      }
      default -> {
        return UNKNOWN;
      }
    }
  }

  /** The literal as an exact number, or null when it is not one (or is NaN/infinite). */
  private static BigDecimal numeric(Object v) {
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return BigDecimal.valueOf(((Number) v).longValue());
    }
    if (v instanceof BigDecimal d) {
      return d;
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isNaN(d) || Double.isInfinite(d) ? null : new BigDecimal(d);
    }
    return null;
  }

  /** Decodes an integer or decimal statistic, or null when its encoding is not understood. */
  private static BigDecimal decodeExact(byte[] stat, int physical, ArrowType type) {
    int scale = type instanceof ArrowType.Decimal d ? d.getScale() : 0;
    BigInteger unscaled;
    if (physical == ParquetFooter.INT32 && stat.length == 4) {
      if (type instanceof ArrowType.Int i && i.getBitWidth() > 32) {
        return null; // An INT32 read as a 64-bit integer was unsigned in the file.
      }
      unscaled = BigInteger.valueOf((int) readLong(stat, 4));
    } else if (physical == ParquetFooter.INT64 && stat.length == 8) {
      if (type instanceof ArrowType.Int i && i.getBitWidth() != 64) {
        return null;
      }
      unscaled = BigInteger.valueOf(readLong(stat, 8));
    } else if ((physical == ParquetFooter.FIXED_LEN_BYTE_ARRAY
            || physical == ParquetFooter.BYTE_ARRAY)
        && type instanceof ArrowType.Decimal
        && stat.length > 0
        && stat.length <= 16) {
      unscaled = new BigInteger(stat); // big-endian two's complement
    } else {
      return null;
    }
    return new BigDecimal(unscaled, scale);
  }

  private static long readLong(byte[] b, int n) {
    long v = 0;
    for (int i = n - 1; i >= 0; i--) {
      v = (v << 8) | (b[i] & 0xFF);
    }
    if (n == 4) {
      v = (int) v;
    }
    return v;
  }

  /**
   * Columns whose file type allows pruning: signed integers, DATE(DAY), decimals, strings, floats.
   */
  static boolean prunableFileType(ArrowType raw) {
    return switch (raw.getTypeID()) {
      case Int -> ((ArrowType.Int) raw).getIsSigned();
      case Date -> ((ArrowType.Date) raw).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY;
      case Decimal, Utf8, LargeUtf8 -> true;
      case FloatingPoint ->
          ((ArrowType.FloatingPoint) raw).getPrecision() != FloatingPointPrecision.HALF;
      default -> false;
    };
  }
}
