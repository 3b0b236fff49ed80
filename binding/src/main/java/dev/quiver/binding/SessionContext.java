package dev.quiver.binding;

import dev.quiver.binding.dataframe.DataFrame;
import dev.quiver.binding.datasource.CsvOptions;
import dev.quiver.binding.datasource.CsvTable;
import dev.quiver.binding.datasource.MemoryTable;
import dev.quiver.binding.datasource.ParquetOptions;
import dev.quiver.binding.datasource.ParquetTable;
import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableFunction;
import dev.quiver.binding.datasource.TableFunctionCall;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.planner.QueryPlanner;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.binding.sql.Catalog;
import dev.quiver.binding.sql.CatalogAttachments;
import dev.quiver.binding.sql.SessionState;
import dev.quiver.binding.sql.StatementRunner;
import dev.quiver.binding.udf.ScalarUdf;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Entry point of the engine: holds registered tables, UDFs, settings and extensions, and turns SQL
 * or DataFrame calls into queries. Not final, so that a decorator can extend it.
 */
public class SessionContext implements AutoCloseable {
  private final SessionState state;
  private final StatementRunner runner;

  /** Creates a session with default settings. */
  public SessionContext() {
    this(new SessionConfig());
  }

  /** Creates a session with the given settings (copied). */
  public SessionContext(SessionConfig config) {
    ArrowAccess.check();
    this.state = new SessionState(config.copy());
    this.runner = new StatementRunner(state);
  }

  /**
   * Creates a session sharing {@code shared}'s tables, views and UDFs, starting with a copy of its
   * settings, planner and extensions; for subclasses' {@link #newSession()}.
   */
  protected SessionContext(SessionContext shared) {
    this.state = new SessionState(shared.config().copy(), shared.state);
    this.runner = new StatementRunner(state);
  }

  /**
   * A new session over this one's tables, views and UDFs: tables registered or created (DDL) in
   * either are visible to both, while settings ({@code SET}), running queries and memory are the
   * new session's own. It starts with a copy of this session's settings, planner and extensions.
   * Closing it leaves the shared tables open; closing the session that created the tables closes
   * them, so close the sessions made here first. Servers use it for one session per client over one
   * catalog.
   */
  public SessionContext newSession() {
    return new SessionContext(this);
  }

  /** The session's settings (live; {@code SET} changes them). */
  public SessionConfig config() {
    return state.config();
  }

  /** The session's allocator; collected results are allocated from it. */
  public BufferAllocator allocator() {
    return state.allocator();
  }

  /**
   * Registers a Parquet file, or a folder of them, as table {@code name}: a local path, a {@code
   * file://} URI or {@code s3://bucket/prefix} (reached with the session's {@code quiver.s3.*}
   * settings over the AWS SDK's defaults).
   */
  public void registerParquet(String name, String path) {
    register(name, ParquetTable.open(path, config()), true);
  }

  /**
   * Registers a Parquet file or folder as table {@code name}, reading partition folders ({@code
   * cat=a/day=2026-01-01/}) as {@code options} say.
   */
  public void registerParquet(String name, String path, ParquetOptions options) {
    register(name, ParquetTable.open(path, config(), options), true);
  }

  /** Registers a CSV file (with header row), or a folder of them, as table {@code name}. */
  public void registerCsv(String name, String path) {
    register(name, CsvTable.open(path, null, CsvOptions.DEFAULT, config()), true);
  }

  /** Registers CSV files laid out as {@code options} say as table {@code name}. */
  public void registerCsv(String name, String path, CsvOptions options) {
    register(name, CsvTable.open(path, null, options, config()), true);
  }

  /**
   * Registers the Apache Iceberg table at {@code location} as table {@code name}: a table folder
   * (its {@code metadata/version-hint.text}, else its newest {@code vN.metadata.json}) or a {@code
   * .metadata.json} file, local or in S3, read at its current snapshot. Needs the {@code
   * quiver-iceberg} module on the class path, which provides the {@code iceberg_scan} table
   * function this calls.
   */
  public void registerIceberg(String name, String location) {
    TableFunction scan = state.catalog().tableFunction("iceberg_scan");
    if (scan == null) {
      throw new QuiverException(
          "Reading Iceberg tables needs the quiver-iceberg module (dev.quiver:quiver-iceberg) on"
              + " the class path; the quiver command and its jars include it");
    }
    register(
        name,
        scan.open(new TableFunctionCall("iceberg_scan", List.of(location), Map.of(), config())),
        true);
  }

  /**
   * Attaches a catalog of tables as {@code name}: SQL names its tables {@code
   * name.namespace.table}, looked up in the catalog when a statement names them. Sessions made with
   * {@link #newSession()} share it.
   */
  public void attachCatalog(String name, TableCatalog catalog) {
    CatalogAttachments.checkName(name);
    state.catalog().attach(name, catalog);
  }

