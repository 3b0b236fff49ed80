package dev.quiver.iceberg.catalog;

import dev.quiver.binding.datasource.WritableTableCatalog;
import dev.quiver.iceberg.write.IcebergWrites;
import dev.quiver.iceberg.write.TableSchemas;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;

/**
 * The writes both Iceberg catalogs share: each catalog loads its tables and starts their create
 * transactions; the statements themselves are {@link IcebergWrites}'.
 */
interface WritableIcebergCatalog extends WritableTableCatalog {
  /** {@code catalog.namespace.table}, as errors name the table. */
  String qualified(String namespace, String table);

  /**
   * Table {@code namespace.table}, loaded now.
   *
   * @throws dev.quiver.binding.errors.UnknownTableException when there is none
   */
  Table existing(String namespace, String table);

  /**
   * A transaction that creates table {@code namespace.table} when committed.
   *
   * @throws dev.quiver.binding.errors.QuiverException when the table exists
   */
  Transaction newTable(
      String namespace, String table, org.apache.iceberg.Schema schema, PartitionSpec spec);

  @Override
  default Schema storedSchema(Schema columns) {
    return TableSchemas.storedSchema(columns, toString());
  }

  @Override
  default FileWrite createWrite(
      String namespace, String table, Schema schema, List<PartitionField> partitionBy) {
    String qualified = qualified(namespace, table);
    org.apache.iceberg.Schema s = TableSchemas.icebergSchema(schema, qualified);
    PartitionSpec spec = TableSchemas.spec(s, partitionBy, qualified);
    return IcebergWrites.createWrite(newTable(namespace, table, s, spec), qualified);
  }

  @Override
  default FileWrite insertWrite(String namespace, String table) {
    return IcebergWrites.appendWrite(existing(namespace, table), qualified(namespace, table));
  }

  @Override
  default long delete(String namespace, String table, DeleteRows rows, BufferAllocator allocator) {
    return IcebergWrites.delete(
        existing(namespace, table), qualified(namespace, table), rows, allocator);
  }
}
