package dev.quiver.binding.statement;

import dev.quiver.binding.datasource.WritableTableCatalog;
import java.util.List;
import java.util.Map;

/**
 * One parsed statement. Names are as the catalog keys them: unquoted names lower-cased, quoted
 * names as typed. Queries a statement embeds stay text ({@link SqlText}) for Calcite's parser.
 */
public sealed interface Statement {
  /**
   * A piece of the user's SQL text and where it starts in the statement, so that Calcite's errors
   * point into the text the user typed.
   */
  record SqlText(String text, int line, int column) {}

  /** A column of CREATE EXTERNAL TABLE's list: {@code name TYPE [NOT NULL | NULL]}. */
  record ColumnType(String name, String type, boolean notNull) {}

  /**
   * {@code SET key = value} or {@code SET key TO value} (also after {@code ALTER SESSION|SYSTEM});
   * {@link #toString} hides the value, which may be a secret.
   */
  record SetOption(String key, String value) implements Statement {
    @Override
    public String toString() {
      return "SetOption[key=" + key + ", value=***]";
    }
  }

  /**
   * {@code CREATE EXTERNAL TABLE [IF NOT EXISTS] name [(columns)] STORED AS format LOCATION 'path'
   * [OPTIONS ('key' 'value', key = 'value', ...)]}; {@code columns} is empty when not given.
   */
  record CreateExternalTable(
      String name,
      boolean ifNotExists,
      List<ColumnType> columns,
      String format,
      String location,
      Map<String, String> options)
      implements Statement {}

  /** {@code CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name AS query}. */
  record CreateTableAs(String name, boolean orReplace, boolean ifNotExists, SqlText query)
      implements Statement {}

  /**
   * {@code CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name (elements)}; {@code elements} is the text
   * between the parentheses: column definitions and table constraints.
   */
  record CreateTable(String name, boolean orReplace, boolean ifNotExists, String elements)
      implements Statement {}

  /**
   * {@code CREATE [OR REPLACE] VIEW name [(columns)] AS query}; {@code columns} is empty when not
   * given.
   */
  record CreateView(String name, boolean orReplace, List<String> columns, SqlText query)
      implements Statement {}

  /**
   * {@code CREATE TABLE [IF NOT EXISTS] catalog.namespace.table (elements) [PARTITIONED BY (...)]}
   * or {@code CREATE TABLE [IF NOT EXISTS] catalog.namespace.table [PARTITIONED BY (...)] AS
   * query}, on an attached catalog: {@code path} is the name's three parts; exactly one of {@code
   * elements} (the column list's text) and {@code query} is null.
   */
  record CreateCatalogTable(
      List<String> path,
      boolean ifNotExists,
      String elements,
      List<WritableTableCatalog.PartitionField> partitionBy,
      SqlText query)
      implements Statement {
    public CreateCatalogTable {
      path = List.copyOf(path);
      partitionBy = List.copyOf(partitionBy);
    }
  }

  /** {@code DROP TABLE [IF EXISTS] catalog.namespace.table}. */
  record DropCatalogTable(List<String> path, boolean ifExists) implements Statement {
    public DropCatalogTable {
      path = List.copyOf(path);
    }
  }

  /** {@code DROP TABLE|VIEW [IF EXISTS] name}. */
  record Drop(boolean view, String name, boolean ifExists) implements Statement {}

  /** {@code CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (columns)}. */
  record CreateIndex(
      String name, boolean unique, boolean ifNotExists, String table, List<String> columns)
      implements Statement {
    public CreateIndex {
      columns = List.copyOf(columns);
    }
  }

  /** {@code DROP INDEX [IF EXISTS] name}. */
  record DropIndex(String name, boolean ifExists) implements Statement {}

  /**
   * {@code SHOW TABLES [FROM|IN catalog[.namespace]]}; {@code from} is empty without FROM, else the
   * catalog and maybe the namespace.
   */
  record ShowTables(List<String> from) implements Statement {
    public ShowTables {
      from = List.copyOf(from);
    }

    /** {@code SHOW TABLES}. */
    public ShowTables() {
      this(List.of());
    }
  }

  /**
   * {@code SHOW ALL} ({@code name} null): every setting and its value; {@code SHOW name}: one
   * setting's value.
   */
  record ShowSettings(String name) implements Statement {}

  /**
   * {@code DESCRIBE [TABLE] name}, {@code DESC name}, {@code SHOW COLUMNS FROM|IN name}; {@code
   * path} is the name's parts: one for a session table, {@code catalog, namespace, table} for an
   * attached catalog's.
   */
  record Describe(List<String> path) implements Statement {
    public Describe {
      path = List.copyOf(path);
    }

    /** DESCRIBE of a session table. */
    public Describe(String name) {
      this(List.of(name));
    }

    /** The name as written, parts joined by dots. */
    public String name() {
      return String.join(".", path);
    }
  }

  /**
   * {@code DESCRIBE SELECT ...}, {@code DESCRIBE 'file.parquet'}, {@code DESCRIBE read_csv(...)}
   * (DuckDB): the columns of {@code query} (for a file or function, {@code SELECT * FROM} it).
   */
  record DescribeQuery(SqlText query) implements Statement {}

  /**
   * {@code ATTACH [DATABASE] 'uri' AS name [(TYPE type, key 'value', ...)]}: {@code type} is null
   * when not given; option keys are lower case, in order. {@link #toString} hides the options'
   * values and the URI's user information, which may be secrets.
   */
  record Attach(String uri, String name, String type, Map<String, String> options)
      implements Statement {
    public Attach {
      options = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(options));
    }

    @Override
    public String toString() {
      return "Attach[uri="
          + uri.replaceAll("//[^/@]*@", "//***@")
          + ", name="
          + name
          + ", type="
          + type
          + ", options="
          + options.keySet()
          + "]";
    }
  }

  /** {@code DETACH [DATABASE] [IF EXISTS] name}. */
  record Detach(String name, boolean ifExists) implements Statement {}

  /** {@code EXPLAIN [ANALYZE] query} ({@code EXPLAIN PLAN FOR} is Calcite's, a {@link Other}). */
  record Explain(boolean analyze, SqlText query) implements Statement {}

  /**
   * {@code COPY (query) TO 'path' [WITH] [(option [value], ...)]} or {@code COPY table TO ...};
   * {@code query} is a query ({@link Other}: never INSERT, UPDATE or DELETE), EXPLAIN, DESCRIBE or
   * SHOW (COPY table reads {@code SELECT * FROM table}); option names lower-cased, in order; an
   * option without a value is {@code "true"}.
   */
  record Copy(Statement query, String path, Map<String, String> options) implements Statement {}

  /**
   * Any other statement, for Calcite's grammar: a query, INSERT, UPDATE, DELETE, EXPLAIN PLAN FOR.
   */
  record Other(SqlText sql) implements Statement {}
}
