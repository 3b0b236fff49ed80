package dev.quiver.binding.sql;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.datasource.CsvTable;
import dev.quiver.binding.datasource.FileWriters;
import dev.quiver.binding.datasource.MemoryTable;
import dev.quiver.binding.datasource.ParquetTable;
import dev.quiver.binding.datasource.PartitionedWrite;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.datasource.WritableTableCatalog;
import dev.quiver.binding.datasource.parquet.ParquetCodec;
import dev.quiver.binding.datasource.parquet.ParquetWriteOptions;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.errors.QueryTypeException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.SqlParseException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownColumnException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.errors.UnsupportedFeatureException;
import dev.quiver.binding.io.LocalFileAccess;
import dev.quiver.binding.logical.TypeMapping;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.settings.Setting;
import dev.quiver.binding.settings.SettingsRegistry;
import dev.quiver.binding.statement.Statement;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSetOption;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;

/**
 * Runs one parsed {@link Statement} of a session: queries become lazy DataFrames; DDL (CREATE/DROP
 * TABLE and VIEW, CREATE EXTERNAL TABLE), COPY, INSERT, UPDATE, DELETE ({@link TableWrites}) and
 * SET run at once; DESCRIBE, SHOW COLUMNS and SHOW TABLES are queries over the catalog ({@link
 * InformationSchema}).
 */
final class StatementExecutor {
  private final SessionState session;

  StatementExecutor(SessionState session) {
    this.session = session;
  }

  /** Runs {@code statement}, or plans it when it is a query. */
  DataFrame execute(Statement statement) {
    if (statement instanceof Statement.SetOption set) {
      setOption(set.key(), set.value());
      return empty();
    }
    if (statement instanceof Statement.CreateExternalTable create) {
      return createExternal(create);
    }
    if (statement instanceof Statement.CreateView create) {
      return createView(create);
    }
    if (statement instanceof Statement.CreateTableAs create) {
      return createTableAs(create);
    }
    if (statement instanceof Statement.CreateTable create) {
      return createTable(create);
    }
    if (statement instanceof Statement.CreateCatalogTable create) {
      return createCatalogTable(create);
    }
    if (statement instanceof Statement.DropCatalogTable drop) {
      List<String> path = drop.path();
      WritableTableCatalog cat = CatalogTableWrites.writable(session, path, "DROP TABLE");
      if (!cat.drop(path.get(1), path.get(2)) && !drop.ifExists()) {
        throw new UnknownTableException(
            String.join(".", path), Suggestions.closest(path.get(2), cat.tables(path.get(1))));
      }
      return empty();
    }
    if (statement instanceof Statement.Drop drop) {
      return drop(drop);
    }
    if (statement instanceof Statement.CreateIndex create) {
      TableIndexes.create(session.catalog(), create);
      return empty();
    }
    if (statement instanceof Statement.DropIndex drop) {
      TableIndexes.drop(session.catalog(), drop);
      return empty();
    }
    if (statement instanceof Statement.Explain explain) {
      return explain(explain);
    }
    if (statement instanceof Statement.Copy copy) {
      return copy(copy);
    }
    if (statement instanceof Statement.ShowTables show) {
      return show.from().isEmpty()
          ? catalogQuery(InformationSchema.showTablesSql(session.catalog()))
          : catalogQuery(InformationSchema.showTablesSql(catalogTables(show.from())));
    }
    if (statement instanceof Statement.ShowSettings show) {
      return catalogQuery(InformationSchema.showSettingsSql(session.config(), show.name()));
    }
    if (statement instanceof Statement.Attach attach) {
      CatalogAttachments.attach(
          session.catalog(),
          attach.name(),
          attach.type(),
          attach.uri(),
          attach.options(),
          session.config());
      return empty();
    }
    if (statement instanceof Statement.Detach detach) {
      if (!CatalogAttachments.detach(session.catalog(), detach.name()) && !detach.ifExists()) {
        throw new dev.quiver.binding.errors.UnknownCatalogException(
            detach.name(),
            Suggestions.closest(detach.name(), session.catalog().attached().keySet()));
      }
      return empty();
    }
    if (statement instanceof Statement.Describe describe && describe.path().size() > 1) {
      List<String> path = describe.path();
      if (path.size() != 3) {
        throw new UnknownTableException(
            describe.name(), List.of("catalog.namespace.table for a table of a catalog"));
      }
      dev.quiver.binding.datasource.TableCatalog cat = session.catalog().attached(path.get(0));
      TableProvider provider = cat.table(path.get(1), path.get(2));
      if (provider == null) {
        Catalog.checkNamespace(path.get(0), cat, path.get(1));
        throw new UnknownTableException(
            describe.name(), Suggestions.closest(path.get(2), cat.tables(path.get(1))));
      }
      return catalogQuery(InformationSchema.describeSql(describe.name(), provider));
    }
    if (statement instanceof Statement.DescribeQuery describe) {
      org.apache.arrow.vector.types.pojo.Schema schema =
          session.planning(() -> plan(describe.query())).schema();
      return catalogQuery(InformationSchema.describeSql(schema));
    }
    if (statement instanceof Statement.Describe describe) {
      String name = describe.name();
      if (!exists(name)) {
        throw new UnknownTableException(name, Suggestions.closest(name, session.catalog().names()));
      }
      return catalogQuery(InformationSchema.describeSql(session.catalog(), name));
    }
    Statement.SqlText sql = ((Statement.Other) statement).sql();
    return session.planning(() -> statement(sql, false));
  }

