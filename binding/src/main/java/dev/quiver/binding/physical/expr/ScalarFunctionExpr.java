package dev.quiver.binding.physical.expr;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Scalar functions computed value by value: string search and padding, regular expressions, date
 * formatting and arithmetic by unit, hashes. NULL in any argument gives NULL (except {@link
 * Fn#HASH}, which hashes NULL too, as DuckDB does). Regular expressions are Java's ({@link
 * Pattern}), compiled once per distinct pattern per batch.
 *
 * @param fn the function
 * @param args its arguments, already of the types the function reads
 * @param dataType the result type
 */
public record ScalarFunctionExpr(Fn fn, List<PhysicalExpr> args, ArrowType dataType)
    implements PhysicalExpr {

  /** Supported functions with their argument counts. */
  public enum Fn {
    /** split_part(s, delimiter, n): the n-th field (1-based; negative counts from the end). */
    SPLIT_PART(3, 3),
    /** regexp_replace(s, pattern, replacement [, flags]): the first match, or all with 'g'. */
    REGEXP_REPLACE(3, 4),
    /** regexp_matches(s, pattern [, flags]) / regexp_like: whether the pattern occurs in s. */
    REGEXP_MATCHES(2, 3),
    /** starts_with(s, prefix). */
    STARTS_WITH(2, 2),
    /** ends_with(s, suffix). */
    ENDS_WITH(2, 2),
    /** lpad(s, n [, fill]): s padded on the left (or cut) to n characters. */
    LPAD(2, 3),
    /** rpad(s, n [, fill]): s padded on the right (or cut) to n characters. */
    RPAD(2, 3),
    /** to_char(datetime, format) with PostgreSQL's template patterns. */
    TO_CHAR(2, 2),
    /** strftime(datetime, format) with C/DuckDB % specifiers. */
    STRFTIME(2, 2),
    /** date_format(datetime, format) with MySQL's % specifiers. */
    DATE_FORMAT(2, 2),
    /** date_diff(unit, start, end): the number of unit boundaries from start to end. */
    DATE_DIFF(3, 3),
    /** make_date(year, month, day). */
    MAKE_DATE(3, 3),
    /** epoch(datetime): seconds since 1970-01-01 00:00:00 as DOUBLE. */
    EPOCH(1, 1),
    /** md5(s) as 32 lower-case hex digits. */
    MD5(1, 1),
    /** chr(code): the character of a Unicode code point. */
    CHR(1, 1),
    /** hash(x, ...): a 64-bit hash of the values (NULL included). */
    HASH(1, Integer.MAX_VALUE);

    final int minArgs;
    final int maxArgs;

    Fn(int minArgs, int maxArgs) {
      this.minArgs = minArgs;
      this.maxArgs = maxArgs;
    }
  }

  /** Copies the arguments and checks their number. */
  public ScalarFunctionExpr {
    args = List.copyOf(args);
    if (args.size() < fn.minArgs || args.size() > fn.maxArgs) {
      throw new QueryTypeException(
          fn.name().toLowerCase(Locale.ROOT) + " does not take " + args.size() + " arguments");
    }
  }

  @Override
  public boolean nullable() {
    return fn != Fn.HASH && args.stream().anyMatch(PhysicalExpr::nullable);
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
      FieldVector out = Vectors.allocate(dataType, n, allocator);
      try {
        Object[] values = new Object[ops.size()];
        Patterns patterns = new Patterns();
        for (int i = 0; i < n; i++) {
          boolean anyNull = false;
          for (int k = 0; k < ops.size(); k++) {
            Operand o = ops.get(k);
            values[k] = o.isScalar() ? o.value : Vectors.getValue(o.vector, i);
            anyNull |= values[k] == null;
          }
          Object r = anyNull && fn != Fn.HASH ? null : apply(values, patterns);
          Vectors.setValue(out, i, r);
        }
        out.setValueCount(n);
        return out;
      } catch (RuntimeException e) {
        out.close();
        throw Vectors.rethrow(e);
      }
    } finally {
      ops.forEach(Operand::close);
    }
  }

  /** The last compiled pattern, reused while rows bring the same pattern text and flags. */
  private static final class Patterns {
    private String text;
    private int flags;
    private Pattern pattern;

    Pattern get(String regex, int javaFlags) {
      if (pattern == null || !regex.equals(text) || javaFlags != flags) {
        try {
          pattern = Pattern.compile(regex, javaFlags);
        } catch (PatternSyntaxException e) {
          throw new QueryTypeException(
              "Invalid regular expression '" + regex + "': " + e.getDescription());
        }
        text = regex;
        flags = javaFlags;
      }
      return pattern;
    }
  }

  private Object apply(Object[] v, Patterns patterns) {
    switch (fn) {
      case SPLIT_PART:
        return splitPart((String) v[0], (String) v[1], ((Number) v[2]).longValue());
      case REGEXP_REPLACE:
        {
          String flags = v.length > 3 ? (String) v[3] : "";
          Matcher m = patterns.get((String) v[1], regexFlags(flags)).matcher((String) v[0]);
          String replacement = javaReplacement((String) v[2]);
          return flags.indexOf('g') >= 0 ? m.replaceAll(replacement) : m.replaceFirst(replacement);
        }
      case REGEXP_MATCHES:
        {
          String flags = v.length > 2 ? (String) v[2] : "";
          return patterns.get((String) v[1], regexFlags(flags)).matcher((String) v[0]).find();
        }
      case STARTS_WITH:
        return ((String) v[0]).startsWith((String) v[1]);
      case ENDS_WITH:
        return ((String) v[0]).endsWith((String) v[1]);
      case LPAD:
      case RPAD:
        return pad((String) v[0], ((Number) v[1]).longValue(), v.length > 2 ? (String) v[2] : " ");
      case TO_CHAR:
        return DateFormats.toChar(dateTime(v[0]), (String) v[1]);
      case STRFTIME:
        return DateFormats.strftime(dateTime(v[0]), (String) v[1]);
      case DATE_FORMAT:
        return DateFormats.mysql(dateTime(v[0]), (String) v[1]);
      case DATE_DIFF:
        return dateDiff((String) v[0], dateTime(v[1]), dateTime(v[2]));
      case MAKE_DATE:
        try {
          return LocalDate.of(
              Math.toIntExact(((Number) v[0]).longValue()),
              Math.toIntExact(((Number) v[1]).longValue()),
              Math.toIntExact(((Number) v[2]).longValue()));
        } catch (DateTimeException | ArithmeticException e) {
          throw new QueryTypeException(
              "make_date("
                  + v[0]
                  + ", "
                  + v[1]
                  + ", "
                  + v[2]
                  + ") is not a date: "
                  + e.getMessage());
        }
      case EPOCH:
        return micros(dateTime(v[0])) / 1e6;
      case MD5:
        return md5((String) v[0]);
      case CHR:
        {
          long code = ((Number) v[0]).longValue();
          if (code < 1 || code > Character.MAX_CODE_POINT) {
            throw new QueryTypeException(
                "chr("
                    + code
                    + "): the code point must be between 1 and "
                    + Character.MAX_CODE_POINT);
          }
          return Character.toString((int) code);
        }
      case HASH:
        return hash(v);
      default:
        throw new IllegalStateException(fn.name());
    }
  }

  private static String splitPart(String s, String delimiter, long index) {
    if (index == 0) {
      throw new QueryTypeException("split_part: the field number must not be 0");
    }
    List<String> parts = new ArrayList<>();
    if (delimiter.isEmpty()) {
      parts.add(s);
    } else {
      int from = 0;
      for (int at; (at = s.indexOf(delimiter, from)) >= 0; from = at + delimiter.length()) {
        parts.add(s.substring(from, at));
      }
      parts.add(s.substring(from));
    }
    long i = index > 0 ? index - 1 : parts.size() + index;
    return i >= 0 && i < parts.size() ? parts.get((int) i) : "";
  }

  /** PostgreSQL/DuckDB regex flags: i (case-insensitive), c (case-sensitive), s, n, m, g. */
  private static int regexFlags(String flags) {
    int f = 0;
    for (char c : flags.toCharArray()) {
      switch (c) {
        case 'i' -> f |= Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
        case 'c' -> f &= ~(Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
        case 's' -> f |= Pattern.DOTALL;
        case 'm', 'n' -> f |= Pattern.MULTILINE;
        case 'g' -> {}
        default ->
            throw new QueryTypeException(
                "Unknown regular expression option '" + c + "'; use g, i, c, s, m or n");
      }
    }
    return f;
  }

  /** A replacement with {@code \1} group references (PostgreSQL, DuckDB) in Java's syntax. */
  private static String javaReplacement(String r) {
    StringBuilder out = new StringBuilder(r.length() + 8);
    for (int i = 0; i < r.length(); i++) {
      char c = r.charAt(i);
      if (c == '\\' && i + 1 < r.length()) {
        char next = r.charAt(++i);
        if (Character.isDigit(next)) {
          out.append('$').append(next);
        } else {
          out.append(Matcher.quoteReplacement(String.valueOf(next)));
        }
      } else {
        out.append(Matcher.quoteReplacement(String.valueOf(c)));
      }
    }
    return out.toString();
  }

  private String pad(String s, long length, String fill) {
    int cps = s.codePointCount(0, s.length());
    if (length <= 0) {
      return "";
    }
    if (length <= cps) {
      return s.substring(0, s.offsetByCodePoints(0, (int) length));
    }
    if (fill.isEmpty()) {
      return s;
    }
    if (length > 100_000_000L) {
      throw new QueryTypeException(
          fn.name().toLowerCase(Locale.ROOT) + " length " + length + " is too large");
    }
    int[] fillCps = fill.codePoints().toArray();
    StringBuilder padding = new StringBuilder();
    for (long k = 0; k < length - cps; k++) {
      padding.appendCodePoint(fillCps[(int) (k % fillCps.length)]);
    }
    return fn == Fn.LPAD ? padding + s : s + padding;
  }

  /** A DATE (LocalDate), TIMESTAMP (micros) or LocalDateTime value as a LocalDateTime. */
  static LocalDateTime dateTime(Object v) {
    if (v instanceof LocalDate d) {
      return d.atStartOfDay();
    }
    if (v instanceof LocalDateTime t) {
      return t;
    }
    if (v instanceof Long micros) {
      return LocalDateTime.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L),
          (int) Math.floorMod(micros, 1_000_000L) * 1000,
          ZoneOffset.UTC);
    }
    throw new QueryTypeException("Expected a date or timestamp, got " + v);
  }

  /**
   * DuckDB's date_diff: how many unit boundaries lie between start and end (a month from January 31
   * to February 1 is 1; a day from 23:00 to 01:00 is 1), negative when end is before start; weeks
   * are whole weeks between the dates, as DuckDB counts them.
   */
  static long dateDiff(String unit, LocalDateTime start, LocalDateTime end) {
    String u = unit.strip().toLowerCase(Locale.ROOT);
    if (u.endsWith("s") && u.length() > 1 && !u.equals("ms") && !u.equals("us")) {
      u = u.substring(0, u.length() - 1);
    }
    switch (u) {
      case "year":
      case "yr":
      case "y":
        return end.getYear() - (long) start.getYear();
      case "quarter":
        return quarters(end) - quarters(start);
      case "month":
      case "mon":
        return months(end) - months(start);
      case "week":
      case "w":
        // DuckDB: whole weeks between the two dates (days / 7, towards zero).
        return (end.toLocalDate().toEpochDay() - start.toLocalDate().toEpochDay()) / 7;
      case "day":
      case "d":
        return end.toLocalDate().toEpochDay() - start.toLocalDate().toEpochDay();
      case "hour":
      case "h":
        return Math.floorDiv(micros(end), 3_600_000_000L)
            - Math.floorDiv(micros(start), 3_600_000_000L);
      case "minute":
      case "min":
      case "m":
        return Math.floorDiv(micros(end), 60_000_000L) - Math.floorDiv(micros(start), 60_000_000L);
      case "second":
      case "sec":
      case "s":
        return Math.floorDiv(micros(end), 1_000_000L) - Math.floorDiv(micros(start), 1_000_000L);
      case "millisecond":
      case "ms":
        return Math.floorDiv(micros(end), 1_000L) - Math.floorDiv(micros(start), 1_000L);
      case "microsecond":
      case "us":
        return micros(end) - micros(start);
      case "decade":
        return end.getYear() / 10 - start.getYear() / 10;
      case "century":
        return end.getYear() / 100 - start.getYear() / 100;
      case "millennium":
        return end.getYear() / 1000 - start.getYear() / 1000;
      default:
        throw new QueryTypeException(
            "Unknown date part '"
                + unit
                + "' in date_diff; use year, quarter, month, week, day, "
                + "hour, minute, second, millisecond, microsecond, decade, century or millennium");
    }
  }

  private static long quarters(LocalDateTime t) {
    return t.getYear() * 4L + (t.getMonthValue() - 1) / 3;
  }

  private static long months(LocalDateTime t) {
    return t.getYear() * 12L + t.getMonthValue() - 1;
  }

  private static long micros(LocalDateTime t) {
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1_000;
  }

  private static String md5(String s) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new QuiverException("MD5 is not available in this JVM", e);
    }
  }

  /**
   * A 64-bit hash of the values (a murmur-style mix of their text forms), stable across processes
   * and releases of the JVM, so equal values hash alike on every executor.
   */
  private static long hash(Object[] values) {
    long h = 0x9E3779B97F4A7C15L;
    for (Object v : values) {
      long x;
      if (v == null) {
        x = 0x2545F4914F6CDD1DL;
      } else {
        byte[] bytes = String.valueOf(v).getBytes(StandardCharsets.UTF_8);
        x = 1469598103934665603L;
        for (byte b : bytes) {
          x = (x ^ (b & 0xff)) * 1099511628211L;
        }
      }
      h = mix(h ^ mix(x));
    }
    return h;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB93FE1A85EC9L;
    return z ^ (z >>> 33);
  }

  @Override
  public String toString() {
    return fn.name().toLowerCase(Locale.ROOT) + args.toString().replace('[', '(').replace(']', ')');
  }
}
