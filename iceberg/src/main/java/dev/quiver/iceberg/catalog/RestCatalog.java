package dev.quiver.iceberg.catalog;

import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.iceberg.io.QuiverFileIO;
import dev.quiver.iceberg.table.IcebergTable;
import dev.quiver.iceberg.write.TableSchemas;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SessionCatalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.HTTPClient;
import org.apache.iceberg.rest.RESTSessionCatalog;
import org.apache.iceberg.rest.RESTUtil;

/**
 * An Apache Iceberg REST catalog, reached with Iceberg's own client ({@link RESTSessionCatalog}):
 * {@code cat.namespace.table} loads the table's metadata from the catalog when a statement names
 * it. Options pass through to the client as Iceberg's catalog properties ({@code warehouse}, {@code
 * token}, {@code credential}, {@code scope}, {@code prefix}, {@code header.*}, ...). Metadata,
 * manifests and data files are read with {@link QuiverFileIO} and the session's {@code quiver.s3.*}
 * settings, on a cluster too (the catalog's own S3 properties and vended credentials are not used).
 * Nested namespaces are named with their levels joined by dots ({@code cat."a.b".t}). Tables are
 * created through the catalog in one commit with their first rows (a create transaction); DROP
 * TABLE removes the table from the catalog without asking it to purge the files (as Spark's DROP
 * TABLE does): the catalog's owner collects them. {@link #toString} shows the name and the URI
 * without user information; errors never show options.
 */
public final class RestCatalog implements WritableIcebergCatalog, AutoCloseable {
  /** Option names whose values are secrets. */
  static final Set<String> SECRETS =
      Set.of(
          "token",
          "credential",
          "s3.secret-access-key",
          "s3.session-token",
          "s3.access-key-id",
          "client.secret",
          "rest.auth.basic.password");

  private final String name;
  private final String uri;
  private final RESTSessionCatalog client;
  private final Catalog tables;
  private final SupportsNamespaces namespaces;

  /**
   * Connects to the REST catalog at {@code uri} (its configuration endpoint is asked at once), to
   * be attached as {@code name}.
   *
   * @throws DataSourceException when the catalog cannot be reached or refuses the client; the
   *     message names the catalog and the URI, never the options
   */
  public RestCatalog(String name, String uri, Map<String, String> options, SessionConfig config) {
    this.name = name;
    this.uri = shownUri(uri);
    SessionConfig base = config == null ? new SessionConfig() : config.copy();
    Map<String, String> properties = new HashMap<>();
    options.forEach((k, v) -> properties.put(k.toLowerCase(Locale.ROOT), v));
    properties.put(CatalogProperties.URI, uri);
    this.client =
        new RESTSessionCatalog(
            props ->
                HTTPClient.builder(props)
                    .uri(props.get(CatalogProperties.URI))
                    .withHeaders(RESTUtil.configHeaders(props))
                    .build(),
            (context, props) -> new QuiverFileIO(base));
    try {
      client.initialize(name, properties);
    } catch (RuntimeException e) {
      closeQuietly();
      throw new DataSourceException(
          "Cannot connect to the Iceberg REST catalog "
              + name
              + " at "
              + this.uri
              + ": "
              + safeMessage(e, options),
          e);
    }
    SessionCatalog.SessionContext context = SessionCatalog.SessionContext.createEmpty();
    this.tables = client.asCatalog(context);
    this.namespaces = (SupportsNamespaces) tables;
  }

  /** The URI without user information (which may hold a password). */
  static String shownUri(String uri) {
    return uri.replaceAll("//[^/@]*@", "//***@");
  }

  /** {@code e}'s message with every secret option's value masked. */
  static String safeMessage(Throwable e, Map<String, String> options) {
    String m = String.valueOf(e.getMessage());
    for (Map.Entry<String, String> o : options.entrySet()) {
      String v = o.getValue();
      if (v != null && v.length() >= 3 && SECRETS.contains(o.getKey().toLowerCase(Locale.ROOT))) {
        m = m.replace(v, "***");
      }
    }
    return m;
  }

  private static Namespace namespace(String namespace) {
    return Namespace.of(namespace.split("\\."));
  }

  @Override
  public List<String> namespaces() {
    List<String> out = new ArrayList<>();
    collect(Namespace.empty(), out, 0);
    return out;
  }

  private void collect(Namespace parent, List<String> out, int depth) {
    for (Namespace ns : namespaces.listNamespaces(parent)) {
      out.add(String.join(".", ns.levels()));
      if (depth < 8) {
        try {
          collect(ns, out, depth + 1);
        } catch (NoSuchNamespaceException | UnsupportedOperationException e) {
          // A catalog without nested namespaces.
        }
      }
    }
  }

  @Override
  public List<String> tables(String namespace) {
    try {
      return tables.listTables(namespace(namespace)).stream().map(TableIdentifier::name).toList();
    } catch (NoSuchNamespaceException e) {
      return List.of();
    }
  }

  /** The Iceberg table, or null when there is none. */
  public Table load(String namespace, String table) {
    try {
      return tables.loadTable(TableIdentifier.of(namespace(namespace), table));
    } catch (NoSuchTableException | NoSuchNamespaceException e) {
      return null;
    }
  }

  @Override
  public TableProvider table(String namespace, String table) {
    Table t = load(namespace, table);
    return t == null ? null : IcebergTable.current(t, qualified(namespace, table));
  }

  @Override
  public TableProvider tableAtSnapshot(String namespace, String table, long snapshotId) {
    Table t = load(namespace, table);
    return t == null ? null : IcebergTable.atSnapshot(t, qualified(namespace, table), snapshotId);
  }

  @Override
  public TableProvider tableAsOf(String namespace, String table, long epochMillis) {
    Table t = load(namespace, table);
    return t == null ? null : IcebergTable.asOf(t, qualified(namespace, table), epochMillis);
  }

  @Override
  public String qualified(String namespace, String table) {
    return name + "." + namespace + "." + table;
  }

  @Override
  public Transaction newTable(
      String namespace, String table, org.apache.iceberg.Schema schema, PartitionSpec spec) {
    try {
      return tables
          .buildTable(TableIdentifier.of(namespace(namespace), table), schema)
          .withPartitionSpec(spec)
          .withProperties(TableSchemas.newTableProperties())
          .createTransaction();
    } catch (AlreadyExistsException e) {
      throw new QuiverException(
          "Table '" + qualified(namespace, table) + "' already exists; DROP it first", e);
    } catch (NoSuchNamespaceException e) {
      dev.quiver.binding.sql.Catalog.checkNamespace(name, this, namespace);
      throw e;
    }
  }

  @Override
  public Table existing(String namespace, String table) {
    Table t = load(namespace, table);
    if (t == null) {
      throw new UnknownTableException(qualified(namespace, table), tables(namespace));
    }
    return t;
  }

  @Override
  public boolean drop(String namespace, String table) {
    try {
      return tables.dropTable(TableIdentifier.of(namespace(namespace), table), false);
    } catch (NoSuchNamespaceException e) {
      return false;
    }
  }

  @Override
  public void close() {
    try {
      client.close();
    } catch (IOException e) {
      throw new DataSourceException("Closing the Iceberg REST catalog " + name + " failed", e);
    }
  }

  private void closeQuietly() {
    try {
      client.close();
    } catch (IOException | RuntimeException ignored) {
      // The original error matters.
    }
  }

  @Override
  public String toString() {
    return "RestCatalog(" + name + ", " + uri + ")";
  }
}
