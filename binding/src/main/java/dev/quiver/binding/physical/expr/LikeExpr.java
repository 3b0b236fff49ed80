package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * {@code child [NOT] LIKE|ILIKE pattern [ESCAPE e]}. Literal patterns made only of text and {@code
 * %} (prefix%, %suffix, %infix%, a%b%c) are matched on the UTF-8 bytes directly; patterns with
 * {@code _}, case-insensitive ones and non-literal ones use a regular expression.
 *
 * <p>{@code [NOT] SIMILAR TO} ({@code similar}) takes the SQL standard's (and PostgreSQL's) regular
 * expressions: {@code %} and {@code _} as in LIKE, {@code | * + ? {m,n} ( ) [...]} as in regular
 * expressions, anything else literal (also {@code .}); the whole value must match. The escape
 * character defaults to backslash.
 */
public record LikeExpr(
    PhysicalExpr child,
    PhysicalExpr pattern,
    String escape,
    boolean caseInsensitive,
    boolean negated,
    boolean similar)
    implements PhysicalExpr {

  /** A LIKE or ILIKE. */
  public LikeExpr(
      PhysicalExpr child,
      PhysicalExpr pattern,
      String escape,
      boolean caseInsensitive,
      boolean negated) {
    this(child, pattern, escape, caseInsensitive, negated, false);
  }

  /** Checks operand types and the escape. */
  public LikeExpr {
    for (PhysicalExpr e : List.of(child, pattern)) {
      Vectors.Kind k = Vectors.kind(e.dataType());
      if (k != Vectors.Kind.STRING && k != Vectors.Kind.NULL) {
        throw new QueryTypeException(
            "LIKE expects VARCHAR operands, got " + Vectors.sqlName(e.dataType()) + " in " + e);
      }
    }
    if (escape != null && escape.codePointCount(0, escape.length()) != 1) {
      throw new QueryTypeException("LIKE ESCAPE must be a single character, got '" + escape + "'");
    }
  }

  @Override
  public ArrowType dataType() {
    return ArrowType.Bool.INSTANCE;
  }

  @Override
  public boolean nullable() {
    return child.nullable() || pattern.nullable();
  }

  @Override
  public List<PhysicalExpr> children() {
    return List.of(child, pattern);
  }

  /** A parsed pattern: either %-separated byte segments or a regular expression. */
  static final class Matcher {
    final byte[][] segments;
    // The segments as Latin-1 strings (one char per byte), for matching a whole batch at once.
    final String[] latin1;
    final boolean anchoredStart;
    final boolean anchoredEnd;
    final Pattern regex;

    Matcher(String pattern, String escape, boolean caseInsensitive, boolean similar) {
      if (similar) {
        regex = Pattern.compile(similarRegex(pattern, escape), Pattern.DOTALL);
        segments = null;
        latin1 = null;
        anchoredStart = true;
        anchoredEnd = true;
        return;
      }
      List<String> segs = new ArrayList<>();
      StringBuilder regexText = new StringBuilder();
      StringBuilder cur = new StringBuilder();
      boolean hasUnderscore = false;
      int esc = escape == null ? -1 : escape.codePointAt(0);
      boolean startsWithPercent = false;
      boolean endsWithPercent = false;
      int i = 0;
      boolean first = true;
      while (i < pattern.length()) {
        int cp = pattern.codePointAt(i);
        i += Character.charCount(cp);
        endsWithPercent = false;
        if (cp == esc) {
          if (i >= pattern.length()) {
            throw new QueryTypeException(
                "LIKE pattern '" + pattern + "' ends with the escape character");
          }
          int next = pattern.codePointAt(i);
          i += Character.charCount(next);
          if (next != '%' && next != '_' && next != esc) {
            throw new QueryTypeException(
                "Invalid escape sequence in LIKE pattern '"
                    + pattern
                    + "'; the escape character must precede %, _ or itself");
          }
          cur.appendCodePoint(next);
          regexText.append(Pattern.quote(new String(Character.toChars(next))));
        } else if (cp == '%') {
          if (first) {
            startsWithPercent = true;
          }
          segs.add(cur.toString());
          cur.setLength(0);
          regexText.append(".*");
          endsWithPercent = true;
        } else if (cp == '_') {
          hasUnderscore = true;
          regexText.append('.');
        } else {
          cur.appendCodePoint(cp);
          regexText.append(Pattern.quote(new String(Character.toChars(cp))));
        }
        first = false;
      }
      segs.add(cur.toString());
      if (hasUnderscore || caseInsensitive) {
        int flags =
            Pattern.DOTALL
                | (caseInsensitive ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        regex = Pattern.compile(regexText.toString(), flags);
        segments = null;
        latin1 = null;
      } else {
        regex = null;
        segments = new byte[segs.size()][];
        latin1 = new String[segs.size()];
        for (int k = 0; k < segs.size(); k++) {
          segments[k] = segs.get(k).getBytes(StandardCharsets.UTF_8);
          latin1[k] = new String(segments[k], StandardCharsets.ISO_8859_1);
        }
      }
      anchoredStart = !startsWithPercent;
      anchoredEnd = !endsWithPercent;
    }

    /** The Java regular expression of SQL regular expression {@code pattern}. */
    static String similarRegex(String pattern, String escape) {
      int esc = escape == null ? '\\' : escape.codePointAt(0);
      StringBuilder out = new StringBuilder();
      boolean inBracket = false;
      int i = 0;
      while (i < pattern.length()) {
        int cp = pattern.codePointAt(i);
        i += Character.charCount(cp);
        if (cp == esc) {
          if (i >= pattern.length()) {
            throw new QueryTypeException(
                "SIMILAR TO pattern '" + pattern + "' ends with the escape character");
          }
          int next = pattern.codePointAt(i);
          i += Character.charCount(next);
          out.append(Pattern.quote(new String(Character.toChars(next))));
        } else if (inBracket) {
          if (cp == ']') {
            inBracket = false;
            out.append(']');
          } else if (cp == '\\' || cp == '[' || cp == '&') {
            out.append('\\').appendCodePoint(cp);
          } else {
            out.appendCodePoint(cp);
          }
        } else if (cp == '%') {
          out.append(".*");
        } else if (cp == '_') {
          out.append('.');
        } else if (cp == '[') {
          inBracket = true;
          out.append('[');
          if (i < pattern.length() && pattern.charAt(i) == '^') {
            out.append('^');
            i++;
          }
          if (i < pattern.length() && pattern.charAt(i) == ']') {
            out.append("\\]");
            i++;
          }
        } else if (cp == '{') {
          // A bound {m}, {m,} or {m,n}: copied as it is.
          int close = pattern.indexOf('}', i);
          if (close < 0 || !pattern.substring(i, close).matches("\\d+(,\\d*)?")) {
            throw new QueryTypeException(
                "Invalid SIMILAR TO pattern '"
                    + pattern
                    + "': write a bound as {m}, {m,} or {m,n}");
          }
          out.append(pattern, i - 1, close + 1);
          i = close + 1;
        } else if ("|*+?()".indexOf(cp) >= 0) {
          out.appendCodePoint(cp);
        } else {
          out.append(Pattern.quote(new String(Character.toChars(cp))));
        }
      }
      if (inBracket) {
        throw new QueryTypeException("SIMILAR TO pattern '" + pattern + "' has an unclosed [");
      }
      String regex = out.toString();
      try {
        Pattern.compile(regex);
      } catch (java.util.regex.PatternSyntaxException e) {
        throw new QueryTypeException(
            "Invalid SIMILAR TO pattern '" + pattern + "': " + e.getDescription(), e);
      }
      return regex;
    }

    /**
     * Matches bytes[0, len). With segments s0 % s1 % ... % sk: s0 prefix, sk suffix, rest in order.
     */
    boolean matches(byte[] bytes, int len) {
      if (regex != null) {
        return regex.matcher(new String(bytes, 0, len, StandardCharsets.UTF_8)).matches();
      }
      int k = segments.length;
      if (k == 1) {
        return len == segments[0].length && regionEquals(bytes, 0, segments[0]);
      }
      byte[] head = segments[0];
      byte[] tail = segments[k - 1];
      if (len < head.length + tail.length
          || !regionEquals(bytes, 0, head)
          || !regionEquals(bytes, len - tail.length, tail)) {
        return false;
      }
      int pos = head.length;
      int end = len - tail.length;
      for (int s = 1; s < k - 1; s++) {
        int at = indexOf(bytes, pos, end, segments[s]);
        if (at < 0) {
          return false;
        }
        pos = at + segments[s].length;
      }
      return true;
    }

    /**
     * Matches chars [start, end) of {@code all}, a batch's bytes as one Latin-1 string, without the
     * regular expression. A middle segment is found with {@link String#indexOf(String, int)} (a
     * vectorised intrinsic); since rows come in order, {@code next[s]} keeps the first occurrence
     * of segment s at or after {@code from[s]}, and a row starting before it reuses it instead of
     * searching again, so a rare segment is searched for once per batch, not per row.
     */
    boolean matches(String all, int start, int end, int[] next, int[] from) {
      int k = latin1.length;
      int len = end - start;
      if (k == 1) {
        return len == segments[0].length && all.startsWith(latin1[0], start);
      }
      String head = latin1[0];
      String tail = latin1[k - 1];
      if (len < head.length() + tail.length()
          || !all.startsWith(head, start)
          || !all.startsWith(tail, end - tail.length())) {
        return false;
      }
      int pos = start + head.length();
      int stop = end - tail.length();
      for (int s = 1; s < k - 1; s++) {
        String seg = latin1[s];
        int at;
        if (seg.isEmpty()) {
          at = pos;
        } else if (from[s] <= pos && (next[s] < 0 || next[s] >= pos)) {
          at = next[s]; // no occurrence in [from[s], next[s]), so none in [pos, next[s])
        } else {
          at = all.indexOf(seg, pos);
          from[s] = pos;
          next[s] = at;
        }
        if (at < 0 || at + seg.length() > stop) {
          return false;
        }
        pos = at + seg.length();
      }
      return true;
    }

    private static boolean regionEquals(byte[] bytes, int from, byte[] seg) {
      for (int j = 0; j < seg.length; j++) {
        if (bytes[from + j] != seg[j]) {
          return false;
        }
      }
      return true;
    }

    private static int indexOf(byte[] bytes, int from, int end, byte[] seg) {
      if (seg.length == 0) {
        return from;
      }
      byte b0 = seg[0];
      int last = end - seg.length;
      outer:
      for (int p = from; p <= last; p++) {
        if (bytes[p] != b0) {
          continue;
        }
        for (int j = 1; j < seg.length; j++) {
          if (bytes[p + j] != seg[j]) {
            continue outer;
          }
        }
        return p;
      }
      return -1;
    }
  }

  @Override
  public FieldVector evaluate(VectorSchemaRoot batch, BufferAllocator allocator) {
    int n = batch.getRowCount();
    try (Operand c = Operand.ofVector(child.evaluate(batch, allocator));
        Operand p = Operand.of(pattern, batch, allocator)) {
      if (c.allNull() || p.allNull()) {
        return Vectors.nulls(ArrowType.Bool.INSTANCE, n, allocator);
      }
      long[] valid = Bits.and(c.validity(), p.validity());
      long[] w = new long[Bits.words(n)];
      ArrowBuf offsets = c.vector.getOffsetBuffer();
      ArrowBuf data = c.vector.getDataBuffer();
      if (p.isScalar() && n > 0) {
        Matcher whole = new Matcher((String) p.value, escape, caseInsensitive, similar);
        if (whole.regex == null) {
          return matchBatch(whole, offsets, data, valid, w, n, allocator);
        }
      }
      byte[] buf = new byte[64];
      Matcher fixed =
          p.isScalar() ? new Matcher((String) p.value, escape, caseInsensitive, similar) : null;
      String lastPattern = null;
      Matcher m = fixed;
      for (int i = 0; i < n; i++) {
        if (!Bits.valid(valid, i)) {
          continue;
        }
        if (fixed == null) {
          String ps = (String) Vectors.getValue(p.vector, i);
          if (!ps.equals(lastPattern)) {
            m = new Matcher(ps, escape, caseInsensitive, similar);
            lastPattern = ps;
          }
        }
        int start = offsets.getInt(i * 4L);
        int len = offsets.getInt(i * 4L + 4) - start;
        if (len > buf.length) {
          buf = new byte[Math.max(len, buf.length * 2)];
        }
        data.getBytes(start, buf, 0, len);
        if (m.matches(buf, len) != negated) {
          Bits.set(w, i);
        }
      }
      return BoolWords.write(w, valid, n, allocator);
    }
  }

  /** Matches every row of a batch against a pattern without a regular expression. */
  private FieldVector matchBatch(
      Matcher m,
      ArrowBuf offsets,
      ArrowBuf data,
      long[] valid,
      long[] w,
      int n,
      BufferAllocator allocator) {
    int first = offsets.getInt(0);
    int last = offsets.getInt((long) n * 4);
    byte[] bytes = new byte[last - first];
    data.getBytes(first, bytes, 0, bytes.length);
    // One char per byte: byte-wise matching of the UTF-8 text, with String's intrinsics.
    String all = new String(bytes, StandardCharsets.ISO_8859_1);
    int[] next = new int[m.latin1.length];
    int[] from = new int[m.latin1.length];
    java.util.Arrays.fill(from, Integer.MAX_VALUE);
    int start = 0;
    for (int i = 0; i < n; i++) {
      int end = offsets.getInt((i + 1) * 4L) - first;
      if (Bits.valid(valid, i) && m.matches(all, start, end, next, from) != negated) {
        Bits.set(w, i);
      }
      start = end;
    }
    return BoolWords.write(w, valid, n, allocator);
  }

  @Override
  public String toString() {
    return child
        + (negated ? " NOT" : "")
        + (caseInsensitive ? " ILIKE " : " LIKE ")
        + pattern
        + (escape == null ? "" : " ESCAPE '" + escape + "'");
  }
}
