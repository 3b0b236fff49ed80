package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.kernel.Raw;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.Types;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Comparison {@code left op right} with SQL null semantics. Numbers of different kinds are compared
 * by value (decimals of any scale exactly), strings byte-wise in UTF-8, dates against timestamps as
 * midnight.
 */
public record ComparisonExpr(Op op, PhysicalExpr left, PhysicalExpr right) implements PhysicalExpr {

  /** Comparison operator. */
  public enum Op {
    EQ("="),
    NE("<>"),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    /** The SQL symbol. */
    public String symbol() {
      return symbol;
    }

    /** The operator with its operands swapped: a op b == b op.flip() a. */
    public Op flip() {
      switch (this) {
        case LT:
          return GT;
        case LE:
          return GE;
        case GT:
          return LT;
        case GE:
          return LE;
        default:
          return this;
      }
    }

    /** The operator giving the opposite result on non-null operands. */
    public Op negate() {
      switch (this) {
        case EQ:
          return NE;
        case NE:
          return EQ;
        case LT:
          return GE;
        case LE:
          return GT;
        case GT:
          return LE;
        default:
          return LT;
      }
    }
  }

  /** Checks that the operand types are comparable. */
  public ComparisonExpr {
    commonKind(left.dataType(), right.dataType(), op.symbol);
  }

  @Override
  public ArrowType dataType() {
    return ArrowType.Bool.INSTANCE;
  }

