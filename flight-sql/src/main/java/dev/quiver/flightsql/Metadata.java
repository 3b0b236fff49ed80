package dev.quiver.flightsql;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.UnknownTableException;
import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The catalog as Flight SQL's metadata results: tables and their schemas, table types, type info
 * and server info. Quiver has one flat namespace, so there are no catalogs or schemas (the JDBC
 * driver then lists tables directly, as for SQLite), and no keys.
 */
final class Metadata {
  static final String TABLE = "TABLE";
  static final String VIEW = "VIEW";

  private static final String[] KEYWORDS = {
    "ANALYZE", "CSV", "EXPLAIN", "EXTERNAL", "LOCATION", "PARQUET", "STORED"
  };

  private final SqlInfoBuilder sqlInfo;

  Metadata(String version) {
    this.sqlInfo =
        new SqlInfoBuilder()
            .withFlightSqlServerName("Quiver")
            .withFlightSqlServerVersion(version)
            .withFlightSqlServerArrowVersion(arrowVersion())
            .withFlightSqlServerReadOnly(false)
            .withFlightSqlServerSql(true)
            .withFlightSqlServerSubstrait(false)
            .withFlightSqlServerTransaction(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE)
            .withFlightSqlServerCancel(true)
            .withSqlIdentifierQuoteChar("\"")
            .withSqlIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_LOWERCASE)
            .withSqlSearchStringEscape("\\")
            .withSqlExtraNameCharacters("")
            .withSqlDdlTable(true)
            .withSqlDdlSchema(false)
            .withSqlDdlCatalog(false)
            .withSqlSchemaTerm("schema")
            .withSqlCatalogTerm("catalog")
            .withSqlProcedureTerm("procedure")
            .withSqlSupportsColumnAliasing(true)
            .withSqlNullPlusNullIsNull(true)
            .withSqlSupportsTableCorrelationNames(true)
            .withSqlSupportsExpressionsInOrderBy(true)
            .withSqlSupportsLikeEscapeClause(true)
            .withSqlSupportsNonNullableColumns(true)
            .withSqlCorrelatedSubqueriesSupported(true)
            .withSqlTransactionsSupported(false)
            .withSqlBatchUpdatesSupported(true)
            .withSqlSavepointsSupported(false)
            .withSqlNamedParametersSupported(false)
            .withSqlStoredProceduresSupported(false)
            .withSqlSelectForUpdateSupported(false)
            .withSqlAllTablesAreSelectable(true)
            .withSqlKeywords(KEYWORDS);
  }

  private static String arrowVersion() {
    String v = Schema.class.getPackage().getImplementationVersion();
    return v == null ? "18" : v;
  }

  /** Streams the requested server info (all of it when {@code infos} is empty). */
  void sqlInfo(List<Integer> infos, ServerStreamListener listener) {
    sqlInfo.send(infos, listener);
  }

  /** Writes the tables matching {@code request} into {@code root}. */
  static void tables(SessionContext catalog, CommandGetTables request, VectorSchemaRoot root) {
    boolean includeSchema = request.getIncludeSchema();
    Pattern name =
        request.hasTableNameFilterPattern() ? like(request.getTableNameFilterPattern()) : null;
    Pattern schema =
        request.hasDbSchemaFilterPattern() ? like(request.getDbSchemaFilterPattern()) : null;
    List<String> types =
        request.getTableTypesList().stream().map(t -> t.toUpperCase(Locale.ROOT)).toList();
    Rows rows = new Rows(root);
    // The session's own tables have no catalog or schema: a filter asking for one skips them.
    boolean sessionTables =
        !(request.hasCatalog() && !request.getCatalog().isEmpty())
            && (schema == null || schema.matcher("").matches());
    for (String table : sessionTables ? catalog.tableNames() : List.<String>of()) {
      if (name != null && !name.matcher(table).matches()) {
        continue;
      }
      String type = isView(catalog, table) ? VIEW : TABLE;
      if (!types.isEmpty() && !types.contains(type)) {
        continue;
      }
      List<Object> row = new ArrayList<>(Arrays.asList(null, null, table, type));
      if (includeSchema) {
        row.add(catalog.table(table).schema().serializeAsMessage());
      }
      rows.add(row.toArray());
    }
    if (types.isEmpty() || types.contains(TABLE)) {
      for (String cat : catalog.catalogNames()) {
        if (request.hasCatalog() && !request.getCatalog().equalsIgnoreCase(cat)) {
          continue;
        }
        TableCatalog tables = catalog.catalog(cat);
        for (String ns : tables.namespaces()) {
          if (schema != null && !schema.matcher(ns).matches()) {
            continue;
          }
          for (String table : tables.tables(ns)) {
            if (name != null && !name.matcher(table).matches()) {
              continue;
            }
            List<Object> row = new ArrayList<>(Arrays.asList(cat, ns, table, TABLE));
            if (includeSchema) {
              TableProvider provider = tables.table(ns, table);
              row.add(provider == null ? null : provider.schema().serializeAsMessage());
            }
            rows.add(row.toArray());
          }
        }
      }
    }
    rows.finish();
  }

  /** Writes the attached catalogs' names into {@code root} (GetCatalogs). */
  static void catalogs(SessionContext catalog, VectorSchemaRoot root) {
    Rows rows = new Rows(root);
    for (String cat : catalog.catalogNames()) {
      rows.add(cat);
    }
    rows.finish();
  }

  /** Writes the attached catalogs' namespaces into {@code root} (GetDbSchemas). */
  static void schemas(SessionContext catalog, CommandGetDbSchemas request, VectorSchemaRoot root) {
    Pattern schema =
        request.hasDbSchemaFilterPattern() ? like(request.getDbSchemaFilterPattern()) : null;
    Rows rows = new Rows(root);
    for (String cat : catalog.catalogNames()) {
      if (request.hasCatalog() && !request.getCatalog().equalsIgnoreCase(cat)) {
        continue;
      }
      for (String ns : catalog.catalog(cat).namespaces()) {
        if (schema == null || schema.matcher(ns).matches()) {
          rows.add(cat, ns);
        }
      }
    }
    rows.finish();
  }

  private static boolean isView(SessionContext catalog, String table) {
    try {
      catalog.tableProvider(table);
      return false;
    } catch (UnknownTableException e) {
      return true; // registered, but not as a table
    }
  }

  /** Writes the table types into {@code root}. */
  static void tableTypes(VectorSchemaRoot root) {
    Rows rows = new Rows(root);
    rows.add(TABLE);
    rows.add(VIEW);
    rows.finish();
  }

  /** A SQL LIKE pattern ({@code %}, {@code _}, backslash escapes) as a case-insensitive regex. */
  static Pattern like(String pattern) {
    StringBuilder re = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        re.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (c == '%') {
        re.append(".*");
      } else if (c == '_') {
        re.append('.');
      } else {
        re.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(re.toString(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  }

  /** One XDBC type Quiver supports. */
  private record XdbcType(
      String name,
      int dataType,
      Integer columnSize,
      String literalPrefix,
      String literalSuffix,
      List<String> createParams,
      boolean caseSensitive,
      Boolean unsigned,
      boolean fixedPrecScale,
      Integer minScale,
      Integer maxScale,
      Integer radix) {}

  private static final List<XdbcType> TYPES =
      List.of(
          new XdbcType(
              "BOOLEAN", Types.BOOLEAN, 1, null, null, null, false, null, false, null, null, null),
          new XdbcType("TINYINT", Types.TINYINT, 3, null, null, null, false, false, true, 0, 0, 10),
          new XdbcType(
              "SMALLINT", Types.SMALLINT, 5, null, null, null, false, false, true, 0, 0, 10),
          new XdbcType(
              "INTEGER", Types.INTEGER, 10, null, null, null, false, false, true, 0, 0, 10),
          new XdbcType("BIGINT", Types.BIGINT, 19, null, null, null, false, false, true, 0, 0, 10),
          new XdbcType("REAL", Types.REAL, 7, null, null, null, false, false, false, null, null, 2),
          new XdbcType(
              "DOUBLE", Types.DOUBLE, 15, null, null, null, false, false, false, null, null, 2),
          new XdbcType(
              "DECIMAL",
              Types.DECIMAL,
              38,
              null,
              null,
              List.of("precision", "scale"),
              false,
              false,
              true,
              0,
              38,
              10),
          new XdbcType(
              "VARCHAR",
              Types.VARCHAR,
              Integer.MAX_VALUE,
              "'",
              "'",
              null,
              true,
              null,
              false,
              null,
              null,
              null),
          new XdbcType(
              "DATE", Types.DATE, 10, "DATE '", "'", null, false, null, false, null, null, null),
          new XdbcType(
              "TIMESTAMP",
              Types.TIMESTAMP,
              26,
              "TIMESTAMP '",
              "'",
              null,
              false,
              null,
              false,
              0,
              6,
              null));

  /** Writes the types (all, or the one {@code request} names) into {@code root}. */
  static void typeInfo(CommandGetXdbcTypeInfo request, VectorSchemaRoot root) {
    Rows rows = new Rows(root);
    for (XdbcType t : TYPES) {
      if (request.hasDataType() && request.getDataType() != t.dataType()) {
        continue;
      }
      rows.add(
          t.name(),
          t.dataType(),
          t.columnSize(),
          t.literalPrefix(),
          t.literalSuffix(),
          t.createParams(),
          DatabaseMetaData.typeNullable,
          t.caseSensitive(),
          DatabaseMetaData.typeSearchable,
          t.unsigned(),
          t.fixedPrecScale(),
          false,
          t.name(),
          t.minScale(),
          t.maxScale(),
          t.dataType(),
          null,
          t.radix(),
          null);
    }
    rows.finish();
  }

  /** A new root for one of Flight SQL's metadata schemas. */
  static VectorSchemaRoot root(Schema schema, BufferAllocator allocator) {
    return VectorSchemaRoot.create(schema, allocator);
  }

  /** Empty results (catalogs, schemas, keys) have just their schema. */
  static Schema tablesSchema(boolean includeSchema) {
    return includeSchema ? Schemas.GET_TABLES_SCHEMA : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
  }

  /** Appends rows of Java values to a root of strings, ints, booleans, bytes and string lists. */
  private static final class Rows {
    private final VectorSchemaRoot root;
    private int count;

    Rows(VectorSchemaRoot root) {
      this.root = root;
      root.allocateNew();
    }

    void add(Object... values) {
      List<FieldVector> vectors = root.getFieldVectors();
      for (int c = 0; c < vectors.size(); c++) {
        set(vectors.get(c), count, c < values.length ? values[c] : null);
      }
      count++;
    }

    void finish() {
      root.setRowCount(count);
    }

    @SuppressWarnings("unchecked")
    private static void set(FieldVector v, int row, Object value) {
      if (value == null) {
        if (v instanceof ListVector list) {
          list.setNull(row);
        } else {
          v.setNull(row);
        }
        return;
      }
      if (v instanceof VarCharVector s) {
        s.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
      } else if (v instanceof IntVector i) {
        i.setSafe(row, ((Number) value).intValue());
      } else if (v instanceof BitVector b) {
        b.setSafe(row, ((Boolean) value) ? 1 : 0);
      } else if (v instanceof VarBinaryVector b) {
        b.setSafe(row, (byte[]) value);
      } else if (v instanceof ListVector list) {
        UnionListWriter w = list.getWriter();
        w.setPosition(row);
        w.startList();
        for (String s : (List<String>) value) {
          w.writeVarChar(s);
        }
        w.endList();
      } else {
        throw new IllegalStateException("no writer for " + v.getClass().getSimpleName());
      }
    }
  }
}
