package dev.quiver.binding.physical.scan;

import dev.quiver.binding.errors.DataSourceException;
import java.nio.charset.StandardCharsets;

/**
 * How the bytes of a CSV file are split and what its fields mean: what a scan needs on every
 * executor, so it travels with the plan.
 *
 * @param delimiter field separator, a single ASCII character other than the quote or a line break
 * @param quote the character that encloses fields holding delimiters or line breaks; {@code \0} for
 *     none
 * @param escape inside a quoted field, the character that makes the next one literal; equal to
 *     {@code quote} for the RFC 4180 rule (a doubled quote is one quote)
 * @param hasHeader whether every file starts with a line of column names
 * @param nullString a field with exactly this text is NULL (an empty unquoted field always is)
 * @param ignoreErrors a value that does not parse as its column's type reads as NULL and a line
 *     with the wrong number of fields is skipped, instead of failing the query
 */
public record CsvDialect(
    char delimiter,
    char quote,
    char escape,
    boolean hasHeader,
    String nullString,
    boolean ignoreErrors) {
  /** No quote character: quotes are ordinary text. */
  public static final char NO_QUOTE = '\0';

  /** RFC 4180: comma, double quote, doubled quotes, header line, empty field is NULL. */
  public static final CsvDialect DEFAULT = new CsvDialect(',', '"', '"', true, "", false);

  /** Validates the dialect. */
  public CsvDialect {
    if (delimiter == '\0' || delimiter > 127 || isLineBreak(delimiter) || delimiter == quote) {
      throw new DataSourceException(
          "CSV delimiter '"
              + printable(delimiter)
              + "' is not allowed; use a single ASCII character other than a quote or line break");
    }
    if (quote > 127 || isLineBreak(quote) || (quote != NO_QUOTE && quote == delimiter)) {
      throw new DataSourceException(
          "CSV quote '"
              + printable(quote)
              + "' is not allowed; use a single ASCII character other than the delimiter"
              + " or a line break");
    }
    if (escape > 127 || isLineBreak(escape) || (escape != NO_QUOTE && escape == delimiter)) {
      throw new DataSourceException(
          "CSV escape '"
              + printable(escape)
              + "' is not allowed; use a single ASCII character other than the delimiter"
              + " or a line break");
    }
    if (escape == NO_QUOTE) {
      escape = quote;
    }
    nullString = nullString == null ? "" : nullString;
  }

  private static boolean isLineBreak(char c) {
    return c == '\n' || c == '\r';
  }

  private static String printable(char c) {
    return switch (c) {
      case '\0' -> "\\0";
      case '\n' -> "\\n";
      case '\r' -> "\\r";
      case '\t' -> "\\t";
      default -> String.valueOf(c);
    };
  }

  /** {@link #nullString()} as UTF-8, or null when only empty fields are NULL. */
  byte[] nullBytes() {
    return nullString.isEmpty() ? null : nullString.getBytes(StandardCharsets.UTF_8);
  }

  /** Whether field {@code i} of the tokenizer's current record reads as NULL. */
  boolean isNull(CsvTokenizer t, int i, byte[] nullBytes) {
    int len = t.length(i);
    if (len == 0) {
      return !t.quoted(i);
    }
    if (nullBytes == null || len != nullBytes.length) {
      return false;
    }
    byte[] b = t.bytes();
    int s = t.start(i);
    for (int k = 0; k < len; k++) {
      if (b[s + k] != nullBytes[k]) {
        return false;
      }
    }
    return true;
  }

  /** A short description for plans, e.g. {@code delimiter=';', header=false}. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (delimiter != ',') {
      sb.append(", delimiter='").append(printable(delimiter)).append('\'');
    }
    if (quote != '"') {
      sb.append(", quote='").append(printable(quote)).append('\'');
    }
    if (escape != quote) {
      sb.append(", escape='").append(printable(escape)).append('\'');
    }
    if (!hasHeader) {
      sb.append(", header=false");
    }
    if (!nullString.isEmpty()) {
      sb.append(", null='").append(nullString).append('\'');
    }
    if (ignoreErrors) {
      sb.append(", ignore_errors=true");
    }
    return sb.toString();
  }
}
