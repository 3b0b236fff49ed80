package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlIdentifier;

/**
 * Time travel on the tables of attached catalogs: {@code FROM cat.ns.t FOR VERSION AS OF <snapshot
 * id>} and {@code FOR TIMESTAMP AS OF TIMESTAMP '...'} (UTC). Calcite's grammar has the SQL
 * standard's {@code FOR SYSTEM_TIME AS OF expr} (a {@code SqlSnapshot}), so {@link #first} rewrites
 * the words VERSION and TIMESTAMP after FOR into SYSTEM_TIME before parsing; {@link FileTables}
 * then opens the table at that point: a number is a snapshot id, a timestamp, date or text a time.
 */
final class TimeTravel {
  private TimeTravel() {}

  /** Where to rewrite: {@code [start, end)} of the text becomes {@code SYSTEM_TIME}. */
  record Rewrite(int start, int end, String text) {}

  /**
   * The first {@code VERSION} or {@code TIMESTAMP} of a {@code FOR ... AS OF} outside literals,
   * quoted names and comments, or null.
   */
  static Rewrite first(CharSequence text) {
    String sql = text.toString();
    int n = sql.length();
    int i = 0;
    // The last three words and where the last one starts.
    String w1 = "";
    String w2 = "";
    String w3 = "";
    int s3 = -1;
    int e3 = -1;
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end + 1;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (c == '\'' || c == '"') {
        int end = sql.indexOf(c, i + 1);
        while (end >= 0 && end + 1 < n && sql.charAt(end + 1) == c) {
          end = sql.indexOf(c, end + 2);
        }
        i = end < 0 ? n : end + 1;
        w1 = w2 = w3 = "";
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
          i++;
        }
        String word = sql.substring(start, i).toLowerCase(Locale.ROOT);
        if (word.equals("of")
            && w3.equals("as")
            && (w2.equals("version") || w2.equals("timestamp"))
            && w1.equals("for")) {
          return new Rewrite(s3, e3, "SYSTEM_TIME");
        }
        // Remember where the candidate word (two words before OF) starts.
        if (word.equals("version") || word.equals("timestamp")) {
          s3 = start;
          e3 = i;
        }
        w1 = w2;
        w2 = w3;
        w3 = word;
      } else {
        i++;
        w1 = w2 = w3 = "";
      }
    }
    return null;
  }

  /**
   * The table {@code id} (catalog.namespace.table of an attached catalog) at {@code point}: a
   * snapshot id (Long) or a time (LocalDateTime, LocalDate or text), UTC.
   */
  static TableProvider open(Catalog catalog, SqlIdentifier id, Object point) {
    List<String> names = id.names;
    if (names.size() != 3 || !catalog.attached().containsKey(Catalog.key(names.get(0)))) {
      throw new UnsupportedFeatureException(
          "FOR VERSION AS OF and FOR TIMESTAMP AS OF read tables of attached catalogs"
              + " (catalog.namespace.table), not "
              + id);
    }
    String cat = names.get(0);
    TableCatalog tables = catalog.attached(cat);
    String ns = names.get(1);
    String table = names.get(2);
    TableProvider provider =
        point instanceof Long snapshot
            ? tables.tableAtSnapshot(ns, table, snapshot)
            : tables.tableAsOf(ns, table, epochMillis(point));
    if (provider == null) {
      Catalog.checkNamespace(cat, tables, ns);
      throw new UnknownTableException(
          String.join(".", names), Suggestions.closest(table, tables.tables(ns)));
    }
    return provider;
  }

  /** A time given as a TIMESTAMP or DATE literal or text, UTC. */
  private static long epochMillis(Object value) {
    LocalDateTime t;
    if (value instanceof LocalDateTime ldt) {
      t = ldt;
    } else if (value instanceof LocalDate d) {
      t = d.atStartOfDay();
    } else if (value instanceof String s) {
      try {
        t =
            s.trim().length() <= 10
                ? LocalDate.parse(s.trim()).atStartOfDay()
                : LocalDateTime.parse(s.trim().replace(' ', 'T'));
      } catch (DateTimeParseException e) {
        throw new QueryTypeException(
            "FOR TIMESTAMP AS OF takes a time such as TIMESTAMP '2026-01-31 12:00:00', got " + s);
      }
    } else {
      throw new QueryTypeException(
          "FOR VERSION AS OF takes a snapshot id (a whole number), FOR TIMESTAMP AS OF a time; got "
              + value);
    }
    return t.toInstant(ZoneOffset.UTC).toEpochMilli();
  }
}