  /**
   * Opens a catalog of {@code type} at {@code uri} and attaches it as {@code name}, as {@code
   * ATTACH 'uri' AS name (TYPE type, key 'value', ...)} does: {@code iceberg} (a warehouse folder,
   * or a REST catalog for an http(s) URI), {@code iceberg_rest} (an Iceberg REST catalog; options
   * such as {@code warehouse}, {@code token}, {@code credential} pass through to it). Types come
   * from the {@link dev.quiver.binding.datasource.TableCatalogFactory}s on the class path; the
   * {@code quiver-iceberg} module provides these. Errors never show the options' values.
   *
   * @return the attached catalog
   */
  public TableCatalog attachCatalog(
      String name, String type, String uri, Map<String, String> options) {
    return CatalogAttachments.attach(
        state.catalog(), name, type, uri, options == null ? Map.of() : options, config());
  }

  /** Detaches catalog {@code name} (closing it); returns whether one was attached so. */
  public boolean detachCatalog(String name) {
    return CatalogAttachments.detach(state.catalog(), name);
  }

  /** The names of the attached catalogs, sorted. */
  public List<String> catalogNames() {
    return state.catalog().attached().keySet().stream().sorted().toList();
  }

  /** The catalog attached as {@code name}, or null. */
  public TableCatalog catalog(String name) {
    return state.catalog().attached().get(name.toLowerCase(java.util.Locale.ROOT));
  }

  /** Registers a table function, callable as {@code FROM name(...)}. */
  public void registerTableFunction(TableFunction function) {
    state.catalog().putTableFunction(function);
  }

  /** Registers any table provider as table {@code name}. */
  public void registerTable(String name, TableProvider provider) {
    register(name, provider, false);
  }

  /** Registers in-memory batches (copied; the caller keeps its own) as table {@code name}. */
  public void registerRecordBatches(String name, Schema schema, List<VectorSchemaRoot> batches) {
    register(name, new MemoryTable(schema, batches, state.tableAllocator()), true);
  }

  /** Registers a DataFrame of this session as view {@code name}. */
  public void registerView(String name, DataFrame view) {
    Catalog.closeIfOwned(state.registerView(name, view));
  }

  private void register(String name, TableProvider provider, boolean owned) {
    if (name == null || name.isBlank()) {
      throw new QuiverException("A table needs a non-empty name");
    }
    Catalog.closeIfOwned(state.catalog().putTable(new Catalog.TableEntry(name, provider, owned)));
  }

  /** Removes table or view {@code name}; returns whether it existed. */
  public boolean deregisterTable(String name) {
    Object removed = state.catalog().remove(name);
    Catalog.closeIfOwned(removed);
    return removed != null;
  }

  /** Names of the registered tables and views. */
  public List<String> tableNames() {
    return state.catalog().names();
  }

  /** The provider registered as {@code name}. */
  public TableProvider tableProvider(String name) {
    return state.catalog().provider(name);
  }

  /** A DataFrame over table {@code name}. */
  public DataFrame table(String name) {
    if (state.catalog().table(name) == null && state.catalog().view(name) == null) {
      throw new UnknownTableException(name, Suggestions.closest(name, state.catalog().names()));
    }
    return state.tableFrame(name);
  }

  /**
   * Plans a SQL statement; DDL, DML and SET run at once and return their (possibly empty) result.
   */
  public DataFrame sql(String sql) {
    return runner.run(sql);
  }

  /**
   * Whether {@code sql} is a query (SELECT, WITH, VALUES, EXPLAIN), which {@link #sql} plans
   * without running, rather than a statement it runs at once (CREATE, DROP, INSERT, SET). Parses
   * nothing beyond the leading keyword, so a malformed query still answers true and fails in {@link
   * #sql}.
   */
  public boolean isQuery(String sql) {
    return StatementRunner.isQuery(sql);
  }

  /**
   * The parameters ({@code ?} placeholders) of {@code sql}, a query or INSERT, in order: one field
   * each (named {@code $1}, {@code $2}, ...) with the type the statement gives it. Runs nothing.
   *
   * @throws QuiverException when a parameter's type cannot be told from where it stands (write
   *     {@code CAST(? AS type)})
   */
  public Schema parameterSchema(String sql) {
    return runner.parameterSchema(sql);
  }

  /**
   * Like {@link #sql(String)} with the {@code ?} placeholders of {@code sql} bound, in order, to
   * {@code parameters}: Java values (Integer, Long, BigDecimal, Double, String, Boolean, LocalDate,
   * LocalDateTime, null, ...) taken as the parameters' types (see {@link #parameterSchema}).
   */
  public DataFrame sql(String sql, List<?> parameters) {
    return sql(runner.bind(sql, parameters));
  }

  /** Registers a scalar UDF. */
  public void registerUdf(ScalarUdf udf) {
    state.catalog().putUdf(udf);
  }

  /** Installs extensions (planner, optimizer rules, UDFs, tables); returns this session. */
  public SessionContext withExtensions(Extension... extensions) {
    for (Extension e : extensions) {
      QueryPlanner next = e.queryPlanner(state.planner());
      if (next == null) {
        throw new QuiverException(
            "Extension " + e.getClass().getName() + " returned no query planner");
      }
      state.planner(next);
      state.rules().addAll(e.physicalOptimizerRules());
      e.udfs().forEach(this::registerUdf);
      e.tableFunctions().forEach(this::registerTableFunction);
      e.tables().forEach(this::registerTable);
    }
    return this;
  }

  /** The planner queries currently use. */
  public QueryPlanner queryPlanner() {
    return state.planner();
  }

  /** Cancels running queries, frees all memory and deregisters everything. */
  @Override
  public void close() {
    state.close();
  }
}
