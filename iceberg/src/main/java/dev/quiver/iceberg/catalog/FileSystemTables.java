package dev.quiver.iceberg.catalog;

import dev.quiver.binding.errors.DataSourceException;
import dev.quiver.binding.settings.SessionConfig;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;

/**
 * Iceberg tables kept in folders ({@link FileSystemTableOperations}): created and loaded by
 * location.
 */
public final class FileSystemTables {
  private FileSystemTables() {}

  /** The table in folder {@code location}. */
  public static Table load(String location, SessionConfig config) {
    FileSystemTableOperations ops = new FileSystemTableOperations(location, config);
    if (ops.current() == null) {
      throw new DataSourceException("No Iceberg table at " + location);
    }
    return new BaseTable(ops, location);
  }

  /**
   * Creates a table (format version 2 unless {@code properties} say otherwise) in {@code location}.
   */
  public static Table create(
      String location,
      Schema schema,
      PartitionSpec spec,
      Map<String, String> properties,
      SessionConfig config) {
    FileSystemTableOperations ops = new FileSystemTableOperations(location, config);
    if (ops.current() != null) {
      throw new DataSourceException("An Iceberg table already exists at " + location);
    }
    Map<String, String> props = new java.util.HashMap<>(properties);
    props.putIfAbsent(TableProperties.FORMAT_VERSION, "2");
    TableMetadata metadata =
        TableMetadata.newTableMetadata(schema, spec, SortOrder.unsorted(), location, props);
    ops.commit(null, metadata);
    return new BaseTable(ops, location);
  }
}
