package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.MemoryTable;
import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableConstraints;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.logical.TypeMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * The catalog as tables: {@code information_schema.tables} and {@code information_schema.columns}
 * (the SQL standard's names and DuckDB's type names), and the rows of {@code DESCRIBE t} and {@code
 * SHOW TABLES}. Each use is replaced, before validation, by a VALUES list of the catalog as it is
 * then, so it plans, ships to a cluster and runs like any other query.
 */
final class InformationSchema {
  static final String SCHEMA = "information_schema";
  private static final String CATALOG_NAME = "quiver";
  private static final String SCHEMA_NAME = "main";

  private InformationSchema() {}

  /**
   * Replaces {@code information_schema.tables|columns} in the FROM clauses of {@code statement}.
   */
  static void expand(SqlNode statement, Catalog catalog) {
    statement.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select && select.getFrom() != null) {
              select.setFrom(replaced(select.getFrom(), catalog));
            }
            if (call instanceof SqlJoin join) {
              join.setLeft(replaced(join.getLeft(), catalog));
              join.setRight(replaced(join.getRight(), catalog));
            }
            return super.visit(call);
          }
        });
  }

  private static SqlNode replaced(SqlNode from, Catalog catalog) {
    if (from instanceof SqlIdentifier id) {
      String table = tableOf(id);
      return table == null
          ? from
          : SqlStdOperatorTable.AS.createCall(
              id.getParserPosition(),
              query(table, catalog),
              new SqlIdentifier(table, id.getParserPosition()));
    }
    if (from.getKind() == SqlKind.AS
        && ((SqlCall) from).operand(0) instanceof SqlIdentifier id
        && tableOf(id) != null) {
      ((SqlCall) from).setOperand(0, query(tableOf(id), catalog));
    }
    return from;
  }

  /** {@code tables} or {@code columns} when {@code id} is {@code information_schema.X}. */
  private static String tableOf(SqlIdentifier id) {
    if (id.names.size() != 2 || !id.names.get(0).equalsIgnoreCase(SCHEMA)) {
      return null;
    }
    String t = id.names.get(1).toLowerCase(Locale.ROOT);
    return t.equals("tables") || t.equals("columns") ? t : null;
  }

  private static SqlNode query(String table, Catalog catalog) {
    String sql =
        "SELECT * FROM "
            + (table.equals("tables") ? tablesSql(catalog) : columnsSql(catalog, null));
    try {
      return SqlParser.create(sql, SqlPipeline.PARSER_CONFIG).parseQuery();
    } catch (SqlParseException e) {
      throw new IllegalStateException("information_schema." + table + " did not parse: " + sql, e);
    }
  }

  /** The rows of {@code information_schema.tables}, as a FROM item. */
  static String tablesSql(Catalog catalog) {
    List<List<String>> rows = new ArrayList<>();
    for (String name : catalog.names()) {
      boolean view = catalog.view(name) != null;
      rows.add(
          List.of(
              text(CATALOG_NAME),
              text(SCHEMA_NAME),
              text(name),
              text(view ? "VIEW" : "BASE TABLE")));
    }
    forEachCatalogTable(
        catalog,
        (cat, ns, table) ->
            rows.add(List.of(text(cat), text(ns), text(table), text("BASE TABLE"))));
    return values(
        rows,
        List.of("table_catalog", "table_schema", "table_name", "table_type"),
        List.of("VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR"));
  }

  /**
   * The rows of {@code information_schema.columns} (of {@code only}, when not null), as a FROM
   * item.
   */
  static String columnsSql(Catalog catalog, String only) {
    List<List<String>> rows = new ArrayList<>();
    for (Column c : columns(catalog, only)) {
      rows.add(
          List.of(
              text(c.catalog() == null ? CATALOG_NAME : c.catalog()),
              text(c.schema() == null ? SCHEMA_NAME : c.schema()),
              text(c.table()),
              text(c.name()),
              Integer.toString(c.position()),
              text(c.defaultText()),
              text(c.nullable() ? "YES" : "NO"),
              text(c.type())));
    }
    return values(
        rows,
        List.of(
            "table_catalog",
            "table_schema",
            "table_name",
            "column_name",
            "ordinal_position",
            "column_default",
            "is_nullable",
            "data_type"),
        List.of(
            "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "VARCHAR", "VARCHAR",
            "VARCHAR"));
  }

  /** The rows of {@code DESCRIBE table} (DuckDB's columns), as a query; the table must exist. */
  static String describeSql(Catalog catalog, String table) {
    return describeSql(columns(catalog, table));
  }

  /** The rows of {@code DESCRIBE catalog.namespace.table}, as a query. */
  static String describeSql(String name, TableProvider provider) {
    List<Column> columns = new ArrayList<>();
    providerColumns(null, null, name, provider, columns);
    return describeSql(columns);
  }

  /** The rows of {@code DESCRIBE SELECT ...}: the columns of a query's {@code schema}. */
  static String describeSql(org.apache.arrow.vector.types.pojo.Schema schema) {
    List<Column> columns = new ArrayList<>();
    List<Field> fields = schema.getFields();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      columns.add(
          new Column(
              null, null, null, f.getName(), i + 1, typeName(f), f.isNullable(), null, null));
    }
    return describeSql(columns);
  }

  private static String describeSql(List<Column> columns) {
    List<List<String>> rows = new ArrayList<>();
    for (Column c : columns) {
      rows.add(
          List.of(
              text(c.name()),
              text(c.type()),
              text(c.nullable() ? "YES" : "NO"),
              text(c.key()),
              text(c.defaultText()),
              text(null),
              Integer.toString(c.position())));
    }
    return "SELECT column_name, column_type, \"null\", \"key\", \"default\", extra FROM "
        + values(
            rows,
            List.of("column_name", "column_type", "null", "key", "default", "extra", "position"),
            List.of("VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER"))
        + " ORDER BY position";
  }

  /**
   * The rows of {@code SHOW TABLES} (one column {@code name}, sorted), as a query: the session's
   * tables and views, and the attached catalogs' tables as {@code catalog.namespace.table}.
   */
  static String showTablesSql(Catalog catalog) {
    List<String> names = new ArrayList<>(catalog.names());
    forEachCatalogTable(catalog, (cat, ns, table) -> names.add(cat + "." + ns + "." + table));
    return showTablesSql(names);
  }

  /** The rows of {@code SHOW TABLES FROM ...}: {@code names}, sorted, as a query. */
  static String showTablesSql(List<String> names) {
    List<List<String>> rows = new ArrayList<>();
    for (String name : names) {
      rows.add(List.of(text(name)));
    }
    return "SELECT name FROM "
        + values(rows, List.of("name"), List.of("VARCHAR"))
        + " ORDER BY name";
  }

  /**
   * The rows of {@code SHOW ALL} ({@code name} null) or {@code SHOW name}: columns {@code name} and
   * {@code value}, the value as set or the setting's default, a secret's value masked.
   *
   * @throws dev.quiver.binding.errors.UnknownSettingException for a name no module defines
   */
  static String showSettingsSql(dev.quiver.binding.settings.SessionConfig config, String name) {
    java.util.SortedMap<String, String> settings = new TreeMap<>();
    if (name != null) {
      settings.put(dev.quiver.binding.settings.SessionConfig.canonical(name), config.shown(name));
    } else {
      dev.quiver.binding.settings.SettingsRegistry.all()
          .forEach((k, s) -> settings.put(k, s.defaultText()));
      settings.putAll(config.options());
      settings.replaceAll(dev.quiver.binding.settings.SessionConfig::masked);
    }
    List<List<String>> rows = new ArrayList<>();
    settings.forEach((k, v) -> rows.add(List.of(text(k), text(v))));
    return "SELECT name, value FROM "
        + values(rows, List.of("name", "value"), List.of("VARCHAR", "VARCHAR"))
        + " ORDER BY name";
  }

  /** Receives one table of an attached catalog. */
  private interface CatalogTables {
    void accept(String catalog, String namespace, String table);
  }

  private static void forEachCatalogTable(Catalog catalog, CatalogTables out) {
    for (Map.Entry<String, TableCatalog> e : new TreeMap<>(catalog.attached()).entrySet()) {
      for (String ns : e.getValue().namespaces()) {
        for (String table : e.getValue().tables(ns)) {
          out.accept(e.getKey(), ns, table);
        }
      }
    }
  }

  private record Column(
      String catalog,
      String schema,
      String table,
      String name,
      int position,
      String type,
      boolean nullable,
      String key,
      String defaultText) {}

  private static List<Column> columns(Catalog catalog, String only) {
    List<Column> out = new ArrayList<>();
    for (String name : catalog.names()) {
      if (only != null && !name.equalsIgnoreCase(only)) {
        continue;
      }
      Catalog.TableEntry table = catalog.table(name);
      if (table != null) {
        providerColumns(null, null, name, table.provider(), out);
        continue;
      }
      Catalog.ViewEntry view = catalog.view(name);
      if (view != null && view.rowType() != null) {
        List<RelDataTypeField> fields = view.rowType().getFieldList();
        for (int i = 0; i < fields.size(); i++) {
          RelDataTypeField f = fields.get(i);
          out.add(
              new Column(
                  null,
                  null,
                  name,
                  f.getName(),
                  i + 1,
                  typeName(TypeMapping.toArrowField(f.getName(), f.getType())),
                  f.getType().isNullable(),
                  null,
                  null));
        }
      }
    }
    if (only == null) {
      forEachCatalogTable(
          catalog,
          (cat, ns, t) -> {
            TableProvider provider = catalog.attached().get(cat).table(ns, t);
            if (provider != null) {
              providerColumns(cat, ns, t, provider, out);
            }
          });
    }
    return out;
  }

  private static void providerColumns(
      String cat, String schema, String name, TableProvider provider, List<Column> out) {
    TableConstraints constraints =
        provider instanceof MemoryTable m ? m.constraints() : TableConstraints.NONE;
    List<Field> fields = provider.schema().getFields();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      out.add(
          new Column(
              cat,
              schema,
              name,
              f.getName(),
              i + 1,
              typeName(f),
              f.isNullable(),
              key(constraints, f.getName()),
              constraints.defaults().get(f.getName())));
    }
  }

  /** {@code PRI} for a PRIMARY KEY column, {@code UNI} for a UNIQUE one (DuckDB's DESCRIBE). */
  private static String key(TableConstraints constraints, String column) {
    String key = null;
    for (TableConstraints.Key k : constraints.keys()) {
      if (k.columns().contains(column)) {
        if (k.primary()) {
          return "PRI";
        }
        key = "UNI";
      }
    }
    return key;
  }

  /**
   * The column's type as DuckDB writes it, nested types with their parts: {@code STRUCT(a BIGINT, b
   * VARCHAR)}, {@code BIGINT[]}, {@code MAP(VARCHAR, BIGINT)}.
   */
  static String typeName(Field f) {
    ArrowType t = f.getType();
    if (t instanceof ArrowType.Struct) {
      StringBuilder b = new StringBuilder("STRUCT(");
      for (int i = 0; i < f.getChildren().size(); i++) {
        Field c = f.getChildren().get(i);
        b.append(i > 0 ? ", " : "").append(fieldName(c.getName())).append(' ').append(typeName(c));
      }
      return b.append(')').toString();
    }
    if ((t instanceof ArrowType.List
            || t instanceof ArrowType.LargeList
            || t instanceof ArrowType.FixedSizeList)
        && f.getChildren().size() == 1) {
      return typeName(f.getChildren().get(0)) + "[]";
    }
    if (t instanceof ArrowType.Map
        && f.getChildren().size() == 1
        && f.getChildren().get(0).getChildren().size() == 2) {
      List<Field> kv = f.getChildren().get(0).getChildren();
      return "MAP(" + typeName(kv.get(0)) + ", " + typeName(kv.get(1)) + ")";
    }
    return typeName(t);
  }

  /** A struct field's name, double-quoted unless it is a plain lower-case identifier. */
  private static String fieldName(String name) {
    return name.matches("[a-z_][a-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** The type's name as DuckDB and the SQL standard write it. */
  static String typeName(ArrowType t) {
    if (t instanceof ArrowType.Int i) {
      return switch (i.getBitWidth()) {
        case 8 -> "TINYINT";
        case 16 -> "SMALLINT";
        case 32 -> "INTEGER";
        default -> "BIGINT";
      };
    }
    if (t instanceof ArrowType.FloatingPoint f) {
      return f.getPrecision() == FloatingPointPrecision.DOUBLE ? "DOUBLE" : "FLOAT";
    }
    if (t instanceof ArrowType.Decimal d) {
      return "DECIMAL(" + d.getPrecision() + "," + d.getScale() + ")";
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return "VARCHAR";
    }
    if (t instanceof ArrowType.Bool) {
      return "BOOLEAN";
    }
    if (t instanceof ArrowType.Date) {
      return "DATE";
    }
    if (t instanceof ArrowType.Timestamp ts) {
      return ts.getTimezone() == null ? "TIMESTAMP" : "TIMESTAMP WITH TIME ZONE";
    }
    if (t instanceof ArrowType.Time) {
      return "TIME";
    }
    if (t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary) {
      return "BLOB";
    }
    if (t instanceof ArrowType.Interval) {
      return "INTERVAL";
    }
    return t.toString().toUpperCase(Locale.ROOT);
  }

  private static String text(String s) {
    return s == null ? "CAST(NULL AS VARCHAR)" : "CAST('" + s.replace("'", "''") + "' AS VARCHAR)";
  }

  /** {@code (VALUES ...) AS v(columns)}, or an empty query of those columns. */
  private static String values(List<List<String>> rows, List<String> columns, List<String> types) {
    List<String> quoted = columns.stream().map(c -> "\"" + c + "\"").toList();
    if (rows.isEmpty()) {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        items.add("CAST(NULL AS " + types.get(i) + ") AS " + quoted.get(i));
      }
      return "(SELECT " + String.join(", ", items) + " FROM (VALUES (0)) AS e(x) WHERE 1 = 0) AS v";
    }
    List<String> tuples = new ArrayList<>();
    for (List<String> row : rows) {
      tuples.add("(" + String.join(", ", row) + ")");
    }
    return "(VALUES " + String.join(", ", tuples) + ") AS v(" + String.join(", ", quoted) + ")";
  }
}
