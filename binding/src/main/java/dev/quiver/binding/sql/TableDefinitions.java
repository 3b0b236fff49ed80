package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.TableConstraints;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.logical.TypeMapping;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;

/**
 * The column list of {@code CREATE TABLE t (...)}: each column's name, type and constraints ({@code
 * NOT NULL}, {@code NULL}, {@code PRIMARY KEY}, {@code UNIQUE}, {@code DEFAULT expr}, optionally
 * named by {@code CONSTRAINT name}), and table-level {@code PRIMARY KEY (a, b)} and {@code UNIQUE
 * (c)}. Key columns of a PRIMARY KEY are NOT NULL. {@code CHECK} and foreign keys are refused by
 * name rather than silently ignored.
 */
final class TableDefinitions {
  /** Resolves a column's type text ({@code DECIMAL(10, 2)}) to a SQL type. */
  interface Types {
    RelDataType resolve(String column, String typeText, boolean nullable);
  }

  /** Checks a DEFAULT expression for {@code column} of {@code type}; returns its text. */
  interface Defaults {
    String check(String column, RelDataType type, String expression);
  }

  /** A table's columns and constraints. */
  record Definition(Schema schema, TableConstraints constraints) {}

  private static final Set<String> CONSTRAINT_WORDS =
      Set.of(
          "not",
          "null",
          "primary",
          "unique",
          "default",
          "check",
          "references",
          "constraint",
          "collate");

  private TableDefinitions() {}

  /** Parses {@code defs}, the text between the parentheses of CREATE TABLE. */
  static Definition parse(String table, String defs, Types types, Defaults defaults) {
    record Column(String name, String type, boolean notNull, String defaultText) {}
    List<Column> columns = new ArrayList<>();
    List<TableConstraints.Key> keys = new ArrayList<>();
    for (String def : splitTopLevel(defs)) {
      List<Token> tokens = tokens(def);
      if (tokens.isEmpty()) {
        throw new QuiverException("CREATE TABLE " + table + ": empty column definition");
      }
      int i = 0;
      if (word(tokens, i, "constraint")) {
        i += 2; // CONSTRAINT name
      }
      if (word(tokens, i, "primary") && word(tokens, i + 1, "key") && paren(tokens, i + 2)) {
        keys.add(new TableConstraints.Key(true, names(tokens.get(i + 2).text())));
        expectEnd(table, def, tokens, i + 3);
        continue;
      }
      if (word(tokens, i, "unique") && paren(tokens, i + 1)) {
        keys.add(new TableConstraints.Key(false, names(tokens.get(i + 1).text())));
        expectEnd(table, def, tokens, i + 2);
        continue;
      }
      if (word(tokens, i, "check") || word(tokens, i, "foreign")) {
        throw unsupported(table, def, tokens.get(i).text().toUpperCase(Locale.ROOT));
      }
      if (i != 0) {
        throw new QuiverException(
            "CREATE TABLE "
                + table
                + ": cannot read constraint '"
                + def.strip()
                + "'; write PRIMARY KEY (a, b) or UNIQUE (c)");
      }
      String name = name(tokens.get(0).text());
      int typeEnd = 1;
      while (typeEnd < tokens.size() && !CONSTRAINT_WORDS.contains(tokens.get(typeEnd).lower())) {
        typeEnd++;
      }
      if (typeEnd == 1) {
        throw new QuiverException(
            "CREATE TABLE "
                + table
                + ": column "
                + name
                + " has no type; write: name TYPE"
                + " [NOT NULL] [DEFAULT expr] [PRIMARY KEY | UNIQUE]");
      }
      String type = def.substring(tokens.get(1).start(), tokens.get(typeEnd - 1).end()).strip();
      boolean notNull = false;
      String defaultText = null;
      int j = typeEnd;
      while (j < tokens.size()) {
        if (word(tokens, j, "constraint") && j + 1 < tokens.size()) {
          j += 2;
        } else if (word(tokens, j, "not") && word(tokens, j + 1, "null")) {
          notNull = true;
          j += 2;
        } else if (word(tokens, j, "null")) {
          j++;
        } else if (word(tokens, j, "primary") && word(tokens, j + 1, "key")) {
          keys.add(new TableConstraints.Key(true, List.of(name)));
          j += 2;
        } else if (word(tokens, j, "unique")) {
          keys.add(new TableConstraints.Key(false, List.of(name)));
          j++;
        } else if (word(tokens, j, "default") && j + 1 < tokens.size()) {
          int end = j + 2;
          while (end < tokens.size()
              && !(CONSTRAINT_WORDS.contains(tokens.get(end).lower())
                  && !tokens.get(end).lower().equals("null"))) {
            end++;
          }
          defaultText = def.substring(tokens.get(j + 1).start(), tokens.get(end - 1).end()).strip();
          j = end;
        } else if (word(tokens, j, "check")
            || word(tokens, j, "references")
            || word(tokens, j, "collate")) {
          throw unsupported(table, def, tokens.get(j).text().toUpperCase(Locale.ROOT));
        } else {
          throw new QuiverException(
              "CREATE TABLE "
                  + table
                  + ": cannot read '"
                  + def.strip()
                  + "' near '"
                  + def.substring(tokens.get(j).start()).strip()
                  + "'; write: name TYPE [NOT NULL] [DEFAULT expr] [PRIMARY KEY | UNIQUE]");
        }
      }
      if (columns.stream().anyMatch(c -> c.name().equals(name))) {
        throw new QuiverException(
            "CREATE TABLE " + table + ": column " + name + " is defined twice");
      }
      columns.add(new Column(name, type, notNull, defaultText));
    }
    if (columns.isEmpty()) {
      throw new QuiverException("CREATE TABLE " + table + " needs at least one column");
    }
    List<String> names = columns.stream().map(Column::name).toList();
    if (keys.stream().filter(TableConstraints.Key::primary).count() > 1) {
      throw new QuiverException("CREATE TABLE " + table + ": a table has at most one PRIMARY KEY");
    }
    List<TableConstraints.Key> resolved = new ArrayList<>();
    for (TableConstraints.Key key : keys) {
      List<String> cols = new ArrayList<>();
      for (String c : key.columns()) {
        String found =
            names.stream()
                .filter(n -> n.equalsIgnoreCase(c))
                .findFirst()
                .orElseThrow(() -> new UnknownColumnException(c, Suggestions.closest(c, names)));
        cols.add(found);
      }
      resolved.add(new TableConstraints.Key(key.primary(), cols));
    }
    List<Field> fields = new ArrayList<>();
    Map<String, String> defaultTexts = new LinkedHashMap<>();
    for (Column c : columns) {
      boolean inPrimaryKey =
          resolved.stream().anyMatch(k -> k.primary() && k.columns().contains(c.name()));
      boolean nullable = !(c.notNull() || inPrimaryKey);
      RelDataType type = types.resolve(c.name(), c.type(), nullable);
      fields.add(
          new Field(c.name(), new FieldType(nullable, TypeMapping.toArrow(type), null), null));
      if (c.defaultText() != null) {
        defaultTexts.put(c.name(), defaults.check(c.name(), type, c.defaultText()));
      }
    }
    return new Definition(new Schema(fields), new TableConstraints(resolved, defaultTexts));
  }

