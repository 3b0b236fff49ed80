package dev.quiver.binding.physical.expr;

import dev.quiver.binding.physical.kernel.Raw;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code child [NOT] IN (list)} with SQL null semantics. A list of literals is probed through a
 * hash set built once; other lists are evaluated as a chain of equality tests.
 */
public final class InListExpr implements PhysicalExpr {
  private final PhysicalExpr child;
  private final List<PhysicalExpr> list;
  private final boolean negated;
  private final boolean literalList;
  private final boolean listHasNull;
  private final Vectors.Kind kind;
  private final int decimalScale;
  private final LongHashSet longSet;
  private final Set<Object> objectSet;
  private final Utf8Set stringSet;

  /** Creates the predicate; a list of literals is turned into a hash set here. */
  public InListExpr(PhysicalExpr child, List<PhysicalExpr> list, boolean negated) {
    this.child = child;
    this.list = List.copyOf(list);
    this.negated = negated;
    if (this.list.isEmpty()) {
      throw new IllegalArgumentException("IN needs at least one value");
    }
    Vectors.Kind k = Vectors.kind(child.dataType());
    int scale = Kernels.scaleOf(child.dataType());
    boolean literals = true;
    boolean hasNull = false;
    for (PhysicalExpr e : this.list) {
      k = merge(k, ComparisonExpr.commonKind(child.dataType(), e.dataType(), "IN"));
      scale = Math.max(scale, Kernels.scaleOf(e.dataType()));
      if (e instanceof LiteralExpr l) {
        hasNull |= l.value() == null;
      } else {
        literals = false;
      }
    }
    this.kind = k;
    this.decimalScale = scale;
    this.literalList = literals;
    this.listHasNull = hasNull;
    LongHashSet ls = null;
    Set<Object> os = null;
    Utf8Set ss = null;
    if (literals) {
      List<Long> longs = new ArrayList<>();
      os = new HashSet<>();
      boolean allLong = true;
      for (PhysicalExpr e : this.list) {
        LiteralExpr l = (LiteralExpr) e;
        if (l.value() == null) {
          continue;
        }
        Object key = key(l.value(), l.dataType());
        os.add(key);
        if (key instanceof Long x) {
          longs.add(x);
        } else {
          allLong = false;
        }
      }
      if (allLong && kind != Vectors.Kind.STRING) {
        ls = new LongHashSet(longs.stream().mapToLong(Long::longValue).toArray());
      }
      if (kind == Vectors.Kind.STRING) {
        ss = new Utf8Set(os.stream().map(v -> ((ByteBuffer) v).array()).toList());
      }
    }
    this.longSet = ls;
    this.objectSet = os;
    this.stringSet = ss;
  }

  private static Vectors.Kind merge(Vectors.Kind a, Vectors.Kind b) {
    if (a == Vectors.Kind.NULL || a == b) {
      return b;
    }
    if (b == Vectors.Kind.NULL) {
      return a;
    }
    if (a == Vectors.Kind.DOUBLE || b == Vectors.Kind.DOUBLE) {
      return Vectors.Kind.DOUBLE;
    }
    if (a == Vectors.Kind.DECIMAL || b == Vectors.Kind.DECIMAL) {
      return Vectors.Kind.DECIMAL;
    }
    return Vectors.Kind.TIMESTAMP;
  }

  /** Canonical probe key of a literal: Long for integer-like and double kinds, else an object. */
  private Object key(Object value, ArrowType type) {
    switch (kind) {
      case STRING:
        return ByteBuffer.wrap(((String) value).getBytes(StandardCharsets.UTF_8));
      case DOUBLE:
        double d = value instanceof BigDecimal b ? b.doubleValue() : ((Number) value).doubleValue();
        return Double.doubleToLongBits(d == 0.0 ? 0.0 : d);
      case DECIMAL:
        BigDecimal b =
            value instanceof BigDecimal x ? x : BigDecimal.valueOf(Operand.toLong(value));
        BigInteger u = b.setScale(decimalScale).unscaledValue();
        return u.bitLength() < 64 ? (Object) u.longValue() : u;
      case TIMESTAMP:
        long v = Operand.toLong(value);
        return Vectors.kind(type) == Vectors.Kind.DATE ? v * Vectors.MICROS_PER_DAY : v;
      default:
        return Operand.toLong(value);
    }
  }

  /** The tested expression. */
  public PhysicalExpr child() {
    return child;
  }

