package dev.quiver.binding.sql;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.datasource.CsvTable;
import dev.quiver.binding.datasource.MemoryTable;
import dev.quiver.binding.datasource.ParquetTable;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.ConstraintViolationException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.logical.TypeMapping;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSetOption;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;

/**
 * Runs one SQL statement of a session: queries become lazy DataFrames; DDL (CREATE/DROP TABLE and
 * VIEW, CREATE EXTERNAL TABLE), INSERT, UPDATE, DELETE ({@link TableWrites}) and SET run at once;
 * DESCRIBE, SHOW COLUMNS and SHOW TABLES are queries over the catalog ({@link InformationSchema}).
 */
public final class StatementRunner {
  private static final String NAME = "(\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$]*)";
  private static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.DOTALL;
  private static final Pattern SET =
      Pattern.compile(
          "\\s*SET\\s+(?<key>[A-Za-z_][\\w.]*)\\s*(?:=|\\s+TO\\s+)\\s*(?<value>.*?)\\s*", FLAGS);
  private static final Pattern CREATE_EXTERNAL =
      Pattern.compile(
          "\\s*CREATE\\s+EXTERNAL\\s+TABLE\\s+(?<ine>IF\\s+NOT\\s+EXISTS\\s+)?(?<name>"
              + NAME
              + ")\\s*"
              + "(?:\\((?<cols>.*)\\)\\s*)?STORED\\s+AS\\s+(?<fmt>\\w+)\\s+LOCATION\\s+'(?<path>(?:[^']|'')*)'\\s*"
              + "(?:OPTIONS\\s*\\((?<opts>.*)\\)\\s*)?",
          FLAGS);
  private static final Pattern CREATE_TABLE_AS =
      Pattern.compile(
          "\\s*CREATE\\s+(?<repl>OR\\s+REPLACE\\s+)?TABLE\\s+(?<ine>IF\\s+NOT\\s+EXISTS\\s+)?(?<name>"
              + NAME
              + ")\\s+AS\\s+(?<query>.*)",
          FLAGS);
  private static final Pattern CREATE_TABLE =
      Pattern.compile(
          "\\s*CREATE\\s+(?<repl>OR\\s+REPLACE\\s+)?TABLE\\s+(?<ine>IF\\s+NOT\\s+EXISTS\\s+)?(?<name>"
              + NAME
              + ")\\s*\\((?<cols>.*)\\)\\s*",
          FLAGS);
  private static final Pattern CREATE_VIEW =
      Pattern.compile(
          "\\s*CREATE\\s+(?<repl>OR\\s+REPLACE\\s+)?VIEW\\s+(?<name>"
              + NAME
              + ")\\s*(?:\\((?<cols>[^)]*)\\)\\s*)?AS\\s+(?<query>.*)",
          FLAGS);
  private static final Pattern DROP =
      Pattern.compile(
          "\\s*DROP\\s+(?<kind>TABLE|VIEW)\\s+(?<ie>IF\\s+EXISTS\\s+)?(?<name>" + NAME + ")\\s*",
          FLAGS);
  private static final Pattern SHOW_TABLES = Pattern.compile("\\s*SHOW\\s+TABLES\\s*", FLAGS);
  private static final Pattern COPY =
      Pattern.compile(
          "\\s*COPY\\s*(?:\\((?<query>.*)\\)|(?<table>"
              + NAME
              + "))\\s*TO\\s*'(?<path>(?:[^']|'')*)'\\s*(?:(?:WITH\\s*)?\\((?<opts>.*)\\)\\s*)?",
          FLAGS);
  private static final Pattern DESCRIBE =
      Pattern.compile(
          "\\s*(?:(?:DESCRIBE|DESC)(?:\\s+TABLE)?|SHOW\\s+COLUMNS\\s+(?:FROM|IN))\\s+(?<name>"
              + NAME
              + ")\\s*",
          FLAGS);
  private static final Pattern EXPLAIN =
      Pattern.compile("\\s*EXPLAIN\\s+(?<analyze>ANALYZE\\s+)?(?!PLAN\\b)(?<query>.*)", FLAGS);
  private static final Pattern COLUMN_DEF =
      Pattern.compile(
          "\\s*(?<name>" + NAME + ")\\s+(?<type>.+?)(?<notnull>\\s+NOT\\s+NULL)?(?:\\s+NULL)?\\s*",
          FLAGS);

