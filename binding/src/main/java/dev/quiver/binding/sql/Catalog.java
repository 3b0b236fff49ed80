package dev.quiver.binding.sql;

import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableFunction;
import dev.quiver.binding.datasource.TableFunctions;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.Suggestions;
import dev.quiver.binding.errors.UnknownCatalogException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.logical.ProviderTable;
import dev.quiver.binding.udf.ScalarUdf;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;

/**
 * A session's tables, views and UDFs, keyed by lower-case name. Also the Calcite schema the
 * validator resolves names against, read live so that DDL is visible to the next statement.
 */
public final class Catalog extends AbstractSchema {
  /** A registered table; {@code owned} providers were created by the session, which closes them. */
  public record TableEntry(String name, TableProvider provider, boolean owned) {}

  /** A view: SQL text re-planned at each use, or a fixed logical plan (from a DataFrame). */
  public record ViewEntry(String name, String sql, RelNode rel, RelDataType rowType) {}

  private final Map<String, TableEntry> tables = new LinkedHashMap<>();
  private final Map<String, ViewEntry> views = new LinkedHashMap<>();
  private final Map<String, ScalarUdf> udfs = new LinkedHashMap<>();
  private final Map<String, TableFunction> tableFunctions = new LinkedHashMap<>();
  private final Map<String, TableCatalog> attached = new LinkedHashMap<>();

  /** Lower-cases a name the way unquoted SQL identifiers are. */
  public static String key(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  /** Adds or replaces a table; returns the entry it replaced (table or view), if any. */
  public synchronized Object putTable(TableEntry entry) {
    String k = key(entry.name());
    Object old = views.remove(k);
    TableEntry prev = tables.put(k, entry);
    return prev != null ? prev : old;
  }

  /** Adds or replaces a view; returns the entry it replaced (table or view), if any. */
  public synchronized Object putView(ViewEntry entry) {
    String k = key(entry.name());
    Object old = tables.remove(k);
    ViewEntry prev = views.put(k, entry);
    return prev != null ? prev : old;
  }

  /** Removes a table or view; returns the removed entry or null. */
  public synchronized Object remove(String name) {
    String k = key(name);
    TableEntry t = tables.remove(k);
    return t != null ? t : views.remove(k);
  }

  /** The table entry, or null. */
  public synchronized TableEntry table(String name) {
    return tables.get(key(name));
  }

  /** The view entry, or null. */
  public synchronized ViewEntry view(String name) {
    return views.get(key(name));
  }

  /** The provider of table {@code name}, or an {@link UnknownTableException} with suggestions. */
  public synchronized TableProvider provider(String name) {
    TableEntry e = tables.get(key(name));
    if (e == null) {
      throw new UnknownTableException(name, Suggestions.closest(name, names()));
    }
    return e.provider();
  }

  /** Names of all tables and views, in registration order (not the files a statement reads). */
  public synchronized List<String> names() {
    List<String> out = new ArrayList<>();
    tables.values().stream()
        .filter(t -> !t.name().startsWith(FileTables.PREFIX))
        .forEach(t -> out.add(t.name()));
    views.values().forEach(v -> out.add(v.name()));
    return out;
  }

  /** Column names of table or view {@code name}, or an empty list. */
  public synchronized List<String> columns(String name) {
    TableEntry t = tables.get(key(name));
    if (t != null) {
      return t.provider().schema().getFields().stream().map(f -> f.getName()).toList();
    }
    ViewEntry v = views.get(key(name));
    return v == null ? List.of() : v.rowType().getFieldNames();
  }

  /**
   * Closes {@code entry} (what a put or remove returned) when it is a table the session owns, i.e.
   * one it opened itself (files, memory tables, DDL) rather than a provider the caller registered.
   *
   * @throws QuiverException naming the table when closing it fails
   */
  public static void closeIfOwned(Object entry) {
    if (entry instanceof TableEntry t && t.owned() && t.provider() instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new QuiverException("Closing table " + t.name() + " failed: " + e.getMessage(), e);
      }
    }
  }

  /** Removes everything; returns the table entries that were registered. */
  public synchronized List<TableEntry> clear() {
    List<TableEntry> out = List.copyOf(tables.values());
    tables.clear();
    views.clear();
    udfs.clear();
    tableFunctions.clear();
    attached.clear();
    return out;
  }

  /** Registers (or replaces) a UDF under its lower-case name. */
  public synchronized void putUdf(ScalarUdf udf) {
    udfs.put(key(udf.name()), udf);
  }

  /** The UDF named {@code name} (any case), or null. */
  public synchronized ScalarUdf udf(String name) {
    return udfs.get(key(name));
  }

  /** Registers (or replaces) a table function under its lower-case name. */
  public synchronized void putTableFunction(TableFunction function) {
    tableFunctions.put(key(function.name()), function);
  }

  /**
   * The table function named {@code name}: the session's own, else one on the class path; or null.
   */
  public synchronized TableFunction tableFunction(String name) {
    TableFunction own = tableFunctions.get(key(name));
    return own != null ? own : TableFunctions.find(name);
  }

  /** Attaches {@code catalog} as {@code name}: its tables are {@code name.namespace.table}. */
  public synchronized void attach(String name, TableCatalog catalog) {
    String k = key(name);
    if (tables.containsKey(k) || views.containsKey(k)) {
      throw new QuiverException(
          "Cannot attach a catalog as " + name + ": a table or view has that name");
    }
    attached.put(k, catalog);
  }

  /** Detaches catalog {@code name}; returns it, or null when none was attached so. */
  public synchronized TableCatalog detach(String name) {
    return attached.remove(key(name));
  }

  /**
   * The catalog attached as {@code name} (any case).
   *
   * @throws UnknownCatalogException with the closest attached names when there is none
   */
  public synchronized TableCatalog attached(String name) {
    TableCatalog c = attached.get(key(name));
    if (c == null) {
      throw new UnknownCatalogException(name, Suggestions.closest(name, attached.keySet()));
    }
    return c;
  }

  /**
   * Checks that {@code namespace} is one of {@code catalogName}'s.
   *
   * @throws UnknownCatalogException naming it, with the closest namespaces, when it is not
   */
  public static void checkNamespace(String catalogName, TableCatalog catalog, String namespace) {
    List<String> namespaces = catalog.namespaces();
    if (!namespaces.contains(namespace)) {
      throw new UnknownCatalogException(
          catalogName + "." + namespace,
          "Namespace '"
              + namespace
              + "' not found in catalog '"
              + catalogName
              + "'"
              + Suggestions.formatted(Suggestions.closest(namespace, namespaces)));
    }
  }

  /** The attached catalogs by lower-case name. */
  public synchronized Map<String, TableCatalog> attached() {
    return Map.copyOf(attached);
  }

  /** All UDFs. */
  public synchronized List<ScalarUdf> udfs() {
    return List.copyOf(udfs.values());
  }

  @Override
  protected synchronized Map<String, org.apache.calcite.schema.Schema> getSubSchemaMap() {
    Map<String, org.apache.calcite.schema.Schema> map = new LinkedHashMap<>();
    attached.forEach((k, c) -> map.put(k, new AttachedCatalogSchema(k, c)));
    return map;
  }

  @Override
  protected synchronized Map<String, Table> getTableMap() {
    Map<String, Table> map = new LinkedHashMap<>();
    tables.forEach((k, e) -> map.put(k, new ProviderTable(e.name(), e.provider())));
    views.forEach((k, v) -> map.put(k, new ViewTable(v)));
    return map;
  }
}
