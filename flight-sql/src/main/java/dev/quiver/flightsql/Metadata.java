package dev.quiver.flightsql;

import dev.quiver.binding.SessionContext;
import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.functions.Group;
import dev.quiver.binding.sql.JdbcVocabulary;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlNullOrdering;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlOuterJoinsSupportLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedGroupBy;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedResultSetConcurrency;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedResultSetType;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedSubqueries;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedUnions;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportsConvert;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlTransactionIsolationLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedAnsi92SqlGrammarLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedSqlGrammar;
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

  private final SqlInfoBuilder sqlInfo;

  /**
   * Every SqlInfo the Flight SQL specification defines, answered as Quiver behaves: JDBC drivers
   * answer {@code DatabaseMetaData} from these (a missing one is a NullPointerException in the 18.3
   * driver), and BI tools generate their SQL from them.
   *
   * @param maxStatementBytes the longest statement the server accepts
   */
  Metadata(String version, long maxStatementBytes) {
    SqlInfoBuilder b =
        new SqlInfoBuilder()
            .withFlightSqlServerName("Quiver")
            .withFlightSqlServerVersion(version)
            .withFlightSqlServerArrowVersion(arrowVersion())
            .withFlightSqlServerReadOnly(false)
            .withFlightSqlServerSql(true)
            .withFlightSqlServerSubstrait(false)
            .withFlightSqlServerSubstraitMinVersion("")
            .withFlightSqlServerSubstraitMaxVersion("")
            .withFlightSqlServerTransaction(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE)
            .withFlightSqlServerCancel(true)
            .withFlightSqlServerBulkIngestion(false)
            .withFlightSqlServerBulkIngestionTransaction(false)
            .withFlightSqlServerStatementTimeout(0) // no timeout
            .withFlightSqlServerTransactionTimeout(0)
            .withSqlIdentifierQuoteChar("\"")
            // Unquoted names are lower-cased; every name, quoted or not, matches
            // case-insensitively.
            .withSqlIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_LOWERCASE)
            .withSqlQuotedIdentifierCase(
                SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE)
            .withSqlSearchStringEscape("\\")
            .withSqlExtraNameCharacters("")
            .withSqlDdlTable(true)
            .withSqlDdlSchema(false)
            .withSqlDdlCatalog(false)
            .withSqlSchemaTerm("schema")
            .withSqlCatalogTerm("catalog")
            .withSqlProcedureTerm("procedure")
            .withSqlCatalogAtStart(true)
            .withSqlSupportsColumnAliasing(true)
            .withSqlNullPlusNullIsNull(true)
            .withSqlSupportsConvert(CONVERSIONS)
            .withSqlSupportsTableCorrelationNames(true)
            .withSqlSupportsDifferentTableCorrelationNames(false)
            .withSqlSupportsExpressionsInOrderBy(true)
            .withSqlSupportsOrderByUnrelated(true)
            .withSqlSupportedGroupBy(
                SqlSupportedGroupBy.SQL_GROUP_BY_UNRELATED,
                SqlSupportedGroupBy.SQL_GROUP_BY_BEYOND_SELECT)
            .withSqlSupportsLikeEscapeClause(true)
            .withSqlSupportsNonNullableColumns(true)
            .withSqlSupportedGrammar(
                SupportedSqlGrammar.SQL_MINIMUM_GRAMMAR, SupportedSqlGrammar.SQL_CORE_GRAMMAR)
            .withSqlAnsi92SupportedLevel(SupportedAnsi92SqlGrammarLevel.ANSI92_ENTRY_SQL)
            .withSqlSupportsIntegrityEnhancementFacility(false) // no CHECK, no foreign keys
            .withSqlOuterJoinSupportLevel(SqlOuterJoinsSupportLevel.SQL_FULL_OUTER_JOINS)
            .withSqlSchemasSupportedActions()
            .withSqlCatalogsSupportedActions()
            .withSqlSupportedPositionedCommands()
            .withSqlSelectForUpdateSupported(false)
            .withSqlStoredProceduresSupported(false)
            .withSqlSubQueriesSupported(
                SqlSupportedSubqueries.SQL_SUBQUERIES_IN_COMPARISONS,
                SqlSupportedSubqueries.SQL_SUBQUERIES_IN_EXISTS,
                SqlSupportedSubqueries.SQL_SUBQUERIES_IN_INS,
                SqlSupportedSubqueries.SQL_SUBQUERIES_IN_QUANTIFIEDS)
            .withSqlCorrelatedSubqueriesSupported(true)
            .withSqlSupportedUnions(SqlSupportedUnions.SQL_UNION, SqlSupportedUnions.SQL_UNION_ALL)
            // No limits but the statement's size: 0 is JDBC's "no limit or not known".
            .withSqlMaxBinaryLiteralLength(0)
            .withSqlMaxCharLiteralLength(0)
            .withSqlMaxColumnNameLength(0)
            .withSqlMaxColumnsInGroupBy(0)
            .withSqlMaxColumnsInIndex(0)
            .withSqlMaxColumnsInOrderBy(0)
            .withSqlMaxColumnsInSelect(0)
            .withSqlMaxColumnsInTable(0)
            .withSqlMaxConnections(0)
            .withSqlMaxCursorNameLength(0)
            .withSqlMaxIndexLength(0)
            .withSqlDbSchemaNameLength(0)
            .withSqlMaxProcedureNameLength(0)
            .withSqlMaxCatalogNameLength(0)
            .withSqlMaxRowSize(0)
            .withSqlMaxRowSizeIncludesBlobs(false)
            .withSqlMaxStatementLength(maxStatementBytes)
            .withSqlMaxStatements(0)
            .withSqlMaxTableNameLength(0)
            .withSqlMaxTablesInSelect(0)
            .withSqlMaxUsernameLength(0)
            // Each statement is atomic on its own; there are no transactions to isolate.
            .withSqlDefaultTransactionIsolation(
                SqlTransactionIsolationLevel.SQL_TRANSACTION_NONE.getNumber())
            .withSqlTransactionsSupported(false)
            .withSqlSupportedTransactionsIsolationLevels(
                SqlTransactionIsolationLevel.SQL_TRANSACTION_NONE)
            .withSqlDataDefinitionCausesTransactionCommit(false)
            .withSqlDataDefinitionsInTransactionsIgnored(false)
            .withSqlSupportedResultSetTypes(
                SqlSupportedResultSetType.SQL_RESULT_SET_TYPE_FORWARD_ONLY)
            .withSqlBatchUpdatesSupported(true)
            .withSqlSavepointsSupported(false)
            .withSqlNamedParametersSupported(false)
            .withSqlLocatorsUpdateCopy(false)
            .withSqlStoredFunctionsUsingCallSyntaxSupported(false)
            .withSqlAllTablesAreSelectable(true)
            .withSqlNullOrdering(SqlNullOrdering.SQL_NULLS_SORTED_AT_END)
            .withSqlKeywords(JdbcVocabulary.keywords().toArray(String[]::new))
            .withSqlNumericFunctions(functions(Group.NUMERIC))
            .withSqlStringFunctions(functions(Group.STRING))
            .withSqlSystemFunctions(functions(Group.SYSTEM))
            .withSqlDatetimeFunctions(functions(Group.DATETIME));
    readOnlyConcurrency(b);
    this.sqlInfo = b;
  }

  private static String[] functions(Group group) {
    return JdbcVocabulary.functions(group).toArray(String[]::new);
  }

  /**
   * The four SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_* infos: results are read-only whatever
   * their type. SqlInfoBuilder 18.3 has no public setter for them, only its private int provider.
   */
  private static void readOnlyConcurrency(SqlInfoBuilder b) {
    int readOnly = 1 << SqlSupportedResultSetConcurrency.SQL_RESULT_SET_CONCURRENCY_READ_ONLY_VALUE;
    try {
      Method withInt =
          SqlInfoBuilder.class.getDeclaredMethod("withIntProvider", int.class, int.class);
      withInt.setAccessible(true);
      for (SqlInfo info :
          List.of(
              SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_UNSPECIFIED,
              SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_FORWARD_ONLY,
              SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_SENSITIVE,
              SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_INSENSITIVE)) {
        withInt.invoke(b, info.getNumber(), readOnly);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("SqlInfoBuilder has no int provider to extend", e);
    }
  }

  /**
   * The casts between JDBC types that {@code CAST} performs (SQL_SUPPORTS_CONVERT): numbers and
   * text into each other and into booleans, booleans into text, text, dates and timestamps into
   * each other.
   */
  private static final Map<Integer, List<Integer>> CONVERSIONS = conversions();

  private static Map<Integer, List<Integer>> conversions() {
    List<Integer> numbers =
        List.of(
            SqlSupportsConvert.SQL_CONVERT_BIGINT_VALUE,
            SqlSupportsConvert.SQL_CONVERT_INTEGER_VALUE,
            SqlSupportsConvert.SQL_CONVERT_SMALLINT_VALUE,
            SqlSupportsConvert.SQL_CONVERT_TINYINT_VALUE,
            SqlSupportsConvert.SQL_CONVERT_DECIMAL_VALUE,
            SqlSupportsConvert.SQL_CONVERT_NUMERIC_VALUE,
            SqlSupportsConvert.SQL_CONVERT_FLOAT_VALUE,
            SqlSupportsConvert.SQL_CONVERT_REAL_VALUE);
    List<Integer> text =
        List.of(
            SqlSupportsConvert.SQL_CONVERT_VARCHAR_VALUE,
            SqlSupportsConvert.SQL_CONVERT_CHAR_VALUE,
            SqlSupportsConvert.SQL_CONVERT_LONGVARCHAR_VALUE);
    int bit = SqlSupportsConvert.SQL_CONVERT_BIT_VALUE;
    int date = SqlSupportsConvert.SQL_CONVERT_DATE_VALUE;
    int timestamp = SqlSupportsConvert.SQL_CONVERT_TIMESTAMP_VALUE;
    List<Integer> fromNumber = new ArrayList<>(numbers);
    fromNumber.addAll(text);
    fromNumber.add(bit);
    List<Integer> fromText = new ArrayList<>(fromNumber);
    fromText.addAll(List.of(date, timestamp));
    List<Integer> fromDatetime = new ArrayList<>(text);
    fromDatetime.addAll(List.of(date, timestamp));
    Map<Integer, List<Integer>> m = new TreeMap<>();
    numbers.forEach(n -> m.put(n, List.copyOf(fromNumber)));
    text.forEach(t -> m.put(t, List.copyOf(fromText)));
    List<Integer> fromBit = new ArrayList<>(text);
    fromBit.add(bit);
    m.put(bit, List.copyOf(fromBit));
    m.put(date, List.copyOf(fromDatetime));
    m.put(timestamp, List.copyOf(fromDatetime));
    return m;
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
