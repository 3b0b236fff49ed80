package dev.quiver.binding.sql;

import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownFunctionException;
import dev.quiver.binding.errors.UnknownTableException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/** Turns Calcite validation failures into Quiver's typed errors with "did you mean" hints. */
final class ValidationErrors {
  private static final Pattern OBJECT = Pattern.compile("Object '([^']+)' not found");
  private static final Pattern TABLE = Pattern.compile("Table '([^']+)' not found");
  private static final Pattern COLUMN =
      Pattern.compile("Column '([^']+)' not found(?: in table '([^']+)')?");
  private static final Pattern IDENT = Pattern.compile("Unknown identifier '([^']+)'");
  private static final Pattern FUNCTION =
      Pattern.compile("No match found for function signature ([^(]+)\\(");
  private static final Pattern TYPE =
      Pattern.compile(
          "(?i)(cannot apply|cannot assign|type mismatch|incompatible|cannot infer|"
              + "cannot be cast|illegal mixing|must be|not comparable|is not a valid type|"
              + "cannot convert|invalid type|wrong type)");

  private ValidationErrors() {}

  static QuiverException translate(
      RuntimeException e, SqlNode query, Catalog catalog, SqlPipeline pipeline) {
    if (e instanceof QuiverException q) {
      return q;
    }
    String msg = message(e);
    String where = position(e);
    Matcher m;
    if ((m = OBJECT.matcher(msg)).find() || (m = TABLE.matcher(msg)).find()) {
      String name = m.group(1);
      return new UnknownTableException(name, Suggestions.closest(name, catalog.names()));
    }
    if ((m = COLUMN.matcher(msg)).find() || (m = IDENT.matcher(msg)).find()) {
      return unknownColumn(m.group(1), m.groupCount() > 1 ? m.group(2) : null, query, catalog);
    }
    if ((m = FUNCTION.matcher(msg)).find()) {
      String name = m.group(1).trim().toLowerCase(Locale.ROOT);
      List<String> known = pipeline.functionNames();
      if (known.contains(name)) {
        return new QueryTypeException(
            "Function '" + name + "' does not accept these argument types" + where + ": " + msg, e);
      }
      return new UnknownFunctionException(name, Suggestions.closest(name, known));
    }
    String date = SqlPipeline.impossibleDate(msg);
    if (!date.equals(msg)) {
      return new QueryTypeException("Invalid literal" + where + ": " + date, e);
    }
    if (TYPE.matcher(msg).find()) {
      return new QueryTypeException("Type error" + where + ": " + msg, e);
    }
    return new QuiverException("Invalid query" + where + ": " + msg, e);
  }

  private static String message(Throwable e) {
    Throwable t = e;
    if (t instanceof CalciteContextException && t.getCause() != null) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return m == null ? t.getClass().getSimpleName() : m;
  }

  private static String position(Throwable e) {
    if (e instanceof CalciteContextException c && c.getPosLine() > 0) {
      return " at line " + c.getPosLine() + ", column " + c.getPosColumn();
    }
    return "";
  }

  /**
   * Says where the column was looked for and, when a table of the query has a column of exactly
   * that name, that this table is not in scope there (rather than suggesting the same name back).
   */
  private static UnknownColumnException unknownColumn(
      String name, String table, SqlNode query, Catalog catalog) {
    StringBuilder where = new StringBuilder();
    if (table != null) {
      where.append(" in table '").append(table).append("'");
    }
    List<String> owners = new ArrayList<>();
    for (String t : tablesOf(query, catalog)) {
      if (catalog.columns(t).stream().anyMatch(c -> c.equalsIgnoreCase(name))) {
        owners.add("'" + t + "'");
      }
    }
    if (!owners.isEmpty()) {
      where
          .append("; ")
          .append(String.join(", ", owners))
          .append(owners.size() == 1 ? " has" : " have")
          .append(" a column '")
          .append(name)
          .append("' but ")
          .append(owners.size() == 1 ? "is" : "are")
          .append(" not in scope there");
    }
    List<String> suggestions =
        Suggestions.closest(
            name,
            columnsOf(query, catalog).stream().filter(c -> !c.equalsIgnoreCase(name)).toList());
    return new UnknownColumnException(name, where.toString(), suggestions);
  }

  /** Columns of every table or view the query mentions (or of all tables, if none). */
  private static List<String> columnsOf(SqlNode query, Catalog catalog) {
    Set<String> cols = new LinkedHashSet<>();
    for (String t : tablesOf(query, catalog)) {
      cols.addAll(catalog.columns(t));
    }
    return new ArrayList<>(cols);
  }

  /** Every table or view the query mentions (or all tables, if none). */
  private static Set<String> tablesOf(SqlNode query, Catalog catalog) {
    Set<String> tables = new LinkedHashSet<>();
    if (query != null) {
      query.accept(
          new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlIdentifier id) {
              for (String part : id.names) {
                if (catalog.table(part) != null || catalog.view(part) != null) {
                  tables.add(part);
                }
              }
              return null;
            }
          });
    }
    if (tables.isEmpty()) {
      tables.addAll(catalog.names());
    }
    return tables;
  }
}
