package dev.quiver.binding.datasource;

import dev.quiver.binding.errors.UnsupportedFeatureException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@link TableCatalog} whose tables SQL can create, fill, delete from and drop: {@code CREATE
 * TABLE cat.ns.t [PARTITIONED BY (...)] AS query}, {@code CREATE TABLE cat.ns.t (columns)}, {@code
 * INSERT INTO}, {@code DELETE FROM} and {@code DROP TABLE}. Each call is one atomic change of the
 * catalog: when it fails (also when {@code rows} fails while being read, as a cancelled query
 * does), the table is as it was. The session computes the rows (on a cluster when it is
 * distributed); the catalog writes and publishes them.
 */
public interface WritableTableCatalog extends TableCatalog {
  /**
   * One field of {@code PARTITIONED BY}: {@code column} (transform {@code identity}), or {@code
   * transform(column)} for {@code year}, {@code month}, {@code day}, {@code hour}, or {@code
   * transform(argument, column)} for {@code bucket} and {@code truncate}; {@code argument} is null
   * when not given.
   */
  record PartitionField(String transform, Integer argument, String column) {
    @Override
    public String toString() {
      if (transform.equals("identity")) {
        return column;
      }
      return transform + "(" + (argument == null ? "" : argument + ", ") + column + ")";
    }
  }

  /** The rows of a DELETE, from one version of the table. */
  interface DeleteRows {
    /** How many rows of version {@code snapshotId} the DELETE removes. */
    long deleted(long snapshotId);

    /** The rows of version {@code snapshotId} the DELETE keeps, in the table's schema. */
    ArrowReader kept(long snapshotId);
  }

  /**
   * The columns a table created from {@code columns} would have, each in the type the catalog
   * stores (for instance SMALLINT as INT): the rows given to {@link #create} are cast to it.
   *
   * @throws UnsupportedFeatureException naming a column whose type the catalog cannot store
   */
  Schema storedSchema(Schema columns);

  /**
   * Creates table {@code namespace.name} with {@code schema} (as {@link #storedSchema} gives it)
   * and {@code partitionBy}, holding {@code rows} (null: none); returns the rows written.
   *
   * @throws dev.quiver.binding.errors.QuiverException when the table exists or the namespace does
   *     not
   */
  long create(
      String namespace,
      String name,
      Schema schema,
      List<PartitionField> partitionBy,
      ArrowReader rows,
      BufferAllocator allocator);

  /** Appends {@code rows} (in the table's schema) to table {@code namespace.name}. */
  long insert(String namespace, String name, ArrowReader rows, BufferAllocator allocator);

  /** Deletes rows of table {@code namespace.name}; returns how many were deleted. */
  long delete(String namespace, String name, DeleteRows rows, BufferAllocator allocator);

  /** Drops table {@code namespace.name}; returns whether there was one. */
  boolean drop(String namespace, String name);
}
