package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.physical.scan.CsvDialect;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * How CSV files are laid out and typed. Files ending in {@code .gz} or {@code .zst} are
 * decompressed whatever the options.
 *
 * @param delimiter field separator, a single ASCII character other than the quote or a line break
 * @param hasHeader whether every file starts with a line of column names (else columns are named
 *     {@code column_1}, {@code column_2}, ...)
 * @param inferenceRows how many data rows schema inference looks at; types inferred from them stay
 *     as inferred, and a later value that does not fit is an error (or NULL with {@code
 *     ignoreErrors})
 * @param quote the character enclosing fields that hold delimiters or line breaks; {@code \0} for
 *     none
 * @param escape inside quoted fields, the character that makes the next one literal; the quote
 *     itself (a doubled quote is one quote, RFC 4180) unless set
 * @param nullString a field with exactly this text is NULL; an empty unquoted field always is
 * @param columnTypes types for columns by name (case-insensitive), overriding inference; the other
 *     columns are inferred
 * @param ignoreErrors read a value that does not parse as its column's type as NULL and skip lines
 *     with the wrong number of fields, instead of failing the query naming file, line and column
 */
public record CsvOptions(
    char delimiter,
    boolean hasHeader,
    int inferenceRows,
    char quote,
    char escape,
    String nullString,
    Map<String, ArrowType> columnTypes,
    boolean ignoreErrors) {
  /** Comma-separated with a header, RFC 4180 quoting; inference over the first 1000 rows. */
  public static final CsvOptions DEFAULT =
      new CsvOptions(',', true, 1000, '"', '"', "", Map.of(), false);

  /** Validates the options. */
  public CsvOptions {
    if (inferenceRows < 1) {
      throw new DataSourceException(
          "CSV schema inference needs at least 1 row; got " + inferenceRows);
    }
    nullString = nullString == null ? "" : nullString;
    Map<String, ArrowType> types = new LinkedHashMap<>();
    if (columnTypes != null) {
      types.putAll(columnTypes);
    }
    columnTypes = Collections.unmodifiableMap(types);
    // Checks delimiter, quote and escape together.
    new CsvDialect(delimiter, quote, escape, hasHeader, nullString, ignoreErrors);
  }

  /** RFC 4180 quoting with the given delimiter, header and inference sample. */
  public CsvOptions(char delimiter, boolean hasHeader, int inferenceRows) {
    this(delimiter, hasHeader, inferenceRows, '"', '"', "", Map.of(), false);
  }

  /** What a scan of these files needs to know. */
  public CsvDialect dialect() {
    return new CsvDialect(delimiter, quote, escape, hasHeader, nullString, ignoreErrors);
  }

  /** These options with another delimiter. */
  public CsvOptions withDelimiter(char d) {
    return new CsvOptions(
        d, hasHeader, inferenceRows, quote, escape, nullString, columnTypes, ignoreErrors);
  }

  /** These options with or without a header line. */
  public CsvOptions withHeader(boolean header) {
    return new CsvOptions(
        delimiter, header, inferenceRows, quote, escape, nullString, columnTypes, ignoreErrors);
  }

  /** These options inferring types from the first {@code rows} data rows. */
  public CsvOptions withInferenceRows(int rows) {
    return new CsvOptions(
        delimiter, hasHeader, rows, quote, escape, nullString, columnTypes, ignoreErrors);
  }

  /**
   * These options with another quote character ({@code \0}: none); the escape follows the quote
   * when it was the quote.
   */
  public CsvOptions withQuote(char q) {
    char e = escape == quote ? q : escape;
    return new CsvOptions(
        delimiter, hasHeader, inferenceRows, q, e, nullString, columnTypes, ignoreErrors);
  }

  /** These options with another escape character inside quoted fields (e.g. a backslash). */
  public CsvOptions withEscape(char e) {
    return new CsvOptions(
        delimiter, hasHeader, inferenceRows, quote, e, nullString, columnTypes, ignoreErrors);
  }

  /** These options reading fields equal to {@code text} as NULL. */
  public CsvOptions withNullString(String text) {
    return new CsvOptions(
        delimiter, hasHeader, inferenceRows, quote, escape, text, columnTypes, ignoreErrors);
  }

  /** These options with column {@code name} typed {@code type} instead of inferred. */
  public CsvOptions withColumnType(String name, ArrowType type) {
    Map<String, ArrowType> types = new LinkedHashMap<>(columnTypes);
    types.put(name, type);
    return new CsvOptions(
        delimiter, hasHeader, inferenceRows, quote, escape, nullString, types, ignoreErrors);
  }

  /** These options reading bad values as NULL (true) or failing on them (false). */
  public CsvOptions withIgnoreErrors(boolean ignore) {
    return new CsvOptions(
        delimiter, hasHeader, inferenceRows, quote, escape, nullString, columnTypes, ignore);
  }

  /** The type given for column {@code name} (case-insensitive), or null. */
  ArrowType columnType(String name) {
    for (Map.Entry<String, ArrowType> e : columnTypes.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name)) {
        return e.getValue();
      }
    }
    return null;
  }

  /**
   * Options from text settings, as the CLI and SQL {@code OPTIONS (...)} give them: {@code
   * delimiter} (or {@code delim}, {@code sep}; {@code \t} for tab), {@code header}, {@code quote}
   * (empty for none), {@code escape}, {@code null} (or {@code nullstr}), {@code ignore_errors},
   * {@code sample_size} and {@code types} ({@code name:TYPE} pairs separated by commas, e.g. {@code
   * id:BIGINT,price:DECIMAL(10,2)}). Keys are case-insensitive; an unknown key is an error.
   */
  /** The option names {@link #fromSettings} takes for the delimiter. */
  public static final java.util.List<String> DELIMITER_KEYS =
      java.util.List.of("delimiter", "delim", "sep", "separator");

  public static CsvOptions fromSettings(Map<String, String> settings) {
    CsvOptions o = DEFAULT;
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String key = e.getKey().trim().toLowerCase(Locale.ROOT);
      String value = e.getValue();
      o =
          switch (key) {
            case "delimiter", "delim", "sep", "separator" ->
                o.withDelimiter(oneChar(key, value, false));
            case "header" -> o.withHeader(bool(key, value));
            case "quote" -> o.withQuote(oneChar(key, value, true));
            case "escape" -> o.withEscape(oneChar(key, value, true));
            case "null", "nullstr", "null_string" -> o.withNullString(value);
            case "ignore_errors" -> o.withIgnoreErrors(bool(key, value));
            case "sample_size", "inference_rows" -> o.withInferenceRows(integer(key, value));
            case "types", "column_types" -> {
              CsvOptions typed = o;
              for (Map.Entry<String, ArrowType> t : parseTypes(value).entrySet()) {
                typed = typed.withColumnType(t.getKey(), t.getValue());
              }
              yield typed;
            }
            default ->
                throw new DataSourceException(
                    "Unknown CSV option '"
                        + e.getKey()
                        + "'; use delimiter, header, quote, escape, null, ignore_errors,"
                        + " sample_size or types");
          };
    }
    return o;
  }

  private static char oneChar(String key, String value, boolean emptyMeansNone) {
    String v = value;
    if (v.equals("\\t") || v.equalsIgnoreCase("tab")) {
      return '\t';
    }
    if (v.isEmpty() && emptyMeansNone) {
      return CsvDialect.NO_QUOTE;
    }
    if (v.length() != 1) {
      throw new DataSourceException(
          "CSV option " + key + " must be a single character; got '" + value + "'");
    }
    return v.charAt(0);
  }

  private static boolean bool(String key, String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "on" -> true;
      case "false", "no", "0", "off" -> false;
      default ->
          throw new DataSourceException(
              "CSV option " + key + " must be true or false; got '" + value + "'");
    };
  }

  private static int integer(String key, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new DataSourceException(
          "CSV option " + key + " must be a whole number; got '" + value + "'");
    }
  }

  private static final Pattern TYPE_PAIR =
      Pattern.compile(
          "\\s*([^:,\\s]+)\\s*:\\s*([A-Za-z ]+(?:\\(\\s*\\d+\\s*(?:,\\s*\\d+\\s*)?\\))?)\\s*");

  /** {@code name:TYPE,name:TYPE} to an ordered map. */
  static Map<String, ArrowType> parseTypes(String text) {
    Map<String, ArrowType> types = new LinkedHashMap<>();
    Matcher m = TYPE_PAIR.matcher(text);
    int at = 0;
    while (at < text.length()) {
      m.region(at, text.length());
      if (!m.lookingAt()) {
        throw new DataSourceException(
            "Cannot read CSV column types '"
                + text
                + "' from position "
                + (at + 1)
                + "; write name:TYPE pairs separated by commas, e.g. id:BIGINT,price:DECIMAL(10,2)");
      }
      types.put(m.group(1), parseType(m.group(1), m.group(2)));
      at = m.end();
      if (at < text.length()) {
        if (text.charAt(at) != ',') {
          throw new DataSourceException(
              "Cannot read CSV column types '" + text + "': expected ',' at position " + (at + 1));
        }
        at++;
      }
    }
    return types;
  }

  private static final Pattern DECIMAL =
      Pattern.compile("(?:DECIMAL|NUMERIC)\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?");

  /** A SQL type name the CSV reader can produce, as an Arrow type. */
  public static ArrowType parseType(String column, String sqlType) {
    String t = sqlType.trim().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
    Matcher d = DECIMAL.matcher(t);
    if (d.matches()) {
      int precision = d.group(1) == null ? 38 : Integer.parseInt(d.group(1));
      int scale = d.group(2) == null ? 0 : Integer.parseInt(d.group(2));
      if (precision < 1 || precision > 38 || scale > precision) {
        throw new DataSourceException(
            "CSV column " + column + ": DECIMAL(" + precision + ", " + scale + ") is not valid");
      }
      return new ArrowType.Decimal(precision, scale, 128);
    }
    return switch (t) {
      case "BIGINT", "INT8", "LONG" -> new ArrowType.Int(64, true);
      case "INT", "INTEGER", "INT4" -> new ArrowType.Int(32, true);
      case "SMALLINT", "INT2" -> new ArrowType.Int(16, true);
      case "TINYINT", "INT1" -> new ArrowType.Int(8, true);
      // REAL is DOUBLE in Quiver's SQL (TypeMapping, CAST(x AS REAL)): a 4-byte float column
      // here would not be the type the query plans with.
      case "DOUBLE", "DOUBLE PRECISION", "FLOAT8", "FLOAT", "REAL", "FLOAT4" ->
          new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case "VARCHAR", "TEXT", "STRING", "CHAR" -> ArrowType.Utf8.INSTANCE;
      case "BOOLEAN", "BOOL" -> ArrowType.Bool.INSTANCE;
      case "DATE" -> new ArrowType.Date(DateUnit.DAY);
      case "TIMESTAMP" -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
      default ->
          throw new DataSourceException(
              "CSV column "
                  + column
                  + ": unknown type '"
                  + sqlType.trim()
                  + "'; use BIGINT, INTEGER, SMALLINT, TINYINT, DOUBLE, REAL, DECIMAL(p, s),"
                  + " VARCHAR, BOOLEAN, DATE or TIMESTAMP");
    };
  }
}