  /** The candidate values. */
  public List<PhysicalExpr> list() {
    return list;
  }

  /** True for NOT IN. */
  public boolean negated() {
    return negated;
  }

  @Override
  public ArrowType dataType() {
    return ArrowType.Bool.INSTANCE;
  }

  @Override
  public boolean nullable() {
    return child.nullable() || list.stream().anyMatch(PhysicalExpr::nullable);
  }

  @Override
  public List<PhysicalExpr> children() {
    List<PhysicalExpr> c = new ArrayList<>();
    c.add(child);
    c.addAll(list);
    return c;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand c = Operand.of(child, batch, allocator)) {
      if (c.allNull()) {
        return Vectors.nulls(ArrowType.Bool.INSTANCE, n, allocator);
      }
      long[] found;
      long[] unknown = new long[Bits.words(n)];
      if (literalList) {
        found = probe(c, n);
        if (listHasNull) {
          unknown = Bits.ones(n);
        }
      } else {
        found = new long[Bits.words(n)];
        for (PhysicalExpr e : list) {
          try (Operand item = Operand.of(e, batch, allocator)) {
            if (item.allNull()) {
              unknown = Bits.ones(n);
              continue;
            }
            long[] eq = ComparisonExpr.compare(c, item, ComparisonExpr.Op.EQ, n);
            long[] iv = item.validity();
            for (int j = 0; j < found.length; j++) {
              long itemValid = iv == null ? -1L : iv[j];
              found[j] |= eq[j] & itemValid;
              unknown[j] |= ~itemValid;
            }
          }
        }
      }
      long[] cv = c.validity();
      long[] valid = new long[found.length];
      long[] value = new long[found.length];
      for (int j = 0; j < found.length; j++) {
        long childValid = cv == null ? -1L : cv[j];
        long f = found[j] & childValid;
        valid[j] = childValid & (f | ~unknown[j]);
        value[j] = negated ? ~f : f;
      }
      Bits.maskTail(valid, n);
      return BoolWords.write(value, valid, n, allocator);
    }
  }

  private long[] probe(Operand c, int n) {
    long[] w = new long[Bits.words(n)];
    if (c.isScalar()) {
      if (objectSet.contains(key(c.value, c.type))) {
        return Bits.ones(n);
      }
      return w;
    }
    switch (kind) {
      case STRING:
        {
          long offsets = Raw.address(c.vector.getOffsetBuffer(), (n + 1) * 4L);
          int end = Raw.getInt(offsets + n * 4L);
          long data = Raw.address(c.vector.getDataBuffer(), end);
          long[] valid = c.validity();
          for (int i = 0; i < n; i++) {
            if (Bits.valid(valid, i)) {
              int start = Raw.getInt(offsets + i * 4L);
              int length = Raw.getInt(offsets + i * 4L + 4) - start;
              if (stringSet.contains(data + start, length)) {
                Bits.set(w, i);
              }
            }
          }
          return w;
        }
      case DOUBLE:
        {
          double[] d = c.doubles();
          for (int i = 0; i < n; i++) {
            double x = d[i] == 0.0 ? 0.0 : d[i];
            if (longSet.contains(Double.doubleToLongBits(x))) {
              Bits.set(w, i);
            }
          }
          return w;
        }
      case DECIMAL:
        {
          Operand.DecimalData d = c.decimals(decimalScale);
          for (int i = 0; i < n; i++) {
            boolean hit;
            if (d.small != null && longSet != null) {
              hit = longSet.contains(d.small[i]);
            } else {
              BigInteger u = d.bigAt(i);
              hit = objectSet.contains(u.bitLength() < 64 ? (Object) u.longValue() : u);
            }
            if (hit) {
              Bits.set(w, i);
            }
          }
          return w;
        }
      default:
        {
          long[] v = c.longs();
          if (kind == Vectors.Kind.TIMESTAMP && c.kind() == Vectors.Kind.DATE) {
            for (int i = 0; i < n; i++) {
              v[i] *= Vectors.MICROS_PER_DAY;
            }
          }
          for (int i = 0; i < n; i++) {
            if (longSet.contains(v[i])) {
              Bits.set(w, i);
            }
          }
          return w;
        }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InListExpr other
        && other.child.equals(child)
        && other.list.equals(list)
        && other.negated == negated;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(child, list, negated);
  }

  @Override
  public String toString() {
    return child
        + (negated ? " NOT IN " : " IN ")
        + list.toString().replace('[', '(').replace(']', ')');
  }
}