  private static QuiverException unsupported(String table, String def, String what) {
    return new QuiverException(
        "CREATE TABLE "
            + table
            + ": "
            + what
            + " constraints are not supported ('"
            + def.strip()
            + "'); Quiver enforces NOT NULL, PRIMARY KEY and UNIQUE");
  }

  private static void expectEnd(String table, String def, List<Token> tokens, int at) {
    if (at < tokens.size()) {
      throw new QuiverException(
          "CREATE TABLE "
              + table
              + ": unexpected '"
              + def.substring(tokens.get(at).start()).strip()
              + "' after the key in '"
              + def.strip()
              + "'");
    }
  }

  private static boolean word(List<Token> tokens, int i, String w) {
    return i < tokens.size() && tokens.get(i).lower().equals(w);
  }

  private static boolean paren(List<Token> tokens, int i) {
    return i < tokens.size() && tokens.get(i).text().startsWith("(");
  }

  /** The names of {@code (a, b)}. */
  private static List<String> names(String parenthesized) {
    String inner = parenthesized.substring(1, parenthesized.length() - 1);
    List<String> out = new ArrayList<>();
    for (String n : inner.split(",")) {
      if (!n.isBlank()) {
        out.add(name(n.strip()));
      }
    }
    return out;
  }

  static String name(String raw) {
    if (raw.startsWith("\"")) {
      return raw.substring(1, raw.length() - 1).replace("\"\"", "\"");
    }
    return raw.toLowerCase(Locale.ROOT);
  }

  /** A word, a quoted name or string, a parenthesized group, or one other character. */
  private record Token(String text, int start, int end) {
    String lower() {
      return text.toLowerCase(Locale.ROOT);
    }
  }

  private static List<Token> tokens(String s) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
        continue;
      }
      int start = i;
      if (c == '\'' || c == '"') {
        i = endOfQuoted(s, i);
      } else if (c == '(') {
        int depth = 0;
        while (i < n) {
          char d = s.charAt(i);
          if (d == '\'' || d == '"') {
            i = endOfQuoted(s, i);
            continue;
          }
          if (d == '(') {
            depth++;
          } else if (d == ')' && --depth == 0) {
            i++;
            break;
          }
          i++;
        }
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        while (i < n
            && (Character.isLetterOrDigit(s.charAt(i))
                || s.charAt(i) == '_'
                || s.charAt(i) == '$'
                || s.charAt(i) == '.')) {
          i++;
        }
      } else {
        i++;
      }
      out.add(new Token(s.substring(start, i), start, i));
    }
    return out;
  }

  private static int endOfQuoted(String s, int open) {
    char q = s.charAt(open);
    int i = open + 1;
    while (i < s.length()) {
      if (s.charAt(i) == q) {
        if (i + 1 < s.length() && s.charAt(i + 1) == q) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return s.length();
  }

  /** {@code s} split at commas outside parentheses and quotes. */
  static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int last = 0;
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '\'' || c == '"') {
        i = endOfQuoted(s, i);
        continue;
      }
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(last, i));
        last = i + 1;
      }
      i++;
    }
    if (!s.substring(last).isBlank()) {
      out.add(s.substring(last));
    }
    return out;
  }
}
