package dev.quiver.iceberg.catalog;

import dev.quiver.binding.datasource.TableProvider;
import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.errors.ObjectStoreException;
import dev.quiver.binding.errors.QuiverException;
import dev.quiver.binding.errors.UnknownTableException;
import dev.quiver.binding.io.ObjectStore;
import dev.quiver.binding.io.ObjectStores;
import dev.quiver.binding.io.StoredObject;
import dev.quiver.binding.settings.SessionConfig;
import dev.quiver.iceberg.io.QuiverFileIO;
import dev.quiver.iceberg.table.IcebergLocations;
import dev.quiver.iceberg.table.IcebergTable;
import dev.quiver.iceberg.write.TableSchemas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;

/**
 * A warehouse folder of Iceberg tables in Hadoop's layout, {@code WAREHOUSE/namespace/table/} each
 * with its {@code metadata/}, as a catalog: {@code cat.namespace.table} reads the table's current
 * snapshot when a statement names it. Tables are created in {@code WAREHOUSE/namespace/table/} (the
 * namespace's folder is made as needed) and committed by {@link FileSystemTableOperations}; DROP
 * TABLE deletes the table's folder, metadata first.
 */
public final class WarehouseCatalog implements WritableIcebergCatalog {
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
  public String qualified(String namespace, String table) {
    return name + "." + namespace + "." + table;
  }

  @Override
  public Transaction newTable(
      String namespace, String table, org.apache.iceberg.Schema schema, PartitionSpec spec) {
    String location = tableLocation(namespace, table);
    String qualified = qualified(namespace, table);
    FileSystemTableOperations ops = new FileSystemTableOperations(location, config);
    if (ops.current() != null) {
      throw new QuiverException("Table '" + qualified + "' already exists; DROP it first");
    }
    TableMetadata metadata =
        TableMetadata.newTableMetadata(
            schema, spec, SortOrder.unsorted(), location, TableSchemas.newTableProperties());
    return Transactions.createTableTransaction(qualified, ops, metadata);
  }

  @Override
  public Table existing(String namespace, String table) {
    String location = tableLocation(namespace, table);
    if (IcebergLocations.find(location, config) == null) {
      throw new UnknownTableException(qualified(namespace, table), tables(namespace));
    }
    return FileSystemTables.load(location, config);
  }

  @Override
  public boolean drop(String namespace, String table) {
    String location = tableLocation(namespace, table);
    if (IcebergLocations.find(location, config) == null) {
      return false;
    }
    String root = QuiverFileIO.storeLocation(location);
    ObjectStore store = ObjectStores.forLocation(root, config);
    List<String> objects =
        new ArrayList<>(store.list(root).stream().map(StoredObject::location).toList());
    // The version hint and metadata files first: the table is gone before its data goes.
    objects.sort(
        Comparator.comparing(
            (String o) ->
                o.endsWith("version-hint.text")
                    ? 0
                    : o.replace('\\', '/').contains("/metadata/") ? 1 : 2));
    for (String o : objects) {
      store.delete(o);
    }
    if (store.isLocal()) {
      deleteFolders(Path.of(root));
    }
    return true;
  }

  /** Removes the empty folders left under {@code dir}, and {@code dir}. */
  private static void deleteFolders(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new DataSourceException("Cannot remove the folder " + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "WarehouseCatalog(" + name + ")";
  }
}