  @Override
  public boolean nullable() {
    return left.nullable() || right.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(left, right);
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand l = Operand.of(left, batch, allocator);
        Operand r = Operand.of(right, batch, allocator)) {
      if (l.allNull() || r.allNull()) {
        return Vectors.nulls(ArrowType.Bool.INSTANCE, n, allocator);
      }
      long[] valid = Bits.and(l.validity(), r.validity());
      return Bits.toBitVector(compare(l, r, op, n), valid, n, allocator);
    }
  }

  /** Kind both sides are compared as. */
  static Vectors.Kind commonKind(ArrowType a, ArrowType b, String what) {
    Vectors.Kind ka = Vectors.kind(a);
    Vectors.Kind kb = Vectors.kind(b);
    if (ka == Vectors.Kind.NULL) {
      return kb;
    }
    if (kb == Vectors.Kind.NULL || ka == kb) {
      return ka;
    }
    boolean numA =
        ka == Vectors.Kind.INT || ka == Vectors.Kind.DOUBLE || ka == Vectors.Kind.DECIMAL;
    boolean numB =
        kb == Vectors.Kind.INT || kb == Vectors.Kind.DOUBLE || kb == Vectors.Kind.DECIMAL;
    if (numA && numB) {
      if (ka == Vectors.Kind.DOUBLE || kb == Vectors.Kind.DOUBLE) {
        return Vectors.Kind.DOUBLE;
      }
      return Vectors.Kind.DECIMAL;
    }
    if ((ka == Vectors.Kind.DATE && kb == Vectors.Kind.TIMESTAMP)
        || (ka == Vectors.Kind.TIMESTAMP && kb == Vectors.Kind.DATE)) {
      return Vectors.Kind.TIMESTAMP;
    }
    throw new QueryTypeException(
        "Cannot compare "
            + Vectors.sqlName(a)
            + " with "
            + Vectors.sqlName(b)
            + " using '"
            + what
            + "'; cast one side to the other's type");
  }

  /** Result bits of {@code l op r} for every row, ignoring validity (the caller masks it). */
  static long[] compare(Operand l, Operand r, Op op, int n) {
    if (n == 0) {
      return new long[0];
    }
    if (l.isScalar() && !r.isScalar()) {
      return compare(r, l, op.flip(), n);
    }
    if (op == Op.NE) {
      long[] eq = compare(l, r, Op.EQ, n);
      for (int j = 0; j < eq.length; j++) {
        eq[j] = ~eq[j];
      }
      Bits.maskTail(eq, n);
      return eq;
    }
    Vectors.Kind kind = commonKind(l.type, r.type, op.symbol);
    switch (kind) {
      case STRING:
        return strings(l, r, op, n);
      case DOUBLE:
        return doubles(
            l.doubles(),
            r.isScalar() ? null : r.doubles(),
            r.isScalar() ? r.scalarDouble() : 0,
            op,
            n);
      case DECIMAL:
        int scale = Math.max(Kernels.scaleOf(l.type), Kernels.scaleOf(r.type));
        Operand.DecimalData a = l.decimals(scale);
        Operand.DecimalData b = r.decimals(scale);
        if (a.small != null && b.small != null) {
          return longs(
              a.small, r.isScalar() ? null : b.small, r.isScalar() ? b.small[0] : 0, op, n);
        }
        long[] w = new long[Bits.words(n)];
        for (int i = 0; i < n; i++) {
          if (test(op, a.bigAt(i).compareTo(b.bigAt(i)))) {
            Bits.set(w, i);
          }
        }
        return w;
      case TIMESTAMP:
        long[] x = micros(l);
        long[] y = micros(r);
        return longs(x, y, 0, op, n);
      default:
        long[] inPlace = int32s(l, r, op, n);
        if (inPlace != null) {
          return inPlace;
        }
        if (r.isScalar()) {
          return longs(l.longs(), null, r.scalarLong(), op, n);
        }
        return longs(l.longs(), r.longs(), 0, op, n);
    }
  }

  private static boolean isInt32(Operand o) {
    return o.vector != null
        && (o.vector.getMinorType() == Types.MinorType.INT
            || o.vector.getMinorType() == Types.MinorType.DATEDAY);
  }

  /**
   * 4-byte integers and dates compared where they lie in Arrow memory (no widening copies: TPC-H
   * filters such as {@code l_commitdate < l_receiptdate} run over every lineitem row); null when
   * the operands are not such columns, or the scalar does not fit in an int.
   */
  private static long[] int32s(Operand l, Operand r, Op op, int n) {
    if (!isInt32(l) || !(r.isScalar() ? r.value != null : isInt32(r))) {
      return null;
    }
    long a = Raw.address(l.vector.getDataBuffer(), n * 4L);
    long[] w = new long[Bits.words(n)];
    if (r.isScalar()) {
      long scalar = r.scalarLong();
      if (scalar != (int) scalar) {
        return null;
      }
      int s = (int) scalar;
      switch (op) {
        case EQ -> {
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (Raw.getInt(a + 4L * i) == s ? 1L : 0L) << i;
          }
        }
        case LT -> {
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (Raw.getInt(a + 4L * i) < s ? 1L : 0L) << i;
          }
        }
        case LE -> {
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (Raw.getInt(a + 4L * i) <= s ? 1L : 0L) << i;
          }
        }
        case GT -> {
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (Raw.getInt(a + 4L * i) > s ? 1L : 0L) << i;
          }
        }
        case GE -> {
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (Raw.getInt(a + 4L * i) >= s ? 1L : 0L) << i;
          }
        }
        default -> {
          return null;
        }
      }
      return w;
    }
    long b = Raw.address(r.vector.getDataBuffer(), n * 4L);
    switch (op) {
      case EQ -> {
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (Raw.getInt(a + 4L * i) == Raw.getInt(b + 4L * i) ? 1L : 0L) << i;
        }
      }
      case LT -> {
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (Raw.getInt(a + 4L * i) < Raw.getInt(b + 4L * i) ? 1L : 0L) << i;
        }
      }
      case LE -> {
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (Raw.getInt(a + 4L * i) <= Raw.getInt(b + 4L * i) ? 1L : 0L) << i;
        }
      }
      case GT -> {
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (Raw.getInt(a + 4L * i) > Raw.getInt(b + 4L * i) ? 1L : 0L) << i;
        }
      }
      case GE -> {
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (Raw.getInt(a + 4L * i) >= Raw.getInt(b + 4L * i) ? 1L : 0L) << i;
        }
      }
      default -> {
        return null;
      }
    }
    return w;
  }

  private static long[] micros(Operand o) {
    long[] v = o.longs();
    if (o.kind() == Vectors.Kind.DATE) {
      for (int i = 0; i < v.length; i++) {
        v[i] *= Vectors.MICROS_PER_DAY;
      }
    }
    return v;
  }

  static boolean test(Op op, int c) {
    switch (op) {
      case EQ:
        return c == 0;
      case NE:
        return c != 0;
      case LT:
        return c < 0;
      case LE:
        return c <= 0;
      case GT:
        return c > 0;
      default:
        return c >= 0;
    }
  }

  /** Compares a with b (or with scalar s when b is null). */
  static long[] longs(long[] a, long[] b, long s, Op op, int n) {
    long[] w = new long[Bits.words(n)];
    if (b == null) {
      switch (op) {
        case EQ:
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (a[i] == s ? 1L : 0L) << i;
          }
          break;
        case LT:
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (a[i] < s ? 1L : 0L) << i;
          }
          break;
        case LE:
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (a[i] <= s ? 1L : 0L) << i;
          }
          break;
        case GT:
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (a[i] > s ? 1L : 0L) << i;
          }
          break;
        case GE:
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (a[i] >= s ? 1L : 0L) << i;
          }
          break;
        default:
          for (int i = 0; i < n; i++) {
            w[i >>> 6] |= (a[i] != s ? 1L : 0L) << i;
          }
      }
      return w;
    }
    switch (op) {
      case EQ:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] == b[i] ? 1L : 0L) << i;
        }
        break;
      case LT:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] < b[i] ? 1L : 0L) << i;
        }
        break;
      case LE:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] <= b[i] ? 1L : 0L) << i;
        }
        break;
      case GT:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] > b[i] ? 1L : 0L) << i;
        }
        break;
      case GE:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] >= b[i] ? 1L : 0L) << i;
        }
        break;
      default:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] != b[i] ? 1L : 0L) << i;
        }
    }
    return w;
  }

  static long[] doubles(double[] a, double[] b, double s, Op op, int n) {
    long[] w = new long[Bits.words(n)];
    if (b == null) {
      b = new double[n];
      java.util.Arrays.fill(b, s);
    }
    switch (op) {
      case EQ:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] == b[i] ? 1L : 0L) << i;
        }
        break;
      case LT:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] < b[i] ? 1L : 0L) << i;
        }
        break;
      case LE:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] <= b[i] ? 1L : 0L) << i;
        }
        break;
      case GT:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] > b[i] ? 1L : 0L) << i;
        }
        break;
      case GE:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] >= b[i] ? 1L : 0L) << i;
        }
        break;
      default:
        for (int i = 0; i < n; i++) {
          w[i >>> 6] |= (a[i] != b[i] ? 1L : 0L) << i;
        }
    }
    return w;
  }

  private static long[] strings(Operand l, Operand r, Op op, int n) {
    if (l.isScalar()) {
      // Two constants (e.g. 'a' BETWEEN 'a' AND 'zz', which the planner does not fold): one
      // comparison for every row; a NULL operand makes the rows NULL through the validity.
      if (l.value == null || r.value == null) {
        return new long[Bits.words(n)];
      }
      byte[] a = ((String) l.value).getBytes(StandardCharsets.UTF_8);
      byte[] b = ((String) r.value).getBytes(StandardCharsets.UTF_8);
      return test(op, Arrays.compareUnsigned(a, b)) ? Bits.ones(n) : new long[Bits.words(n)];
    }
    long[] w = new long[Bits.words(n)];
    long[] lv = l.validity();
    ArrowBuf lo = l.vector.getOffsetBuffer();
    ArrowBuf ld = l.vector.getDataBuffer();
    if (r.isScalar()) {
      return againstConstant(l, ((String) r.value).getBytes(StandardCharsets.UTF_8), lv, op, w, n);
    }
    long[] valid = Bits.and(lv, r.validity());
    ArrowBuf ro = r.vector.getOffsetBuffer();
    ArrowBuf rd = r.vector.getDataBuffer();
    for (int i = 0; i < n; i++) {
      if (!Bits.valid(valid, i)) {
        continue;
      }
      long as = lo.getInt(i * 4L);
      long ae = lo.getInt(i * 4L + 4);
      long bs = ro.getInt(i * 4L);
      long be = ro.getInt(i * 4L + 4);
      boolean t;
      if (op == Op.EQ) {
        t = ae - as == be - bs && ByteFunctionHelpers.equal(ld, as, ae, rd, bs, be) == 1;
      } else {
        t = test(op, ByteFunctionHelpers.compare(ld, as, ae, rd, bs, be));
      }
      if (t) {
        Bits.set(w, i);
      }
    }
    return w;
  }

  /**
   * A string column against a constant, over raw memory: equality checks the length first and then
   * the bytes a word at a time; an ordering compares unsigned words (big-endian order) up to the
   * first difference, then the lengths.
   */
  private static long[] againstConstant(Operand l, byte[] s, long[] lv, Op op, long[] w, int n) {
    if (n == 0) {
      return w;
    }
    long offsets = Raw.address(l.vector.getOffsetBuffer(), (n + 1) * 4L);
    long data = Raw.address(l.vector.getDataBuffer(), Raw.getInt(offsets + n * 4L));
    int len = s.length;
    long[] words = new long[len >>> 3];
    for (int k = 0; k < words.length; k++) {
      words[k] = bigEndianWord(s, k * 8);
    }
    boolean equality = op == Op.EQ || op == Op.NE;
    boolean wantEqual = op == Op.EQ;
    for (int i = 0; i < n; i++) {
      if (!Bits.valid(lv, i)) {
        continue;
      }
      int start = Raw.getInt(offsets + i * 4L);
      int vlen = Raw.getInt(offsets + i * 4L + 4) - start;
      boolean t;
      if (equality) {
        t = (vlen == len && equalBytes(data + start, s, words)) == wantEqual;
      } else {
        t = test(op, compareBytes(data + start, vlen, s, words));
      }
      if (t) {
        Bits.set(w, i);
      }
    }
    return w;
  }

  /** The 8 bytes of {@code s} from {@code at} as one big-endian (unsigned-comparable) word. */
  private static long bigEndianWord(byte[] s, int at) {
    long x = 0;
    for (int k = 0; k < 8; k++) {
      x = (x << 8) | (s[at + k] & 0xFF);
    }
    return x;
  }

  /** Whether the {@code s.length} bytes at {@code address} equal {@code s}. */
  private static boolean equalBytes(long address, byte[] s, long[] words) {
    int k = 0;
    for (; k < words.length; k++) {
      if (Long.reverseBytes(Raw.getLong(address + k * 8L)) != words[k]) {
        return false;
      }
    }
    for (int b = k * 8; b < s.length; b++) {
      if (Raw.getByte(address + b) != s[b]) {
        return false;
      }
    }
    return true;
  }

  /** Unsigned lexicographic comparison of {@code len} bytes at {@code address} with {@code s}. */
  private static int compareBytes(long address, int len, byte[] s, long[] words) {
    int common = Math.min(len, s.length);
    int k = 0;
    for (; (k + 1) * 8 <= common; k++) {
      long a = Long.reverseBytes(Raw.getLong(address + k * 8L));
      if (a != words[k]) {
        return Long.compareUnsigned(a, words[k]);
      }
    }
    for (int b = k * 8; b < common; b++) {
      int x = Raw.getByte(address + b) & 0xFF;
      int y = s[b] & 0xFF;
      if (x != y) {
        return x < y ? -1 : 1;
      }
    }
    return Integer.compare(len, s.length);
  }

  @Override
  public String toString() {
    return "(" + left + " " + op.symbol + " " + right + ")";
  }
}
