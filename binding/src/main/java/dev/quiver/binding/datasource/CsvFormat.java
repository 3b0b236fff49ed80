package dev.quiver.binding.datasource;

import dev.quiver.binding.format.DoubleText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Renders Arrow values as CSV text (RFC 4180): NULL is an empty field, an empty string is {@code
 * ""}, dates are ISO-8601 ({@code 2024-01-31}), timestamps {@code 2024-01-31 12:00:00[.ffffff]},
 * decimals in plain notation with their scale, and fields holding the delimiter, a quote or a line
 * break are quoted.
 */
public final class CsvFormat {
  private CsvFormat() {}

  /** Appends one value of a column to a line being built. */
  @FunctionalInterface
  public interface ValueWriter {
    /** Appends the value at {@code row} (nothing for NULL). */
    void append(StringBuilder out, int row);
  }

  /** Renders the value at {@code row} of {@code vector} as a CSV field with a comma delimiter. */
  public static String render(FieldVector vector, int row) {
    StringBuilder sb = new StringBuilder();
    writer(vector, ',').append(sb, row);
    return sb.toString();
  }

  /** The header line (without line break) for {@code schema}. */
  public static String header(Schema schema, char delimiter) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < schema.getFields().size(); i++) {
      if (i > 0) {
        sb.append(delimiter);
      }
      appendQuoted(sb, schema.getFields().get(i).getName(), delimiter, false);
    }
    return sb.toString();
  }

  /**
   * Appends {@code text} as a CSV field, quoting it when needed (always when {@code forceQuote}).
   */
  public static void appendQuoted(
      StringBuilder out, String text, char delimiter, boolean forceQuote) {
    boolean quote = forceQuote || text.isEmpty();
    for (int i = 0; i < text.length() && !quote; i++) {
      char c = text.charAt(i);
      quote = c == delimiter || c == '"' || c == '\n' || c == '\r';
    }
    if (!quote) {
      out.append(text);
      return;
    }
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"') {
        out.append('"');
      }
      out.append(c);
    }
    out.append('"');
  }

  /**
   * A writer for the values of {@code vector}, chosen once per column so rows need no type
   * dispatch.
   */
  public static ValueWriter writer(FieldVector vector, char delimiter) {
    ArrowType type = vector.getField().getType();
    ValueWriter values =
        switch (type.getTypeID()) {
          case Int -> intWriter(vector, (ArrowType.Int) type);
          case FloatingPoint -> floatWriter(vector, (ArrowType.FloatingPoint) type);
          case Decimal -> decimalWriter(vector, (ArrowType.Decimal) type);
          case Bool ->
              (out, row) ->
                  out.append(
                      ((vector.getDataBuffer().getByte(row >> 3) >> (row & 7)) & 1) == 1
                          ? "true"
                          : "false");
          case Date -> dateWriter(vector, (ArrowType.Date) type);
          case Timestamp -> timestampWriter(vector, (ArrowType.Timestamp) type);
          case Utf8 -> {
            BaseVariableWidthVector v = (BaseVariableWidthVector) vector;
            yield (out, row) -> {
              ArrowBuf offsets = v.getOffsetBuffer();
              int start = offsets.getInt((long) row * 4);
              int end = offsets.getInt((long) row * 4 + 4);
              appendQuoted(out, utf8(v.getDataBuffer(), start, end - start), delimiter, false);
            };
          }
          case LargeUtf8 -> {
            BaseLargeVariableWidthVector v = (BaseLargeVariableWidthVector) vector;
            yield (out, row) -> {
              long start = v.getOffsetBuffer().getLong((long) row * 8);
              long end = v.getOffsetBuffer().getLong((long) row * 8 + 8);
              appendQuoted(
                  out, utf8(v.getDataBuffer(), start, (int) (end - start)), delimiter, false);
            };
          }
          case Null -> (out, row) -> {};
          default ->
              (out, row) ->
                  appendQuoted(out, String.valueOf(vector.getObject(row)), delimiter, false);
        };
    return (out, row) -> {
      if (!vector.isNull(row)) {
        values.append(out, row);
      }
    };
  }

  private static String utf8(ArrowBuf data, long start, int length) {
    byte[] bytes = new byte[length];
    data.getBytes(start, bytes, 0, length);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static ValueWriter intWriter(FieldVector vector, ArrowType.Int type) {
    ArrowBuf data = vector.getDataBuffer();
    boolean signed = type.getIsSigned();
    return switch (type.getBitWidth()) {
      case 8 -> (out, row) -> out.append(signed ? data.getByte(row) : data.getByte(row) & 0xFF);
      case 16 ->
          (out, row) ->
              out.append(signed ? data.getShort(row * 2L) : data.getShort(row * 2L) & 0xFFFF);
      case 32 ->
          (out, row) ->
              out.append(signed ? data.getInt(row * 4L) : data.getInt(row * 4L) & 0xFFFF_FFFFL);
      default ->
          (out, row) ->
              out.append(
                  signed
                      ? Long.toString(data.getLong(row * 8L))
                      : Long.toUnsignedString(data.getLong(row * 8L)));
    };
  }

  private static ValueWriter floatWriter(FieldVector vector, ArrowType.FloatingPoint type) {
    ArrowBuf data = vector.getDataBuffer();
    return switch (type.getPrecision()) {
      case HALF ->
          (out, row) ->
              out.append(org.apache.arrow.memory.util.Float16.toFloat(data.getShort(row * 2L)));
      case SINGLE -> (out, row) -> out.append(DoubleText.of(data.getFloat(row * 4L)));
      case DOUBLE -> (out, row) -> out.append(DoubleText.of(data.getDouble(row * 8L)));
    };
  }

  private static ValueWriter decimalWriter(FieldVector vector, ArrowType.Decimal type) {
    ArrowBuf data = vector.getDataBuffer();
    int scale = type.getScale();
    int width = type.getBitWidth() / 8;
    return (out, row) -> {
      long lo = data.getLong((long) row * width);
      long hi = data.getLong((long) row * width + 8);
      boolean fitsLong = width == 16 && hi == (lo >> 63);
      BigDecimal value;
      if (fitsLong) {
        value = BigDecimal.valueOf(lo, scale);
      } else {
        byte[] be = new byte[width];
        for (int i = 0; i < width; i++) {
          be[width - 1 - i] = data.getByte((long) row * width + i);
        }
        value = new BigDecimal(new BigInteger(be), scale);
      }
      out.append(value.toPlainString());
    };
  }

  private static ValueWriter dateWriter(FieldVector vector, ArrowType.Date type) {
    ArrowBuf data = vector.getDataBuffer();
    return switch (type.getUnit()) {
      case DAY -> (out, row) -> appendDate(out, data.getInt(row * 4L));
      case MILLISECOND ->
          (out, row) -> appendDate(out, Math.floorDiv(data.getLong(row * 8L), 86_400_000L));
    };
  }

  private static ValueWriter timestampWriter(FieldVector vector, ArrowType.Timestamp type) {
    ArrowBuf data = ((BaseFixedWidthVector) vector).getDataBuffer();
    long perSecond =
        switch (type.getUnit()) {
          case SECOND -> 1;
          case MILLISECOND -> 1_000;
          case MICROSECOND -> 1_000_000;
          case NANOSECOND -> 1_000_000_000;
        };
    int digits = Long.toString(perSecond).length() - 1;
    return (out, row) -> {
      long v = data.getLong(row * 8L);
      long seconds = Math.floorDiv(v, perSecond);
      long fraction = Math.floorMod(v, perSecond);
      long day = Math.floorDiv(seconds, 86_400L);
      int secOfDay = (int) Math.floorMod(seconds, 86_400L);
      appendDate(out, day);
      out.append(' ');
      pad(out, secOfDay / 3600, 2);
      out.append(':');
      pad(out, secOfDay / 60 % 60, 2);
      out.append(':');
      pad(out, secOfDay % 60, 2);
      if (fraction != 0) {
        StringBuilder f = new StringBuilder();
        pad(f, fraction, digits);
        int end = f.length();
        while (f.charAt(end - 1) == '0') {
          end--;
        }
        out.append('.').append(f, 0, end);
      }
    };
  }

  /** Appends the ISO-8601 date of epoch day {@code day}. */
  static void appendDate(StringBuilder out, long day) {
    LocalDate d = LocalDate.ofEpochDay(day);
    int year = d.getYear();
    if (year < 0 || year > 9999) {
      out.append(d);
      return;
    }
    pad(out, year, 4);
    out.append('-');
    pad(out, d.getMonthValue(), 2);
    out.append('-');
    pad(out, d.getDayOfMonth(), 2);
  }

  private static void pad(StringBuilder out, long value, int width) {
    String s = Long.toString(value);
    for (int i = s.length(); i < width; i++) {
      out.append('0');
    }
    out.append(s);
  }
}