  /**
   * Runs or plans the Calcite statement {@code sql}; {@code copied} when it is COPY's {@code
   * (query)}, which must not change data.
   */
  private DataFrame statement(Statement.SqlText sql, boolean copied) {
    SqlPipeline pipeline = session.pipeline();
    SqlNode node = parse(sql);
    if (copied && !(node instanceof SqlExplain) && !node.getKind().belongsTo(SqlKind.QUERY)) {
      // StatementParser refuses INSERT, UPDATE and DELETE by their leading word; this also
      // catches them however written.
      throw new SqlParseException(
          "SQL parse error: COPY (...) takes a query, EXPLAIN, DESCRIBE or SHOW TABLES, not "
              + node.getKind()
              + ": it would run it and copy no rows; run it on its own",
          sql.line(),
          sql.column(),
          null);
    }
    if (node instanceof SqlInsert insert) {
      return countFrame(new TableWrites(session).insert(insert));
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
      setOption(String.join(".", set.getName().names), unquote(set.getValue().toString()));
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

  /**
   * SQL's SET: a setting naming a local path (the spill directory) is held to the process's allowed
   * paths, as SQL's own files are, so that a server's client cannot make it write elsewhere.
   */
  private void setOption(String key, String value) {
    boolean localPath =
        SettingsRegistry.find(SessionConfig.canonical(key)).map(Setting::localPath).orElse(false);
    if (localPath && LocalFileAccess.restricted() && !value.isBlank()) {
      try {
        LocalFileAccess.check(Path.of(value.strip()));
      } catch (ObjectStoreException | InvalidPathException e) {
        throw new ObjectStoreException(
            ObjectStoreException.Reason.NOT_ALLOWED,
            "Setting "
                + SessionConfig.canonical(key)
                + " names a local path, which a server's clients may set only under its allowed"
                + " paths ("
                + LocalFileAccess.SETTING
                + "); "
                + value.strip()
                + " is not (its operator sets it with --set at start)");
      }
    }
    session.config().set(key, value);
  }

  private DataFrame explain(Statement.Explain explain) {
    DataFrameImpl df = session.planning(() -> plan(explain.query()));
    return explainFrame(df, explain.analyze());
  }

  /** Plans the query {@code sql}, parsed where it stands in the user's text. */
  private DataFrameImpl plan(Statement.SqlText sql) {
    return new DataFrameImpl(session, session.pipeline().toRel(parse(sql)));
  }

  /**
   * Parses {@code sql} where it stands in the user's text.
   *
   * @throws dev.quiver.binding.errors.UnboundParametersException when it has {@code ?} parameters:
   *     they are bound (replaced by literals) before a statement gets here
   */
  private SqlNode parse(Statement.SqlText sql) {
    SqlNode node = session.pipeline().parse(sql.text(), sql.line(), sql.column());
    SqlParameters.requireBound(node);
    return node;
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

  private DataFrame createExternal(Statement.CreateExternalTable create) {
    String name = create.name();
    String format = create.format();
    String path = create.location();
    if (exists(name)) {
      if (create.ifNotExists()) {
        return empty();
      }
      throw alreadyExists(name);
    }
    Map<String, String> options = create.options();
    if (!options.isEmpty() && !format.equals("CSV")) {
      throw new QuiverException(
          "CREATE EXTERNAL TABLE "
              + name
              + ": OPTIONS are for CSV tables; "
              + format
              + " has none");
    }
    boolean declared = !create.columns().isEmpty();
    TableProvider provider =
        switch (format) {
          case "PARQUET" -> ParquetTable.open(path, session.config());
          case "CSV" -> {
            CsvOptions csv = CsvOptions.fromSettings(options);
            if (declared) {
              // Declared columns type the CSV columns of those names; the rest are inferred.
              for (Field f : session.planning(() -> columns(create.columns())).getFields()) {
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
    if (declared) {
      Schema schema = columns(create.columns());
      List<String> actual = provider.schema().getFields().stream().map(Field::getName).toList();
      for (Field f : schema.getFields()) {
        if (actual.stream().noneMatch(a -> a.equalsIgnoreCase(f.getName()))) {
          throw new UnknownColumnException(f.getName(), Suggestions.closest(f.getName(), actual));
        }
      }
    }
    session.catalog().putTable(new Catalog.TableEntry(name, provider, true));
    return empty();
  }

  private DataFrame createTable(Statement.CreateTable create) {
    String name = create.name();
    if (exists(name) && !create.orReplace()) {
      if (create.ifNotExists()) {
        return empty();
      }
      throw alreadyExists(name);
    }
    TableDefinitions.Definition def =
        session.planning(
            () ->
                TableDefinitions.parse(name, create.elements(), this::sqlType, this::checkDefault));
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

  /** The tables of {@code SHOW TABLES FROM catalog[.namespace]}. */
  private List<String> catalogTables(List<String> from) {
    dev.quiver.binding.datasource.TableCatalog cat = session.catalog().attached(from.get(0));
    List<String> out = new ArrayList<>();
    if (from.size() == 2) {
      Catalog.checkNamespace(from.get(0), cat, from.get(1));
      out.addAll(cat.tables(from.get(1)));
    } else {
      for (String ns : cat.namespaces()) {
        for (String t : cat.tables(ns)) {
          out.add(ns + "." + t);
        }
      }
    }
    return out;
  }

  private DataFrame catalogQuery(String sql) {
    return session.planning(
        () -> new DataFrameImpl(session, session.pipeline().toRel(session.pipeline().parse(sql))));
  }

  private DataFrame createTableAs(Statement.CreateTableAs create) {
    String name = create.name();
    if (exists(name) && !create.orReplace()) {
      if (create.ifNotExists()) {
        return empty();
      }
      throw alreadyExists(name);
    }
    DataFrameImpl df = session.planning(() -> plan(create.query()));
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

  /**
   * CREATE TABLE of an attached catalog's table: from a column list, or from a query whose rows are
   * cast to the types the catalog stores and written by the query's tasks (the columns are
   * nullable, as the query may later be rerun with NULLs). Returns the rows written for AS query.
   */
  private DataFrame createCatalogTable(Statement.CreateCatalogTable create) {
    List<String> path = create.path();
    String name = String.join(".", path);
    WritableTableCatalog cat = CatalogTableWrites.writable(session, path, "CREATE TABLE");
    if (cat.table(path.get(1), path.get(2)) != null) {
      if (create.ifNotExists()) {
        return empty();
      }
      throw new QuiverException("Table '" + name + "' already exists; DROP it first");
    }
    if (create.query() == null) {
      TableDefinitions.Definition def =
          session.planning(
              () ->
                  TableDefinitions.parse(
                      name, create.elements(), this::sqlType, this::checkDefault));
      if (!def.constraints().keys().isEmpty() || !def.constraints().defaults().isEmpty()) {
        throw new UnsupportedFeatureException(
            "CREATE TABLE "
                + name
                + ": keys and DEFAULT are for session tables; a catalog's table takes columns,"
                + " types and NOT NULL");
      }
      Schema stored = cat.storedSchema(def.schema());
      cat.createWrite(path.get(1), path.get(2), stored, create.partitionBy()).commit(List.of());
      return empty();
    }
    DataFrameImpl df = session.planning(() -> plan(create.query()));
    List<Field> nullable = new ArrayList<>();
    for (Field f : df.schema().getFields()) {
      nullable.add(new Field(f.getName(), FieldType.nullable(f.getType()), f.getChildren()));
    }
    Schema stored = cat.storedSchema(new Schema(nullable));
    DataFrameImpl rows =
        session.planning(
            () -> {
              SqlPipeline p = session.pipeline();
              RelDataType want = TypeMapping.toRelRowType(stored, p.typeFactory());
              RelBuilder b = p.relBuilder().push(df.rel());
              List<org.apache.calcite.rex.RexNode> exprs = new ArrayList<>();
              for (RelDataTypeField f : want.getFieldList()) {
                exprs.add(
                    p.cluster().getRexBuilder().makeCast(f.getType(), b.field(f.getIndex()), true));
              }
              return new DataFrameImpl(
                  session, b.project(exprs, want.getFieldNames(), true).build());
            });
    return countFrame(
        CatalogTableWrites.write(
            session,
            rows,
            cat.createWrite(path.get(1), path.get(2), stored, create.partitionBy())));
  }

  private void replaceTable(String name, MemoryTable table) {
    Object old = session.catalog().putTable(new Catalog.TableEntry(name, table, true));
    Catalog.closeIfOwned(old);
  }

  private DataFrame createView(Statement.CreateView create) {
    String name = create.name();
    if (exists(name) && !create.orReplace()) {
      throw alreadyExists(name);
    }
    Statement.SqlText query = create.query();
    List<String> cols = create.columns();
    Catalog.ViewEntry view =
        session.planning(
            () -> {
              SqlPipeline p = session.pipeline();
              SqlNode q = parse(query);
              RelDataType rowType = p.validate(q).rowType();
              String sql = query.text();
              if (!cols.isEmpty()) {
                if (cols.size() != rowType.getFieldCount()) {
                  throw new QuiverException(
                      "CREATE VIEW "
                          + name
                          + " names "
                          + cols.size()
                          + " columns but its query returns "
                          + rowType.getFieldCount());
                }
                List<String> quoted = cols.stream().map(StatementExecutor::quote).toList();
                sql =
                    "SELECT * FROM ("
                        + query.text()
                        + "\n) AS "
                        + quote(name)
                        + " ("
                        + String.join(", ", quoted)
                        + ")";
                rowType = p.validate(p.parse(sql)).rowType();
              }
              return new Catalog.ViewEntry(name, sql, null, rowType);
            });
    Catalog.closeIfOwned(session.catalog().putView(view));
    return empty();
  }

  private DataFrame drop(Statement.Drop drop) {
    String name = drop.name();
    boolean view = drop.view();
    Catalog catalog = session.catalog();
    boolean present = view ? catalog.view(name) != null : catalog.table(name) != null;
    if (!present) {
      if (drop.ifExists()) {
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

  /** CREATE EXTERNAL TABLE's declared columns as an Arrow schema. */
  private Schema columns(List<Statement.ColumnType> columns) {
    List<Field> fields = new ArrayList<>();
    for (Statement.ColumnType c : columns) {
      boolean nullable = !c.notNull();
      RelDataType type = sqlType(c.name(), c.type(), nullable);
      fields.add(
          new Field(c.name(), new FieldType(nullable, TypeMapping.toArrow(type), null), null));
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

  // ---- COPY ---------------------------------------------------------------------------------

  /** The Parquet layout COPY's options ask for: COMPRESSION and ROW_GROUP_SIZE (rows). */
  private static ParquetWriteOptions parquetOptions(Map<String, String> options) {
    ParquetWriteOptions o = ParquetWriteOptions.DEFAULT;
    for (Map.Entry<String, String> e : options.entrySet()) {
      switch (e.getKey()) {
        case "compression", "codec" -> {
          try {
            o = o.withCodec(ParquetCodec.parse(e.getValue()));
          } catch (IllegalArgumentException bad) {
            throw new QuiverException("COPY ... (FORMAT PARQUET): " + bad.getMessage(), bad);
          }
        }
        case "row_group_size" -> {
          int rows;
          try {
            rows = Integer.parseInt(e.getValue().trim());
          } catch (NumberFormatException bad) {
            rows = 0;
          }
          if (rows <= 0) {
            throw new QuiverException(
                "COPY ... (FORMAT PARQUET): ROW_GROUP_SIZE is rows per row group, a positive"
                    + " integer; got '"
                    + e.getValue()
                    + "'");
          }
          o = o.withRowGroupRows(rows);
        }
        default ->
            throw new QuiverException(
                "COPY ... (FORMAT PARQUET): unknown option "
                    + e.getKey()
                    + "; use COMPRESSION (uncompressed, snappy, gzip, zstd) and ROW_GROUP_SIZE");
      }
    }
    return o;
  }

  /**
   * COPY's CSV DELIMITER (default ','); checks that no option but DELIMITER and HEADER is given.
   */
  private static char csvDelimiter(Map<String, String> options) {
    char delimiter = ',';
    for (Map.Entry<String, String> e : options.entrySet()) {
      switch (e.getKey()) {
        case "delimiter", "delim", "sep" -> {
          String d = e.getValue().equals("\\t") ? "\t" : e.getValue();
          if (d.length() != 1) {
            throw new QuiverException("COPY: DELIMITER must be one character, got '" + d + "'");
          }
          delimiter = d.charAt(0);
        }
        case "header" -> {}
        default ->
            throw new QuiverException(
                "COPY ... (FORMAT CSV): unknown option "
                    + e.getKey()
                    + "; use DELIMITER and HEADER");
      }
    }
    return delimiter;
  }

  /** COPY's CSV HEADER (default true). */
  private static boolean csvHeader(Map<String, String> options) {
    String h = options.get("header");
    return h == null || isTrue(h);
  }

  private static boolean isTrue(String option) {
    return !option.equalsIgnoreCase("false") && !option.equals("0");
  }

  /**
   * {@code PARTITION_BY (a, b)} or {@code PARTITION_BY a}: the column names, unquoted ({@code "A
   * b"} keeps its case and spaces).
   */
  private static List<String> partitionColumns(String option) {
    String list = option.strip();
    if (list.startsWith("(") && list.endsWith(")")) {
      list = list.substring(1, list.length() - 1);
    }
    List<String> names = new ArrayList<>();
    for (String part : list.split(",")) {
      String name = part.strip();
      if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
        name = name.substring(1, name.length() - 1).replace("\"\"", "\"");
      }
      if (name.isEmpty()) {
        throw new QuiverException(
            "COPY ... (PARTITION_BY " + option + "): name the columns, PARTITION_BY (a, b)");
      }
      names.add(name);
    }
    return names;
  }

  /** What COPY does with a target folder holding files: OVERWRITE_OR_IGNORE, OVERWRITE. */
  private static PartitionedWrite.Existing existing(
      Map<String, String> options, boolean partitioned) {
    PartitionedWrite.Existing existing = PartitionedWrite.Existing.FAIL;
    for (String key : List.of("overwrite_or_ignore", "overwrite")) {
      String v = options.remove(key);
      if (v == null || !isTrue(v)) {
        continue;
      }
      if (!partitioned) {
        throw new QuiverException(
            "COPY ... ("
                + key.toUpperCase(Locale.ROOT)
                + ") is for a PARTITION_BY folder; COPY to a single file replaces it anyway");
      }
      existing =
          key.equals("overwrite")
              ? PartitionedWrite.Existing.OVERWRITE
              : PartitionedWrite.Existing.OVERWRITE_OR_IGNORE;
    }
    return existing;
  }

  /**
   * {@code COPY (query) TO 'path' (FORMAT PARQUET [, COMPRESSION zstd] [, ROW_GROUP_SIZE n] | CSV
   * [, DELIMITER ';'] [, HEADER false])} and {@code COPY table TO ...}: runs the query (on the
   * cluster for a distributed session) and writes its rows as one file at {@code path}, a local
   * path or {@code s3://bucket/key}, replacing it, or with {@code PARTITION_BY (a, b)} as Hive
   * folders under {@code path} ({@link PartitionedWrite}); the format comes from FORMAT or the
   * file's extension. Returns the rows written.
   */
  private DataFrame copy(Statement.Copy copy) {
    String path = copy.path();
    Map<String, String> options = new LinkedHashMap<>(copy.options());
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
    List<String> partitionBy =
        options.containsKey("partition_by")
            ? partitionColumns(options.remove("partition_by"))
            : List.of();
    PartitionedWrite.Existing existing = existing(options, !partitionBy.isEmpty());
    boolean writePartitionColumns =
        options.containsKey("write_partition_columns")
            && isTrue(options.remove("write_partition_columns"));
    DataFrame df =
        copy.query() instanceof Statement.Other other
            ? session.planning(() -> statement(other.sql(), true))
            : execute(copy.query());
    long rows;
    try (ArrowReader reader = df.executeStream()) {
      if (!partitionBy.isEmpty()) {
        PartitionedWrite.FileFormat files =
            switch (format) {
              case "parquet" -> PartitionedWrite.parquet(parquetOptions(options));
              case "csv" -> PartitionedWrite.csv(csvDelimiter(options), csvHeader(options));
              default ->
                  throw new QuiverException(
                      "COPY ... TO: unknown FORMAT " + format + "; use PARQUET or CSV");
            };
        rows =
            PartitionedWrite.write(
                reader,
                path,
                session.config(),
                partitionBy,
                writePartitionColumns,
                files,
                existing);
        return countFrame(rows);
      }
      switch (format) {
        case "parquet" -> {
          rows =
              FileWriters.writeParquetFile(reader, path, session.config(), parquetOptions(options));
        }
        case "csv" -> {
          rows =
              FileWriters.writeCsvFile(
                  reader, path, session.config(), csvDelimiter(options), csvHeader(options));
        }
        default ->
            throw new QuiverException(
                "COPY ... TO: unknown FORMAT " + format + "; use PARQUET or CSV");
      }
    } catch (IOException e) {
      throw new QuiverException("COPY to " + path + " failed: " + e.getMessage(), e);
    }
    return countFrame(rows);
  }

  // ---- results and helpers ------------------------------------------------------------------

  /** One row, one BIGINT column {@code count}: the rows a statement wrote. */
  private DataFrame countFrame(long rows) {
    return session.planning(
        () -> {
          SqlPipeline p = session.pipeline();
          RelDataType bigint = p.typeFactory().createSqlType(SqlTypeName.BIGINT);
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

  private static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** The value a SET through Calcite's grammar gives: its text, a literal's quotes removed. */
  private static String unquote(String value) {
    String v = value.strip();
    if (v.length() >= 2
        && ((v.startsWith("'") && v.endsWith("'")) || (v.startsWith("\"") && v.endsWith("\"")))) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }
}