  private final SessionState session;

  /** Creates a runner for {@code session}. */
  public StatementRunner(SessionState session) {
    this.session = session;
  }

  /**
   * Runs or plans {@code sql}: one statement, or several separated by semicolons, run in order
   * (each statement that runs at once has run when the next starts); returns the last one's result.
   */
  public DataFrame run(String sql) {
    List<String> statements = SqlScript.split(sql);
    if (statements.size() > 1) {
      DataFrame last = null;
      for (String statement : statements) {
        last = run(statement);
      }
      return last;
    }
    try {
      return runOne(sql);
    } finally {
      session.pipeline().dropFileTables();
    }
  }

  private DataFrame runOne(String sql) {
    String text = stripTrailing(sql);
    int start = skipComments(text);
    Matcher m;
    if ((m = region(SET, text, start)).matches()) {
      session.config().set(m.group("key"), unquote(m.group("value")));
      return empty();
    }
    if ((m = region(CREATE_EXTERNAL, text, start)).matches()) {
      return createExternal(m);
    }
    if ((m = region(CREATE_VIEW, text, start)).matches()) {
      return createView(m, text);
    }
    if ((m = region(CREATE_TABLE_AS, text, start)).matches()) {
      return createTableAs(m, text);
    }
    if ((m = region(CREATE_TABLE, text, start)).matches()) {
      return createTable(m);
    }
    if ((m = region(DROP, text, start)).matches()) {
      return drop(m);
    }
    if ((m = region(EXPLAIN, text, start)).matches()) {
      return explain(m, text);
    }
    if ((m = region(COPY, text, start)).matches()) {
      return copy(m);
    }
    if (region(SHOW_TABLES, text, start).matches()) {
      return catalogQuery(InformationSchema.showTablesSql(session.catalog()));
    }
    if ((m = region(DESCRIBE, text, start)).matches()) {
      String name = name(m.group("name"));
      if (!exists(name)) {
        throw new UnknownTableException(name, Suggestions.closest(name, session.catalog().names()));
      }
      return catalogQuery(InformationSchema.describeSql(session.catalog(), name));
    }
    return session.planning(() -> statement(text));
  }

  /** Leading keywords of statements that run at once rather than plan a query. */
  private static final Pattern RUNS_AT_ONCE =
      Pattern.compile(
          "(?:INSERT|SET|RESET|CREATE|DROP|ALTER|DELETE|UPDATE|MERGE|TRUNCATE|COPY)\\b.*", FLAGS);

  /** See {@link dev.quiver.binding.SessionContext#isQuery}. */
  public static boolean isQuery(String sql) {
    String text = stripTrailing(sql);
    return !region(RUNS_AT_ONCE, text, skipComments(text)).matches();
  }

