package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.physical.kernel.Raw;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Scalar string functions. Positions and lengths count characters (code points), 1-based as in SQL.
 * All functions return null when an argument is null, except {@link Fn#CONCAT_WS_NULLS} (Postgres
 * {@code concat}) which skips nulls.
 */
public record StringFunctionExpr(Fn fn, List<PhysicalExpr> args, ArrowType dataType)
    implements PhysicalExpr {

  /** Supported functions and their argument counts. */
  public enum Fn {
    /** UPPER(s). */
    UPPER(1, 1),
    /** LOWER(s). */
    LOWER(1, 1),
    /** SUBSTRING(s, from [, length]). */
    SUBSTRING(2, 3),
    /** TRIM(BOTH chars FROM s) as BTRIM(s [, chars]). */
    BTRIM(1, 2),
    /** LTRIM(s [, chars]). */
    LTRIM(1, 2),
    /** RTRIM(s [, chars]). */
    RTRIM(1, 2),
    /** CHAR_LENGTH(s). */
    CHAR_LENGTH(1, 1),
    /** s1 || s2 || ...; null if any argument is null. */
    CONCAT(1, Integer.MAX_VALUE),
    /** concat(s1, s2, ...) skipping null arguments. */
    CONCAT_WS_NULLS(1, Integer.MAX_VALUE),
    /** POSITION(sub IN s) as POSITION(sub, s); 0 when absent. */
    POSITION(2, 2),
    /** REPLACE(s, from, to). */
    REPLACE(3, 3),
    /** LEFT(s, n). */
    LEFT(2, 2),
    /** RIGHT(s, n). */
    RIGHT(2, 2),
    /** REVERSE(s). */
    REVERSE(1, 1);

    final int minArgs;
    final int maxArgs;

    Fn(int minArgs, int maxArgs) {
      this.minArgs = minArgs;
      this.maxArgs = maxArgs;
    }
  }

  /** Copies the arguments and checks their number. */
  public StringFunctionExpr {
    args = List.copyOf(args);
    if (args.size() < fn.minArgs || args.size() > fn.maxArgs) {
      throw new QueryTypeException(fn + " does not take " + args.size() + " arguments");
    }
  }

  @Override
  public boolean nullable() {
    return args.stream().anyMatch(PhysicalExpr::nullable);
  }

  @Override
  public List<PhysicalExpr> children() {
    return args;
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    List<Operand> ops = new ArrayList<>();
    try {
      for (PhysicalExpr a : args) {
        ops.add(Operand.of(a, batch, allocator));
      }
      if (fn == Fn.UPPER || fn == Fn.LOWER) {
        return caseMap(ops.get(0), n, allocator);
      }
      if (fn == Fn.CHAR_LENGTH && !ops.get(0).isScalar()) {
        return charLength(ops.get(0), n, allocator);
      }
      if (fn == Fn.SUBSTRING
          && !ops.get(0).isScalar()
          && !ops.get(0).allNull()
          && ops.get(0).vector instanceof VarCharVector
          && dataType instanceof ArrowType.Utf8
          && ops.subList(1, ops.size()).stream().allMatch(o -> o.isScalar() && o.value != null)) {
        long from = Operand.toLong(ops.get(1).value);
        long len = ops.size() > 2 ? Operand.toLong(ops.get(2).value) : Long.MAX_VALUE;
        return substringBytes(ops.get(0), from, len, n, allocator);
      }
      long[] valid = null;
      if (fn != Fn.CONCAT_WS_NULLS) {
        for (Operand o : ops) {
          valid = Bits.and(valid, o.validity());
        }
      }
      Object[] values = new Object[ops.size()];
      long[][] ints = new long[ops.size()][];
      for (int k = 0; k < ops.size(); k++) {
        if (Vectors.kind(ops.get(k).type) == Vectors.Kind.INT) {
          ints[k] = ops.get(k).longs();
        }
      }
      boolean intResult = Vectors.kind(dataType) == Vectors.Kind.INT;
      long[] intOut = intResult ? new long[n] : null;
      FieldVector out = intResult ? null : Vectors.allocate(dataType, n, allocator);
      try {
        for (int i = 0; i < n; i++) {
          if (!Bits.valid(valid, i)) {
            continue;
          }
          for (int k = 0; k < ops.size(); k++) {
            Operand o = ops.get(k);
            values[k] =
                ints[k] != null
                    ? (Object) ints[k][i]
                    : o.isScalar() ? o.value : Vectors.getValue(o.vector, i);
          }
          Object r = apply(values);
          if (intResult) {
            intOut[i] = ((Number) r).longValue();
          } else if (r != null) {
            ((VarCharVector) out).setSafe(i, ((String) r).getBytes(StandardCharsets.UTF_8));
          }
        }
        if (intResult) {
          return Kernels.writeInts(intOut, valid, dataType, n, allocator, this);
        }
        out.setValueCount(n);
        return out;
      } catch (RuntimeException e) {
        if (out != null) {
          out.close();
        }
        throw Vectors.rethrow(e);
      }
    } finally {
      ops.forEach(Operand::close);
    }
  }

  private Object apply(Object[] v) {
    switch (fn) {
      case SUBSTRING:
        {
          String s = (String) v[0];
          long from = ((Number) v[1]).longValue();
          long len = v.length > 2 ? ((Number) v[2]).longValue() : Long.MAX_VALUE;
          if (len < 0) {
            throw new QueryTypeException("SUBSTRING length must not be negative, got " + len);
          }
          int cps = s.codePointCount(0, s.length());
          long start = Math.max(from, 1);
          long end = len == Long.MAX_VALUE ? cps + 1L : Math.min(cps + 1L, from + len);
          if (end <= start || start > cps) {
            return "";
          }
          return substringCp(s, (int) start - 1, (int) end - 1);
        }
      case BTRIM:
      case LTRIM:
      case RTRIM:
        {
          String s = (String) v[0];
          String chars = v.length > 1 ? (String) v[1] : " ";
          int b = 0;
          int e = s.length();
          if (fn != Fn.RTRIM) {
            while (b < e && chars.indexOf(s.codePointAt(b)) >= 0) {
              b += Character.charCount(s.codePointAt(b));
            }
          }
          if (fn != Fn.LTRIM) {
            while (e > b && chars.indexOf(s.codePointBefore(e)) >= 0) {
              e -= Character.charCount(s.codePointBefore(e));
            }
          }
          return s.substring(b, e);
        }
      case CHAR_LENGTH:
        {
          String s = (String) v[0];
          return (long) s.codePointCount(0, s.length());
        }
      case CONCAT:
      case CONCAT_WS_NULLS:
        {
          StringBuilder sb = new StringBuilder();
          for (Object o : v) {
            if (o != null) {
              sb.append(o);
            }
          }
          return sb.toString();
        }
      case POSITION:
        {
          String sub = (String) v[0];
          String s = (String) v[1];
          int at = s.indexOf(sub);
          return at < 0 ? 0L : (long) s.codePointCount(0, at) + 1;
        }
      case REPLACE:
        {
          String from = (String) v[1];
          return from.isEmpty() ? v[0] : ((String) v[0]).replace(from, (String) v[2]);
        }
      case LEFT:
      case RIGHT:
        {
          String s = (String) v[0];
          long k = ((Number) v[1]).longValue();
          int cps = s.codePointCount(0, s.length());
          long keep = k >= 0 ? Math.min(k, cps) : Math.max(0, cps + k);
          return fn == Fn.LEFT
              ? substringCp(s, 0, (int) keep)
              : substringCp(s, (int) (cps - keep), cps);
        }
      case REVERSE:
        return new StringBuilder((String) v[0]).reverse().toString();
      default:
        throw new IllegalStateException(fn.name());
    }
  }

  private static String substringCp(String s, int fromCp, int toCp) {
    int b = s.offsetByCodePoints(0, fromCp);
    int e = s.offsetByCodePoints(b, toCp - fromCp);
    return s.substring(b, e);
  }

  /** UPPER/LOWER: byte-wise for ASCII rows, through String otherwise. */
  private FieldVector caseMap(Operand o, int n, BufferAllocator allocator) {
    if (o.allNull()) {
      return Vectors.nulls(dataType, n, allocator);
    }
    boolean upper = fn == Fn.UPPER;
    if (o.isScalar()) {
      String s = (String) o.value;
      return new LiteralExpr(
              upper ? s.toUpperCase(Locale.ROOT) : s.toLowerCase(Locale.ROOT), dataType)
          .materialize(n, allocator);
    }
    VarCharVector out = (VarCharVector) Vectors.allocate(dataType, n, allocator);
    try {
      long[] valid = o.validity();
      ArrowBuf offsets = o.vector.getOffsetBuffer();
      ArrowBuf data = o.vector.getDataBuffer();
      byte[] buf = new byte[64];
      for (int i = 0; i < n; i++) {
        if (!Bits.valid(valid, i)) {
          continue;
        }
        int start = offsets.getInt(i * 4L);
        int len = offsets.getInt(i * 4L + 4) - start;
        if (len > buf.length) {
          buf = new byte[Math.max(len, buf.length * 2)];
        }
        data.getBytes(start, buf, 0, len);
        boolean ascii = true;
        for (int j = 0; j < len; j++) {
          byte b = buf[j];
          if (b < 0) {
            ascii = false;
            break;
          }
          if (upper && b >= 'a' && b <= 'z') {
            buf[j] = (byte) (b - 32);
          } else if (!upper && b >= 'A' && b <= 'Z') {
            buf[j] = (byte) (b + 32);
          }
        }
        if (ascii) {
          out.setSafe(i, buf, 0, len);
        } else {
          byte[] raw = new byte[len];
          data.getBytes(start, raw, 0, len);
          String s = new String(raw, StandardCharsets.UTF_8);
          out.setSafe(
              i,
              (upper ? s.toUpperCase(Locale.ROOT) : s.toLowerCase(Locale.ROOT))
                  .getBytes(StandardCharsets.UTF_8));
        }
      }
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw Vectors.rethrow(e);
    }
  }

  /** Counts UTF-8 code points: every byte that is not a continuation byte starts one. */
  /**
   * SUBSTRING with constant bounds over the UTF-8 bytes, code point by code point (a code point
   * starts at every byte that is not 10xxxxxx), without a String per row: TPC-H Q22 takes the
   * country code of every customer's phone number.
   */
  private FieldVector substringBytes(
      Operand o, long from, long len, int n, BufferAllocator allocator) {
    if (len < 0) {
      throw new QueryTypeException("SUBSTRING length must not be negative, got " + len);
    }
    long first = Math.max(from, 1);
    long end = len > Long.MAX_VALUE - Math.max(from, 0) ? Long.MAX_VALUE : from + len;
    long[] valid = o.validity();
    long inOffsets = Raw.address(o.vector.getOffsetBuffer(), (n + 1) * 4L);
    int inEnd = Raw.getInt(inOffsets + n * 4L);
    long inData = Raw.address(o.vector.getDataBuffer(), inEnd);
    // No substring is longer than its string, so the input's byte count bounds the output's.
    int maxBytes = Math.max(1, inEnd - Raw.getInt(inOffsets));
    VarCharVector out = (VarCharVector) Field.nullable("expr", dataType).createVector(allocator);
    try {
      out.allocateNew(maxBytes, Math.max(n, 1));
      long outOffsets = Raw.address(out.getOffsetBuffer(), (n + 1) * 4L);
      long outData = Raw.address(out.getDataBuffer(), maxBytes);
      long outValid = Raw.address(out.getValidityBuffer(), (n + 7) / 8);
      int pos = 0;
      Raw.putInt(outOffsets, 0);
      for (int i = 0; i < n; i++) {
        if (Bits.valid(valid, i)) {
          Raw.setBit(outValid, i);
          int e = Raw.getInt(inOffsets + (i + 1) * 4L);
          int p = Raw.getInt(inOffsets + i * 4L);
          long cp = 1;
          for (; p < e && cp < first; cp++) {
            p = nextCodePoint(inData, p, e);
          }
          int b = p;
          for (; p < e && cp < end; cp++) {
            p = nextCodePoint(inData, p, e);
          }
          Raw.copy(inData + b, outData + pos, p - b);
          pos += p - b;
        }
        Raw.putInt(outOffsets + (i + 1) * 4L, pos);
      }
      out.setLastSet(n - 1);
      out.setValueCount(n);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  private static int nextCodePoint(long data, int p, int end) {
    p++;
    while (p < end && (Raw.getByte(data + p) & 0xC0) == 0x80) {
      p++;
    }
    return p;
  }

  private FieldVector charLength(Operand o, int n, BufferAllocator allocator) {
    long[] valid = o.validity();
    long[] res = new long[n];
    if (!o.allNull()) {
      ArrowBuf offsets = o.vector.getOffsetBuffer();
      ArrowBuf data = o.vector.getDataBuffer();
      for (int i = 0; i < n; i++) {
        if (!Bits.valid(valid, i)) {
          continue;
        }
        int start = offsets.getInt(i * 4L);
        int end = offsets.getInt(i * 4L + 4);
        int count = 0;
        for (int j = start; j < end; j++) {
          if ((data.getByte(j) & 0xC0) != 0x80) {
            count++;
          }
        }
        res[i] = count;
      }
    }
    return Kernels.writeInts(res, valid, dataType, n, allocator, this);
  }

  @Override
  public String toString() {
    return fn + args.toString().replace('[', '(').replace(']', ')');
  }
}
