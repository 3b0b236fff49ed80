package dev.quiver.iceberg.catalog;

import dev.quiver.binding.datasource.TableCatalog;
import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.StoredObject;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.iceberg.io.QuiverFileIO;
import dev.quiver.iceberg.table.IcebergLocations;
import dev.quiver.iceberg.table.IcebergTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A warehouse folder of Iceberg tables in Hadoop's layout, {@code WAREHOUSE/namespace/table/} each
 * with its {@code metadata/}, as a catalog: {@code cat.namespace.table} reads the table's current
 * snapshot when a statement names it.
 */
public final class WarehouseCatalog implements TableCatalog {
  private final String warehouse;
  private final String name;
  private final SessionConfig config;

  /** The warehouse at {@code location} (local or {@code s3://}), attached as {@code name}. */
  public WarehouseCatalog(String name, String location, SessionConfig config) {
    String l = location;
    while (l.endsWith("/")) {
      l = l.substring(0, l.length() - 1);
    }
    this.warehouse = l;
    this.name = name;
    this.config = config == null ? null : config.copy();
  }

  /** Where table {@code namespace.table} lives. */
  public String tableLocation(String namespace, String table) {
    return warehouse + "/" + namespace + "/" + table;
  }

  /** Tables by namespace, from the metadata files below the warehouse. */
  private Map<String, TreeSet<String>> listing() {
    String root = QuiverFileIO.storeLocation(warehouse);
    ObjectStore store = ObjectStores.forLocation(root, config);
    Map<String, TreeSet<String>> out = new TreeMap<>();
    List<StoredObject> objects;
    try {
      objects = store.list(root);
    } catch (ObjectStoreException e) {
      if (e.reason() == ObjectStoreException.Reason.NOT_FOUND) {
        return out;
      }
      throw e;
    }
    for (StoredObject o : objects) {
      String rel = o.location().substring(root.length()).replace('\\', '/');
      String[] parts = rel.startsWith("/") ? rel.substring(1).split("/") : rel.split("/");
      if (parts.length == 4 && parts[2].equals("metadata") && parts[3].endsWith(".metadata.json")) {
        out.computeIfAbsent(parts[0], k -> new TreeSet<>()).add(parts[1]);
      }
    }
    return out;
  }

  @Override
  public List<String> namespaces() {
    return new ArrayList<>(listing().keySet());
  }

  @Override
  public List<String> tables(String namespace) {
    TreeSet<String> t = listing().get(namespace);
    return t == null ? List.of() : new ArrayList<>(t);
  }

  @Override
  public TableProvider table(String namespace, String table) {
    String location = tableLocation(namespace, table);
    if (IcebergLocations.find(location, config) == null) {
      return null;
    }
    return IcebergTable.current(
        FileSystemTables.load(location, config), name + "." + namespace + "." + table);
  }

  @Override
  public TableProvider tableAtSnapshot(String namespace, String table, long snapshotId) {
    String location = tableLocation(namespace, table);
    if (IcebergLocations.find(location, config) == null) {
      return null;
    }
    return IcebergTable.atSnapshot(
        FileSystemTables.load(location, config), name + "." + namespace + "." + table, snapshotId);
  }

  @Override
  public TableProvider tableAsOf(String namespace, String table, long epochMillis) {
    String location = tableLocation(namespace, table);
    if (IcebergLocations.find(location, config) == null) {
      return null;
    }
    return IcebergTable.asOf(
        FileSystemTables.load(location, config), name + "." + namespace + "." + table, epochMillis);
  }

  @Override
  public String toString() {
    return "WarehouseCatalog(" + name + ")";
  }
}