  /** The types of the {@code ?} parameters of {@code sql}, as fields {@code $1}, {@code $2}... */
  public Schema parameterSchema(String sql) {
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

  private static Matcher region(Pattern p, String text, int start) {
    return p.matcher(text).region(start, text.length());
  }

  private DataFrame statement(String text) {
    SqlPipeline pipeline = session.pipeline();
    SqlNode node = pipeline.parse(text);
    if (node instanceof SqlInsert insert) {
      return insert(insert);
    }
    if (node instanceof SqlUpdate update) {
      return countFrame(new TableWrites(session).update(update));
    }
    if (node instanceof SqlDelete delete) {
      return countFrame(new TableWrites(session).delete(delete));
    }
    if (node instanceof SqlExplain explain) {
      DataFrameImpl df = new DataFrameImpl(session, pipeline.toRel(explain.getExplicandum()));
      return explainFrame(df, false);
    }
    if (node instanceof SqlSetOption set) {
      if (set.getValue() == null) {
        throw new QuiverException("RESET is not supported; SET the option to its default value");
      }
      session
          .config()
          .set(String.join(".", set.getName().names), unquote(set.getValue().toString()));
      return emptyUnlocked();
    }
    if (node.getKind().belongsTo(SqlKind.QUERY)) {
      return new DataFrameImpl(session, pipeline.toRel(node));
    }
    throw new QuiverException(
        "Statement "
            + node.getKind()
            + " is not supported; Quiver runs queries, INSERT, UPDATE, DELETE, SET, "
            + "CREATE/DROP TABLE and VIEW, CREATE EXTERNAL TABLE, DESCRIBE and SHOW TABLES");
  }

  private DataFrame explain(Matcher m, String text) {
    int offset = m.start("query");
    DataFrameImpl df =
        session.planning(
            () -> {
              SqlNode q =
                  session
                      .pipeline()
                      .parse(text.substring(offset), line(text, offset), column(text, offset));
              return new DataFrameImpl(session, session.pipeline().toRel(q));
            });
    return explainFrame(df, m.group("analyze") != null);
  }

  private DataFrame explainFrame(DataFrameImpl df, boolean analyze) {
    String text = df.explain(analyze);
    int split = text.indexOf("Physical plan:\n");
    RelBuilder b = session.pipeline().relBuilder();
    RelNode values =
        b.values(
                new String[] {"plan_type", "plan"},
                "logical_plan",
                text.substring("Logical plan:\n".length(), split),
                "physical_plan",
                text.substring(split + "Physical plan:\n".length()))
            .build();
    return new DataFrameImpl(session, values);
  }

  // ---- DDL ----------------------------------------------------------------------------------

  private DataFrame createExternal(Matcher m) {
    String name = name(m.group("name"));
    String format = m.group("fmt").toUpperCase(Locale.ROOT);
    String path = m.group("path").replace("''", "'");
    if (exists(name)) {
      if (m.group("ine") != null) {
        return empty();
      }
      throw alreadyExists(name);
    }
    Map<String, String> options = m.group("opts") == null ? Map.of() : options(m.group("opts"));
    if (!options.isEmpty() && !format.equals("CSV")) {
      throw new QuiverException(
          "CREATE EXTERNAL TABLE "
              + name
              + ": OPTIONS are for CSV tables; "
              + format
              + " has none");
    }
    TableProvider provider =
        switch (format) {
          case "PARQUET" -> ParquetTable.open(path, session.config());
          case "CSV" -> {
            CsvOptions csv = CsvOptions.fromSettings(options);
            if (m.group("cols") != null) {
              // Declared columns type the CSV columns of those names; the rest are inferred.
              for (Field f : session.planning(() -> columns(m.group("cols"))).getFields()) {
                csv = csv.withColumnType(f.getName(), f.getType());
              }
            }
            yield CsvTable.open(path, null, csv, session.config());
          }
          default ->
              throw new QuiverException(
                  "CREATE EXTERNAL TABLE "
                      + name
                      + ": format "
                      + format
                      + " is not supported; use PARQUET or CSV");
        };
    if (m.group("cols") != null) {
      Schema declared = columns(m.group("cols"));
      List<String> actual = provider.schema().getFields().stream().map(Field::getName).toList();
      for (Field f : declared.getFields()) {
        if (actual.stream().noneMatch(a -> a.equalsIgnoreCase(f.getName()))) {
          throw new UnknownColumnException(f.getName(), Suggestions.closest(f.getName(), actual));
        }
      }
    }
    session.catalog().putTable(new Catalog.TableEntry(name, provider, true));
    return empty();
  }

  private static final Pattern OPTION =
      Pattern.compile(
          "\\s*(?:'(?<qkey>(?:[^']|'')*)'|(?<key>[A-Za-z_][\\w.]*))\\s*=?\\s*'(?<value>(?:[^']|'')*)'\\s*(?:,|$)",
          FLAGS);

  /** {@code 'key' 'value', key = 'value', ...} of an OPTIONS clause, in order. */
  private static Map<String, String> options(String text) {
    Map<String, String> options = new java.util.LinkedHashMap<>();
    Matcher o = OPTION.matcher(text);
    int at = 0;
    while (at < text.length() && !text.substring(at).isBlank()) {
      o.region(at, text.length());
      if (!o.lookingAt()) {
        throw new QuiverException(
            "Cannot read OPTIONS ("
                + text.strip()
                + ") near '"
                + text.substring(at).strip()
                + "'; write OPTIONS ('delimiter' ';', 'header' 'false', ...)");
      }
      String key = o.group("qkey") != null ? o.group("qkey") : o.group("key");
      // DataFusion spells these 'format.delimiter'; both work.
      key = key.replace("''", "'").replaceFirst("(?i)^format\\.", "");
      options.put(key, o.group("value").replace("''", "'"));
      at = o.end();
    }
    return options;
  }

  private DataFrame createTable(Matcher m) {
    String name = name(m.group("name"));
    boolean replace = m.group("repl") != null;
    if (exists(name) && !replace) {
      if (m.group("ine") != null) {
        return empty();
      }
      throw alreadyExists(name);
    }
    TableDefinitions.Definition def =
        session.planning(
            () -> TableDefinitions.parse(name, m.group("cols"), this::sqlType, this::checkDefault));
    MemoryTable table =
        new MemoryTable(def.schema(), List.of(), session.tableAllocator(), def.constraints());
    replaceTable(name, table);
    return empty();
  }

  /** Checks that DEFAULT {@code expression} of {@code column} is a constant of a fitting type. */
  private String checkDefault(String column, RelDataType type, String expression) {
    SqlPipeline p = session.pipeline();
    RelDataType given;
    try {
      given = p.validate(p.parse("SELECT " + expression)).rowType().getFieldList().get(0).getType();
    } catch (QuiverException e) {
      throw new QueryTypeException(
          "DEFAULT "
              + expression
              + " of column "
              + column
              + " is not a constant expression: "
              + e.getMessage(),
          e);
    }
    if (!SqlTypeUtil.canCastFrom(type, given, true)) {
      throw new QueryTypeException(
          "DEFAULT " + expression + " of column " + column + " is " + given + ", not " + type);
    }
    return expression;
  }

  /**
   * The value DEFAULT stands for in {@code column} of {@code table}: its DEFAULT expression, or
   * NULL.
   */
  static SqlNode defaultValue(
      SessionState session, MemoryTable table, String column, SqlParserPos pos) {
    String text = table.constraints().defaults().get(column);
    if (text == null) {
      return SqlLiteral.createNull(pos);
    }
    SqlNode select = session.pipeline().parse("SELECT " + text);
    SqlNode item = ((SqlSelect) select).getSelectList().get(0);
    return item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
  }

  private DataFrame catalogQuery(String sql) {
    return session.planning(
        () -> new DataFrameImpl(session, session.pipeline().toRel(session.pipeline().parse(sql))));
  }

  private DataFrame createTableAs(Matcher m, String text) {
    String name = name(m.group("name"));
    boolean replace = m.group("repl") != null;
    if (exists(name) && !replace) {
      if (m.group("ine") != null) {
        return empty();
      }
      throw alreadyExists(name);
    }
    int offset = m.start("query");
    DataFrameImpl df =
        session.planning(
            () -> {
              SqlNode q =
                  session
                      .pipeline()
                      .parse(text.substring(offset), line(text, offset), column(text, offset));
              return new DataFrameImpl(session, session.pipeline().toRel(q));
            });
    Schema schema = df.schema();
    List<VectorSchemaRoot> batches = df.collect();
    MemoryTable table;
    long rows = batches.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
    try {
      table = new MemoryTable(schema, batches, session.tableAllocator());
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    replaceTable(name, table);
    return countFrame(rows);
  }

  private void replaceTable(String name, MemoryTable table) {
    Object old = session.catalog().putTable(new Catalog.TableEntry(name, table, true));
    Catalog.closeIfOwned(old);
  }

  private DataFrame createView(Matcher m, String text) {
    String name = name(m.group("name"));
    boolean replace = m.group("repl") != null;
    if (exists(name) && !replace) {
      throw alreadyExists(name);
    }
    int offset = m.start("query");
    String query = text.substring(offset);
    String cols = m.group("cols");
    Catalog.ViewEntry view =
        session.planning(
            () -> {
              SqlPipeline p = session.pipeline();
              SqlNode q = p.parse(query, line(text, offset), column(text, offset));
              RelDataType rowType = p.validate(q).rowType();
              String sql = query;
              if (cols != null) {
                String[] names = cols.split(",");
                if (names.length != rowType.getFieldCount()) {
                  throw new QuiverException(
                      "CREATE VIEW "
                          + name
                          + " names "
                          + names.length
                          + " columns but its query returns "
                          + rowType.getFieldCount());
                }
                sql = "SELECT * FROM (" + query + ") AS " + quote(name) + " (" + cols + ")";
                rowType = p.validate(p.parse(sql)).rowType();
              }
              return new Catalog.ViewEntry(name, sql, null, rowType);
            });
    Catalog.closeIfOwned(session.catalog().putView(view));
    return empty();
  }

  private DataFrame drop(Matcher m) {
    String name = name(m.group("name"));
    boolean view = m.group("kind").equalsIgnoreCase("VIEW");
    Catalog catalog = session.catalog();
    boolean present = view ? catalog.view(name) != null : catalog.table(name) != null;
    if (!present) {
      if (m.group("ie") != null) {
        return empty();
      }
      if (view ? catalog.table(name) != null : catalog.view(name) != null) {
        throw new QuiverException(
            "'"
                + name
                + "' is a "
                + (view ? "table" : "view")
                + "; use DROP "
                + (view ? "TABLE" : "VIEW"));
      }
      throw new UnknownTableException(name, Suggestions.closest(name, catalog.names()));
    }
    Catalog.closeIfOwned(catalog.remove(name));
    return empty();
  }

  private boolean exists(String name) {
    return session.catalog().table(name) != null || session.catalog().view(name) != null;
  }

  private static QuiverException alreadyExists(String name) {
    return new QuiverException(
        "Table or view '"
            + name
            + "' already exists; DROP it first, or use CREATE OR REPLACE / IF NOT EXISTS");
  }

  /** Parses {@code name TYPE [NOT NULL], ...} into an Arrow schema. */
  private Schema columns(String defs) {
    List<Field> fields = new ArrayList<>();
    for (String def : splitTopLevel(defs)) {
      Matcher m = COLUMN_DEF.matcher(def);
      if (!m.matches()) {
        throw new QuiverException(
            "Cannot read column definition '" + def.strip() + "'; write: name TYPE [NOT NULL]");
      }
      String col = name(m.group("name"));
      boolean nullable = m.group("notnull") == null;
      RelDataType type = sqlType(col, m.group("type").strip(), nullable);
      fields.add(new Field(col, new FieldType(nullable, TypeMapping.toArrow(type), null), null));
    }
    return new Schema(fields);
  }

  private RelDataType sqlType(String column, String typeText, boolean nullable) {
    String t = typeText.replaceAll("(?i)^(TEXT|STRING)$", "VARCHAR");
    try {
      SqlNode cast =
          SqlParser.create("CAST(NULL AS " + t + ")", SqlPipeline.PARSER_CONFIG).parseExpression();
      SqlDataTypeSpec spec = (SqlDataTypeSpec) ((SqlBasicCall) cast).operand(1);
      return session.pipeline().deriveType(spec, nullable);
    } catch (org.apache.calcite.sql.parser.SqlParseException | RuntimeException e) {
      throw new QueryTypeException(
          "Unknown type '"
              + typeText
              + "' for column "
              + column
              + "; use BOOLEAN, INT, BIGINT, DOUBLE, DECIMAL(p, s), VARCHAR, DATE or TIMESTAMP",
          e);
    }
  }

  // ---- INSERT -------------------------------------------------------------------------------

  private DataFrame insert(SqlInsert insert) {
    SqlPipeline p = session.pipeline();
    List<String> names = ((SqlIdentifier) insert.getTargetTable()).names;
    String name = names.get(names.size() - 1);
    Catalog.TableEntry entry = session.catalog().table(name);
    if (entry == null) {
      throw new UnknownTableException(name, Suggestions.closest(name, session.catalog().names()));
    }
    if (!(entry.provider() instanceof MemoryTable table)) {
      throw new QuiverException(
          "INSERT INTO "
              + name
              + " is not possible: only memory tables (CREATE TABLE) accept inserts");
    }
    RelDataType tableType = TypeMapping.toRelRowType(table.schema(), p.typeFactory());
    List<RelDataTypeField> tableFields = tableType.getFieldList();
    List<Integer> targets = new ArrayList<>();
    SqlNodeList columnList = insert.getTargetColumnList();
    if (columnList == null) {
      for (int i = 0; i < tableFields.size(); i++) {
        targets.add(i);
      }
    } else {
      for (SqlNode c : columnList) {
        String col = ((SqlIdentifier) c).getSimple();
        RelDataTypeField f = tableType.getField(col, false, false);
        if (f == null) {
          throw new UnknownColumnException(
              col, Suggestions.closest(col, tableType.getFieldNames()));
        }
        targets.add(f.getIndex());
      }
    }
    SqlNode sourceNode = insert.getSource();
    SqlParserPos pos = insert.getParserPosition();
    if (sourceNode.getKind() == SqlKind.VALUES) {
      // VALUES (1, DEFAULT): the column's DEFAULT expression, or NULL.
      for (SqlNode row : ((SqlBasicCall) sourceNode).getOperandList()) {
        if (row instanceof SqlBasicCall r && r.getKind() == SqlKind.ROW) {
          for (int i = 0; i < r.operandCount() && i < targets.size(); i++) {
            if (r.operand(i).getKind() == SqlKind.DEFAULT) {
              r.setOperand(
                  i, defaultValue(session, table, tableFields.get(targets.get(i)).getName(), pos));
            }
          }
        }
      }
    }
    // Columns the INSERT leaves out take their DEFAULT expressions.
    List<SqlNode> defaultItems = new ArrayList<>();
    for (RelDataTypeField tf : tableFields) {
      if (!targets.contains(tf.getIndex())
          && table.constraints().defaults().containsKey(tf.getName())) {
        defaultItems.add(
            SqlStdOperatorTable.AS.createCall(
                pos,
                defaultValue(session, table, tf.getName(), pos),
                new SqlIdentifier("quiver$default" + defaultItems.size(), pos)));
        targets.add(tf.getIndex());
      }
    }
    if (!defaultItems.isEmpty()) {
      List<SqlNode> items = new ArrayList<>();
      items.add(SqlIdentifier.star(pos));
      items.addAll(defaultItems);
      sourceNode =
          new SqlSelect(
              pos,
              null,
              new SqlNodeList(items, pos),
              SqlStdOperatorTable.AS.createCall(
                  pos, sourceNode, new SqlIdentifier("quiver$source", pos)),
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null);
    }
    RelNode source = p.toRel(sourceNode);
    List<RelDataTypeField> sourceFields = source.getRowType().getFieldList();
    if (sourceFields.size() != targets.size()) {
      throw new QueryTypeException(
          "INSERT INTO "
              + name
              + " names "
              + targets.size()
              + " columns but the query returns "
              + sourceFields.size());
    }
    RexBuilder rex = p.cluster().getRexBuilder();
    RelBuilder b = p.relBuilder().push(source);
    List<RexNode> exprs = new ArrayList<>();
    for (RelDataTypeField tf : tableFields) {
      int at = targets.indexOf(tf.getIndex());
      RelDataType nullable = p.typeFactory().createTypeWithNullability(tf.getType(), true);
      if (at < 0) {
        if (!tf.getType().isNullable()) {
          throw new ConstraintViolationException(
              "INSERT INTO "
                  + name
                  + ": NULL in column "
                  + tf.getName()
                  + ", which is NOT NULL and has no DEFAULT; give it a value",
              name,
              tf.getName(),
              "NULL");
        }
        exprs.add(rex.makeNullLiteral(nullable));
        continue;
      }
      RelDataType from = sourceFields.get(at).getType();
      if (!SqlTypeUtil.canCastFrom(tf.getType(), from, true)) {
        throw new QueryTypeException(
            "INSERT INTO "
                + name
                + ": cannot store "
                + from
                + " in column "
                + tf.getName()
                + " of type "
                + tf.getType());
      }
      // NOT NULL is checked on the values (MemoryTable.insert), naming the column.
      exprs.add(rex.makeCast(nullable, b.field(at), true, false));
    }
    RelNode converted = b.project(exprs, tableType.getFieldNames(), true).build();
    DataFrameImpl df = new DataFrameImpl(session, converted);
    table.writeLock().lock();
    try {
      // Execution re-enters the session lock from this thread; the lock is reentrant.
      List<VectorSchemaRoot> batches = df.collect();
      long rows = batches.stream().mapToLong(VectorSchemaRoot::getRowCount).sum();
      try {
        table.insert("INSERT INTO " + name, name, batches);
      } finally {
        batches.forEach(VectorSchemaRoot::close);
      }
      return countFrame(rows);
    } finally {
      table.writeLock().unlock();
    }
  }

  // ---- results and helpers ------------------------------------------------------------------

  /** One row, one BIGINT column {@code count}: the rows a statement wrote. */
  /**
   * {@code COPY (query) TO 'path' (FORMAT PARQUET | CSV [, DELIMITER ';'] [, HEADER false])} and
   * {@code COPY table TO ...}: runs the query (on the cluster for a distributed session) and writes
   * its rows as one file at {@code path}, a local path or {@code s3://bucket/key}, replacing it;
   * the format comes from FORMAT or the file's extension. Returns the rows written.
   */
  private DataFrame copy(Matcher m) {
    String path = m.group("path").replace("''", "'");
    String query =
        m.group("query") != null ? m.group("query") : "SELECT * FROM " + m.group("table");
    Map<String, String> options = new LinkedHashMap<>();
    if (m.group("opts") != null) {
      for (String option : TableDefinitions.splitTopLevel(m.group("opts"))) {
        String o = option.strip();
        if (o.isEmpty()) {
          continue;
        }
        String[] kv = o.split("\\s+", 2);
        options.put(
            kv[0].toLowerCase(Locale.ROOT), kv.length > 1 ? unquote(kv[1].strip()) : "true");
      }
    }
    String lower = path.toLowerCase(Locale.ROOT);
    String format =
        options.containsKey("format")
            ? options.remove("format").toLowerCase(Locale.ROOT)
            : lower.endsWith(".parquet")
                ? "parquet"
                : lower.endsWith(".csv") || lower.endsWith(".tsv") ? "csv" : null;
    if (format == null) {
      throw new QuiverException(
          "COPY ... TO '" + path + "': name the format, (FORMAT PARQUET) or (FORMAT CSV)");
    }
    DataFrame df = runOne(query);
    long rows;
    try (org.apache.arrow.vector.ipc.ArrowReader reader = df.executeStream()) {
      switch (format) {
        case "parquet" -> {
          if (!options.isEmpty()) {
            throw new QuiverException(
                "COPY ... (FORMAT PARQUET) takes no other options, got "
                    + String.join(", ", options.keySet()));
          }
          rows =
              dev.quiver.binding.datasource.FileWriters.writeParquetFile(
                  reader, path, session.config(), session.allocator());
        }
        case "csv" -> {
          char delimiter = ',';
          boolean header = true;
          for (Map.Entry<String, String> e : options.entrySet()) {
            switch (e.getKey()) {
              case "delimiter", "delim", "sep" -> {
                String d = e.getValue().equals("\\t") ? "\t" : e.getValue();
                if (d.length() != 1) {
                  throw new QuiverException(
                      "COPY: DELIMITER must be one character, got '" + d + "'");
                }
                delimiter = d.charAt(0);
              }
              case "header" ->
                  header = !e.getValue().equalsIgnoreCase("false") && !e.getValue().equals("0");
              default ->
                  throw new QuiverException(
                      "COPY ... (FORMAT CSV): unknown option "
                          + e.getKey()
                          + "; use DELIMITER and HEADER");
            }
          }
          rows =
              dev.quiver.binding.datasource.FileWriters.writeCsvFile(
                  reader, path, session.config(), delimiter, header);
        }
        default ->
            throw new QuiverException(
                "COPY ... TO: unknown FORMAT " + format + "; use PARQUET or CSV");
      }
    } catch (java.io.IOException e) {
      throw new QuiverException("COPY to " + path + " failed: " + e.getMessage(), e);
    }
    return countFrame(rows);
  }

  private DataFrame countFrame(long rows) {
    return session.planning(
        () -> {
          SqlPipeline p = session.pipeline();
          RelDataType bigint =
              p.typeFactory().createSqlType(org.apache.calcite.sql.type.SqlTypeName.BIGINT);
          RelDataType rowType = p.typeFactory().createStructType(List.of(bigint), List.of("count"));
          RexLiteral count =
              p.cluster().getRexBuilder().makeExactLiteral(BigDecimal.valueOf(rows), bigint);
          return new DataFrameImpl(
              session, p.relBuilder().values(List.of(List.of(count)), rowType).build());
        });
  }

  private DataFrame empty() {
    return session.planning(this::emptyUnlocked);
  }

  private DataFrame emptyUnlocked() {
    SqlPipeline p = session.pipeline();
    RelDataType none = p.typeFactory().createStructType(List.of(), List.of());
    return new DataFrameImpl(session, LogicalValues.createEmpty(p.cluster(), none));
  }

  private static String name(String raw) {
    if (raw.startsWith("\"")) {
      return raw.substring(1, raw.length() - 1).replace("\"\"", "\"");
    }
    return raw.toLowerCase(Locale.ROOT);
  }

  private static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  private static String unquote(String value) {
    String v = value.strip();
    if (v.length() >= 2
        && ((v.startsWith("'") && v.endsWith("'")) || (v.startsWith("\"") && v.endsWith("\"")))) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }

  private static String stripTrailing(String sql) {
    String s = sql.stripTrailing();
    while (s.endsWith(";")) {
      s = s.substring(0, s.length() - 1).stripTrailing();
    }
    return s;
  }

  /** Index of the first character after leading whitespace and comments. */
  private static int skipComments(String s) {
    int i = 0;
    while (i < s.length()) {
      if (Character.isWhitespace(s.charAt(i))) {
        i++;
      } else if (s.startsWith("--", i)) {
        int nl = s.indexOf('\n', i);
        i = nl < 0 ? s.length() : nl + 1;
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        i = end < 0 ? s.length() : end + 2;
      } else {
        break;
      }
    }
    return i;
  }

  private static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int last = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(last, i));
        last = i + 1;
      }
    }
    if (!s.substring(last).isBlank()) {
      out.add(s.substring(last));
    }
    return out;
  }

  private static int line(String text, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }

  private static int column(String text, int offset) {
    int nl = text.lastIndexOf('\n', offset - 1);
    return offset - nl;
  }
}
