package dev.quiver.binding.sql;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.settings.BindingSettings;
import dev.quiver.binding.statement.StatementParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;

/**
 * The entry point for a session's SQL text: splits a script into statements ({@link SqlScript}),
 * parses each ({@link StatementParser}) and runs it ({@link StatementExecutor}); queries become
 * lazy DataFrames, other statements run at once. Also types and binds the {@code ?} parameters of a
 * prepared statement.
 */
public final class StatementRunner {
  /** Leading keywords of statements that run at once rather than plan a query. */
  private static final Set<String> RUNS_AT_ONCE =
      Set.of(
          "INSERT",
          "SET",
          "RESET",
          "CREATE",
          "DROP",
          "ALTER",
          "DELETE",
          "UPDATE",
          "MERGE",
          "TRUNCATE",
          "COPY",
          "ATTACH",
          "DETACH");

  private final SessionState session;
  private final StatementExecutor executor;

  /** Creates a runner for {@code session}. */
  public StatementRunner(SessionState session) {
    this.session = session;
    this.executor = new StatementExecutor(session);
  }

  /**
   * Runs or plans {@code sql}: one statement, or several separated by semicolons, run in order
   * (each statement that runs at once has run when the next starts); returns the last one's result.
   */
  public DataFrame run(String sql) {
    checkSize(sql);
    List<String> statements = SqlScript.split(sql);
    if (statements.size() > 1) {
      DataFrame last = null;
      for (String statement : statements) {
        last = run(statement);
      }
      return last;
    }
    try {
      return runOne(SqlScript.withoutTerminators(sql));
    } finally {
      session.pipeline().dropFileTables();
    }
  }

  private DataFrame runOne(String sql) {
    return executor.execute(StatementParser.parse(sql));
  }

  private void checkSize(String sql) {
    StatementSize.check(sql, session.config().get(BindingSettings.MAX_STATEMENT_BYTES));
  }

  /** See {@link dev.quiver.binding.SessionContext#isQuery}. */
  public static boolean isQuery(String sql) {
    return !RUNS_AT_ONCE.contains(StatementParser.leadingWord(sql));
  }

  /** The types of the {@code ?} parameters of {@code sql}, as fields {@code $1}, {@code $2}... */
  public Schema parameterSchema(String sql) {
    checkSize(sql);
    String text = stripTrailing(sql);
    List<Integer> placeholders = SqlParameters.placeholders(text);
    if (placeholders.isEmpty()) {
      return new Schema(List.of());
    }
    List<RelDataType> types =
        session.planning(
            () -> {
              SqlPipeline p = session.pipeline();
              SqlNode node = p.parse(text);
              if (node instanceof SqlExplain explain) {
                node = explain.getExplicandum();
              }
              if (node instanceof SqlInsert insert) {
                return insertParameterTypes(insert);
              }
              if (!node.getKind().belongsTo(SqlKind.QUERY)) {
                throw new QuiverException(
                    "Parameters (?) are supported in queries and INSERT, not in " + node.getKind());
              }
              return parameterTypes(p, node);
            });
    if (types.size() != placeholders.size()) {
      throw new QuiverException(
          "Found " + placeholders.size() + " parameters (?) but the parser saw " + types.size());
    }
    List<Field> fields = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      fields.add(
          new Field(
              "$" + (i + 1), new FieldType(true, TypeMapping.toArrow(types.get(i)), null), null));
    }
    return new Schema(fields);
  }

  /** {@code sql} with its parameters replaced by {@code values} as literals of their types. */
  public String bind(String sql, List<?> values) {
    checkSize(sql);
    String text = stripTrailing(sql);
    List<Integer> placeholders = SqlParameters.placeholders(text);
    if (placeholders.isEmpty() && values.isEmpty()) {
      return text;
    }
    return SqlParameters.bind(text, placeholders, parameterSchema(text).getFields(), values);
  }

  private static List<RelDataType> parameterTypes(SqlPipeline p, SqlNode query) {
    SqlPipeline.Validated v;
    try {
      v = p.validate(query);
    } catch (QuiverException e) {
      if (String.valueOf(e.getMessage()).contains("dynamic parameter")) {
        throw new QueryTypeException(
            "Cannot tell the type of a parameter (?) from where it stands; write CAST(? AS type)",
            e);
      }
      throw e;
    }
    RelDataType row = v.validator().getParameterRowType(v.node());
    List<RelDataType> out = new ArrayList<>();
    row.getFieldList().forEach(f -> out.add(f.getType()));
    return out;
  }

  /**
   * Parameters of an INSERT: those standing as whole values of a VALUES row take the type of their
   * target column; those inside a query source take the type the query gives them.
   */
  private List<RelDataType> insertParameterTypes(SqlInsert insert) {
    SqlPipeline p = session.pipeline();
    List<String> names = ((SqlIdentifier) insert.getTargetTable()).names;
    String name = names.get(names.size() - 1);
    Catalog.TableEntry entry = session.catalog().table(name);
    if (entry == null) {
      throw new UnknownTableException(name, Suggestions.closest(name, session.catalog().names()));
    }
    RelDataType tableType = TypeMapping.toRelRowType(entry.provider().schema(), p.typeFactory());
    List<RelDataType> targets = new ArrayList<>();
    if (insert.getTargetColumnList() == null) {
      tableType.getFieldList().forEach(f -> targets.add(f.getType()));
    } else {
      for (SqlNode c : insert.getTargetColumnList()) {
        String col = ((SqlIdentifier) c).getSimple();
        RelDataTypeField f = tableType.getField(col, false, false);
        if (f == null) {
          throw new UnknownColumnException(
              col, Suggestions.closest(col, tableType.getFieldNames()));
        }
        targets.add(f.getType());
      }
    }
    SqlNode source = insert.getSource();
    if (source.getKind() != SqlKind.VALUES) {
      return parameterTypes(p, source);
    }
    List<List<SqlNode>> rows = new ArrayList<>();
    for (SqlNode row : ((SqlBasicCall) source).getOperandList()) {
      rows.add(
          row instanceof SqlBasicCall call && call.getKind() == SqlKind.ROW
              ? call.getOperandList()
              : List.of(row));
    }
    boolean wholeCells =
        rows.stream()
            .flatMap(List::stream)
            .allMatch(
                c ->
                    c instanceof SqlDynamicParam
                        || SqlParameters.placeholders(c.toString()).isEmpty());
    if (!wholeCells) {
      // Parameters inside expressions (e.g. CAST(? AS INT)) take the types the VALUES give them.
      return parameterTypes(p, source);
    }
    List<RelDataType> out = new ArrayList<>();
    for (List<SqlNode> cells : rows) {
      for (int i = 0; i < cells.size(); i++) {
        if (cells.get(i) instanceof SqlDynamicParam) {
          if (i >= targets.size()) {
            throw new QueryTypeException(
                "INSERT INTO " + name + " gives more values than it has target columns");
          }
          out.add(targets.get(i));
        }
      }
    }
    return out;
  }

  private static String stripTrailing(String sql) {
    String s = sql.stripTrailing();
    while (s.endsWith(";")) {
      s = s.substring(0, s.length() - 1).stripTrailing();
    }
    return s;
  }
}
